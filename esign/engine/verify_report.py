"""What a verification finds: the verdict of a file, a report per signature and document
timestamp, and what is wrong with each as a finding with a stable code (the API's
``problems[].code``).

Pure Python (no Django).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

# Verdicts of a whole file (``PdfVerification.verdict``), worst first.
NOT_SIGNED = "not_signed"
CHANGED = "changed"
UNTRUSTED = "untrusted"
VALID = "valid"

# What can be wrong, by a stable code (the API's ``problems[].code``). The codes of
# CHANGE_CODES mean the file was changed after a signature or a document timestamp.
NOT_INTACT = "not_intact"
SIGNATURE_VALUE_INVALID = "signature_value_invalid"
CONTENTS_CHANGED = "signature_contents_changed"
UNREADABLE_SIGNATURE = "signature_unreadable"
CHANGED_CONTENT = "changed_content"
CHANGED_ANNOTATIONS = "changed_annotations"
CHANGED_FORM = "changed_form"
CHANGED_METADATA = "changed_metadata"
# pages added, removed or replaced after a signature (EN 319 102-1: TOTAL-FAILED/FORMAT_FAILURE)
CHANGED_PAGES = "changed_pages"
# the signature's /ByteRange is not one a signature may have (gaps, overlap, past the file, not
# ending at a revision's end): not intact (EN 319 102-1 and DSS: TOTAL-FAILED/FORMAT_FAILURE)
BYTE_RANGE_INVALID = "byte_range_invalid"
APPENDED_BYTES = "appended_bytes"
CHANGES_UNKNOWN = "changes_unknown"
DOCUMENT_TIMESTAMP_NOT_INTACT = "document_timestamp_not_intact"
# A document timestamp whose token stamps what another timestamp of the file stamps (a copy of
# it, duplicated or copied into a later revision): it proves nothing about its own revision,
# and changes nothing that was signed before it (DSS: that timestamp fails, HASH_FAILURE; the
# signatures before it hold).
DOCUMENT_TIMESTAMP_COPIED = "document_timestamp_copied"
NOT_TRUSTED = "not_trusted"
REVOKED = "revoked"
TIMESTAMP_NOT_INTACT = "timestamp_not_intact"
DOCUMENT_TIMESTAMP_NOT_TRUSTED = "document_timestamp_not_trusted"
TIMESTAMP_NOT_TRUSTED = "timestamp_not_trusted"
CERTIFICATE_NOT_FOR_SIGNING = "certificate_not_for_signing"
# The signer's certificate had expired at the time trust is decided, and no trusted timestamp
# proves the signature existed before (EN 319 102-1: INDETERMINATE/OUT_OF_BOUNDS_NO_POE).
CERTIFICATE_EXPIRED = "certificate_expired"
# Not a problem yet: the last document timestamp's authority certificate has expired, so the
# file needs a new document timestamp (archive timestamp renewal) to stay verifiable.
RENEWAL_NEEDED = "timestamp_renewal_needed"
# Changes after a certification signature that its permissions (DocMDP) allow: said, and no
# change in the verdict's sense.
ALLOWED_FORM_FILLING = "allowed_form_filling"
ALLOWED_ANNOTATIONS = "allowed_annotations"
# A trusted signer's certificate names a source of revocation data, and the file carries none
# about it: whether it was revoked is unknown (nothing is fetched).
REVOCATION_NOT_CHECKED = "revocation_not_checked"
# What shape of CMS another tool wrote (esign.engine.signature_structure), and bytes other than
# zeros after the CMS inside /Contents (padding nothing signs or reads): said, nothing more.
SIGNATURE_FORMAT = "signature_format"
PADDING_NOT_ZERO = "signature_contents_padding"
# Findings that are notices: the verdict does not rest on them.
NOTICE_CODES = frozenset(
    {
        RENEWAL_NEEDED,
        ALLOWED_FORM_FILLING,
        ALLOWED_ANNOTATIONS,
        REVOCATION_NOT_CHECKED,
        SIGNATURE_FORMAT,
        PADDING_NOT_ZERO,
    }
)

CHANGE_CODES = frozenset(
    {
        NOT_INTACT,
        SIGNATURE_VALUE_INVALID,
        CONTENTS_CHANGED,
        UNREADABLE_SIGNATURE,
        CHANGED_CONTENT,
        CHANGED_ANNOTATIONS,
        CHANGED_FORM,
        CHANGED_METADATA,
        CHANGED_PAGES,
        BYTE_RANGE_INVALID,
        APPENDED_BYTES,
        CHANGES_UNKNOWN,
        DOCUMENT_TIMESTAMP_NOT_INTACT,
    }
)


# ETSI EN 319 102-1 validation report: the main indication of a signature or timestamp and its
# sub-indication, from its findings (`indication_of`).
TOTAL_PASSED = "TOTAL-PASSED"
INDETERMINATE = "INDETERMINATE"
TOTAL_FAILED = "TOTAL-FAILED"
_INDICATION_OF_CODE: tuple[tuple[frozenset[str], str, str], ...] = (
    # the first group any finding belongs to decides, worst first; DSS checks the byte range's
    # format before any digest
    (frozenset({BYTE_RANGE_INVALID}), TOTAL_FAILED, "FORMAT_FAILURE"),
    (
        frozenset({NOT_INTACT, DOCUMENT_TIMESTAMP_NOT_INTACT, DOCUMENT_TIMESTAMP_COPIED}),
        TOTAL_FAILED,
        "HASH_FAILURE",
    ),
    (
        frozenset({SIGNATURE_VALUE_INVALID, CONTENTS_CHANGED}),
        TOTAL_FAILED,
        "SIG_CRYPTO_FAILURE",
    ),
    # unreadable, or pages added, removed or replaced after it: what was signed is not the
    # document's structure any more (DSS: a page difference is TOTAL-FAILED/FORMAT_FAILURE)
    (frozenset({UNREADABLE_SIGNATURE, CHANGED_PAGES}), TOTAL_FAILED, "FORMAT_FAILURE"),
    # REVOKED_NO_POE instead when nothing proves when it was made (SignatureReport.indication)
    (frozenset({REVOKED}), TOTAL_FAILED, "REVOKED"),
    # changes after it that nothing permitted: what was signed is not what is shown
    (
        frozenset(
            {
                CHANGED_CONTENT,
                CHANGED_ANNOTATIONS,
                CHANGED_FORM,
                CHANGED_METADATA,
                APPENDED_BYTES,
                CHANGES_UNKNOWN,
            }
        ),
        INDETERMINATE,
        "SIG_CONSTRAINTS_FAILURE",
    ),
    (
        frozenset({NOT_TRUSTED, DOCUMENT_TIMESTAMP_NOT_TRUSTED}),
        INDETERMINATE,
        "NO_CERTIFICATE_CHAIN_FOUND",
    ),
    (frozenset({CERTIFICATE_EXPIRED}), INDETERMINATE, "OUT_OF_BOUNDS_NO_POE"),
    (frozenset({CERTIFICATE_NOT_FOR_SIGNING}), INDETERMINATE, "CHAIN_CONSTRAINTS_FAILURE"),
    (
        frozenset({TIMESTAMP_NOT_INTACT, TIMESTAMP_NOT_TRUSTED}),
        INDETERMINATE,
        "CERTIFICATE_CHAIN_GENERAL_FAILURE",
    ),
    # the last document timestamp's authority certificate has expired and no newer timestamp
    # renews it: what it proves holds, but nothing proves it any more (the renewal advice)
    (frozenset({RENEWAL_NEEDED}), INDETERMINATE, "NO_POE"),
)


def indication_of(findings: tuple[Finding, ...]) -> tuple[str, str | None]:
    """(indication, sub-indication) of EN 319 102-1 for a signature or timestamp with these
    findings: TOTAL-PASSED (None) when none but notices."""
    codes = {f.code for f in findings}
    for group, indication, sub_indication in _INDICATION_OF_CODE:
        if codes & group:
            return indication, sub_indication
    return TOTAL_PASSED, None


@dataclass(frozen=True)
class Finding:
    """One thing wrong, for programs (``code``) and people (``message``)."""

    code: str
    message: str


@dataclass(frozen=True)
class SignatureReport:
    field_name: str
    signer: str  # the certificate's common name (its whole subject when it has none); "" unknown
    signed_at: datetime | None  # the signer's claimed signing time
    intact: bool
    trusted: bool
    covers_whole_document: bool
    level: str | None  # PAdES-B-B, -B-T, -B-LT, -B-LTA; None when not a PAdES signature
    timestamp: datetime | None  # the signature timestamp's time (a TSA's), if any
    timestamp_authority: str = ""
    timestamp_trusted: bool = False
    findings: tuple[Finding, ...] = ()  # why it is not intact, trusted or whole
    revoked: bool = False  # revocation data in the file revokes the signer's certificate
    trusted_at: datetime | None = None  # the time trust was decided at; None: the current time
    certificate_sha256: str = ""  # hex, of the signer's certificate
    signed_revision: int = -1
    # revocation data in the file answers for the certificate (or it names no source of any)
    revocation_checked: bool = True
    # the revocation data was fetched from the certificate's authority (VERIFY_ONLINE_REVOCATION)
    revocation_checked_online: bool = False
    # a trusted timestamp proves when it existed (its own, or a later document timestamp's)
    proven: bool = False

    @property
    def problems(self) -> tuple[str, ...]:
        return tuple(f.message for f in self.findings)

    @property
    def indication(self) -> tuple[str, str | None]:
        indication, sub_indication = indication_of(self.findings)
        if sub_indication == "REVOKED" and not self.proven:
            # EN 319 102-1: revoked, and nothing proves the signature was made before
            return INDETERMINATE, "REVOKED_NO_POE"
        return indication, sub_indication

    @property
    def changed(self) -> bool:
        """Not intact, or changed after it by more than long-term validation data."""
        return any(f.code in CHANGE_CODES for f in self.findings) or not self.intact


@dataclass(frozen=True)
class DocumentTimestampReport:
    field_name: str
    authority: str
    at: datetime | None
    intact: bool
    trusted: bool
    covers: tuple[str, ...] = ()  # the field names of the signatures it covers
    covers_whole_document: bool = False
    findings: tuple[Finding, ...] = ()
    signed_revision: int = -1

    @property
    def problems(self) -> tuple[str, ...]:
        return tuple(f.message for f in self.findings)

    @property
    def indication(self) -> tuple[str, str | None]:
        return indication_of(self.findings)

    @property
    def changed(self) -> bool:
        """Not intact, unless it is a copy of another timestamp of the file (which proves
        nothing, and changes nothing)."""
        return not self.intact and not any(
            f.code == DOCUMENT_TIMESTAMP_COPIED for f in self.findings
        )


@dataclass(frozen=True)
class PdfVerification:
    signatures: tuple[SignatureReport, ...] = ()
    document_timestamps: tuple[DocumentTimestampReport, ...] = ()
    unchecked: int = 0  # signatures beyond max_signatures
    notes: tuple[str, ...] = field(default=())
    appended_bytes: int = 0  # bytes after the end of the last revision (its %%EOF)

    @property
    def verdict(self) -> str:
        """NOT_SIGNED without a signature; CHANGED when a signature or document timestamp is
        not intact or anything but long-term validation data followed a signature; UNTRUSTED
        when all are intact and unchanged but a signer or timestamp authority is not trusted
        (or was revoked); VALID otherwise."""
        if not self.signatures:
            return NOT_SIGNED
        if any(s.changed for s in self.signatures) or any(
            t.changed for t in self.document_timestamps
        ):
            return CHANGED
        # a signature timestamp that does not hold is a finding on the signature's time (not
        # proven), not a change of what was signed
        if any(
            not s.trusted
            or (s.timestamp is not None and not s.timestamp_trusted)
            or any(f.code == TIMESTAMP_NOT_INTACT for f in s.findings)
            for s in self.signatures
        ) or any(not t.trusted for t in self.document_timestamps):
            return UNTRUSTED
        return VALID

    @property
    def findings(self) -> tuple[tuple[str, Finding], ...]:
        """Every finding with the field name of its signature or document timestamp."""
        return tuple(
            [(s.field_name, f) for s in self.signatures for f in s.findings]
            + [(t.field_name, f) for t in self.document_timestamps for f in t.findings]
        )
