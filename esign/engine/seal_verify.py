"""verify_pdf: what the signatures of a PDF say: intact, trusted, by whom, when, PAdES level.

The input is anybody's file (the public verification page), so:

- nothing is fetched: no OCSP, no CRL, no certificate from a URL in the file. Trust is decided
  against the roots the caller passes (the seal's own and the configured ones) and whatever
  validation data the file itself carries;
- pyHanko reads the file with its limits for untrusted input, and every signature is checked on
  its own: a malformed one is reported as not intact, the others are still checked;
- at most ``max_signatures`` signatures are checked;
- before any parse, `check_pdf_limits` scans the raw bytes and refuses (`PdfOverLimit`) what
  would make pyHanko's parse unbounded: signature contents over a size (pyHanko reads a hex
  string digit by digit into Python objects: 12 MB of digits took 1 to 2 GB), too many
  revisions, objects or signatures. What hides in compressed object streams escapes the scan;
  the caller runs verify_pdf in a worker process with memory and time limits
  (esign.engine.verify_pool) for that. A MemoryError is never reported as an unreadable file:
  it propagates, for the worker to report.

A signature is *intact* when its digest matches the bytes it covers, its cryptographic
signature is valid, and its /Contents holds nothing after the CMS object but the zero padding
(pyHanko ignores that padding; a changed byte there would otherwise go unnoticed). It is
*trusted* when its certificate chains to one of the roots. It *covers the whole document* when
it covers every byte, or everything after its revision is long-term validation data (a document
security store, document timestamps).

Levels (ETSI EN 319 142-1), read from the file's structure: ``PAdES-B-B`` for an intact
``ETSI.CAdES.detached`` signature; ``PAdES-B-T`` with a signature timestamp; ``PAdES-B-LT`` when
the document security store also holds the signer's certificate (and revocation data, when the
certificate names a source of it); ``PAdES-B-LTA`` when an intact document timestamp was added
after the signature. Other signatures (``adbe.pkcs7.detached``) have no PAdES level.

Pure Python (no Django).
"""

from __future__ import annotations

import asyncio
import io
import logging
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime

from asn1crypto import parser
from asn1crypto import x509 as asn1_x509
from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.diff_analysis import ModificationLevel
from pyhanko.sign.fields import enumerate_sig_fields
from pyhanko.sign.general import find_unique_cms_attribute
from pyhanko.sign.validation import (
    EmbeddedPdfSignature,
    validate_pdf_signature,
    validate_pdf_timestamp,
)
from pyhanko.sign.validation.dss import DocumentSecurityStore, NoDSSFoundError
from pyhanko.sign.validation.status import SignatureCoverageLevel
from pyhanko_certvalidator import ValidationContext

from core.engine.problems import EngineError, InvalidInput, Problem

logger = logging.getLogger(__name__)

PADES_SUBFILTER = "/ETSI.CAdES.detached"
DOCUMENT_TIMESTAMP = "/DocTimeStamp"
MAX_SIGNATURES = 50


class PdfNotVerifiable(InvalidInput):
    """The file is not a PDF whose signatures can be read."""

    code = "pdf_not_verifiable"


class PdfTooComplex(EngineError):
    """The file is beyond what one verification may spend (a 422 on ``file``, not a 400: the
    file may be a fine PDF)."""

    code = "pdf_too_complex"
    kind = "unprocessable"
    path = "file"

    def __init__(self, message: str) -> None:
        self.message = message
        self.problems = [Problem(self.path, message)]
        super().__init__(message)

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return (type(self), (self.message,))


class PdfOverLimit(PdfTooComplex):
    """The raw bytes are over a structural limit (`check_pdf_limits`); nothing was parsed."""

    code = "pdf_over_limit"


@dataclass(frozen=True)
class VerifyLimits:
    """What one verification may parse. The defaults are far above real signed files: a
    PAdES-B-LTA signature's CMS object (certificates, timestamp, revocation data) is some tens of
    KB, a document a few revisions per signer."""

    max_signature_contents_bytes: int = 1_048_576  # DER bytes: half the hex digits
    max_revisions: int = 100  # incremental updates (startxref keywords)
    max_objects: int = 200_000  # indirect objects (object headers, the trailers' /Size)
    max_signatures: int = 200  # signatures and document timestamps (/ByteRange arrays)


_BYTE_RANGE = re.compile(rb"/ByteRange\s*\[\s*(\d{1,12})\s+(\d{1,12})\s+(\d{1,12})\s+(\d{1,12})")
_OBJECT_HEADER = re.compile(rb"\d\s+obj\b")
_TRAILER_SIZE = re.compile(rb"/Size\s+(\d{1,12})")


def check_pdf_limits(pdf: bytes, limits: VerifyLimits) -> None:
    """Refuse ``pdf`` (PdfOverLimit on ``file``) when its raw bytes are over ``limits``.

    Scans only, with regular expressions over the bytes (a 25 MB file in well under a second
    and no copy of it): no PDF parse. A signature's /Contents is the gap between the two ranges
    of its /ByteRange; a /ByteRange that lies is caught by the longest hexadecimal string,
    which pyHanko would parse just the same.
    """
    limit = limits.max_signature_contents_bytes
    signatures = 0
    for match in _BYTE_RANGE.finditer(pdf):
        signatures += 1
        first_start, first_length, second_start, _ = (int(g) for g in match.groups())
        gap = second_start - (first_start + first_length)
        contents = max(0, gap - 2) // 2  # hex digits between < and >, two to a byte
        if contents > limit:
            _refuse(f"A signature's contents are {_size(contents)}; the limit is {_size(limit)}.")
    if signatures > limits.max_signatures:
        _refuse(f"The file has {signatures} signatures; the limit is {limits.max_signatures}.")
    # Whitespace may sit between the digits; pyHanko reads it all the same.
    if re.search(rb"<[0-9A-Fa-f\s]{%d}" % (2 * limit + 1), pdf):
        _refuse(
            f"The file holds a string longer than a signature's contents may be ({_size(limit)})."
        )
    revisions = pdf.count(b"startxref")
    if revisions > limits.max_revisions:
        _refuse(f"The file has {revisions} revisions; the limit is {limits.max_revisions}.")
    objects = sum(1 for _ in _OBJECT_HEADER.finditer(pdf))
    declared = max((int(m.group(1)) for m in _TRAILER_SIZE.finditer(pdf)), default=0)
    if max(objects, declared) > limits.max_objects:
        _refuse(
            f"The file has {max(objects, declared)} objects; the limit is {limits.max_objects}."
        )


def _refuse(message: str) -> None:
    raise PdfOverLimit(message)


def _size(count: int) -> str:
    if count >= 1_048_576:
        return f"{count / 1_048_576:.1f}".removesuffix(".0") + " MB"
    return f"{count:,} bytes"


# --- what a verification finds -------------------------------------------------------------------

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
APPENDED_BYTES = "appended_bytes"
CHANGES_UNKNOWN = "changes_unknown"
DOCUMENT_TIMESTAMP_NOT_INTACT = "document_timestamp_not_intact"
NOT_TRUSTED = "not_trusted"
REVOKED = "revoked"
TIMESTAMP_NOT_INTACT = "timestamp_not_intact"
DOCUMENT_TIMESTAMP_NOT_TRUSTED = "document_timestamp_not_trusted"

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
        APPENDED_BYTES,
        CHANGES_UNKNOWN,
        DOCUMENT_TIMESTAMP_NOT_INTACT,
        TIMESTAMP_NOT_INTACT,
    }
)
# Changes after a signature, by pyHanko's modification level of the later revisions.
_CHANGE_OF_LEVEL = {
    ModificationLevel.FORM_FILLING: (
        CHANGED_FORM,
        "Form fields were filled in or signatures added after it was signed.",
    ),
    ModificationLevel.ANNOTATIONS: (
        CHANGED_ANNOTATIONS,
        "Comments, drawings or other annotations were added or changed after it was signed.",
    ),
    ModificationLevel.OTHER: (
        CHANGED_CONTENT,
        "The document's content was changed after it was signed.",
    ),
}


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

    @property
    def problems(self) -> tuple[str, ...]:
        return tuple(f.message for f in self.findings)

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

    @property
    def problems(self) -> tuple[str, ...]:
        return tuple(f.message for f in self.findings)


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
            not t.intact for t in self.document_timestamps
        ):
            return CHANGED
        if any(not s.trusted for s in self.signatures) or any(
            not t.trusted for t in self.document_timestamps
        ):
            return UNTRUSTED
        return VALID

    @property
    def findings(self) -> tuple[tuple[str, Finding], ...]:
        """Every finding with the field name of its signature or document timestamp."""
        return tuple(
            [(s.field_name, f) for s in self.signatures for f in s.findings]
            + [(t.field_name, f) for t in self.document_timestamps for f in t.findings]
        )


def verify_pdf(
    pdf: bytes,
    *,
    trust_roots: Sequence[asn1_x509.Certificate],
    max_signatures: int = MAX_SIGNATURES,
    now: datetime | None = None,
) -> PdfVerification:
    """Every signature and document timestamp of ``pdf``, checked against ``trust_roots`` with
    the validation data the file carries, at ``now`` (the current time by default) or at the
    time a signature's trusted timestamp proves.

    Raises PdfNotVerifiable when the bytes cannot be read as a PDF at all.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _verify(pdf, trust_roots, max_signatures, now)
    # pyHanko's synchronous validation runs its own event loop: not from inside another one.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(_verify, pdf, trust_roots, max_signatures, now).result()


def _verify(
    pdf: bytes,
    trust_roots: Sequence[asn1_x509.Certificate],
    max_signatures: int,
    now: datetime | None,
) -> PdfVerification:
    if not pdf.lstrip()[:1024].startswith(b"%PDF-") and b"%PDF-" not in pdf[:1024]:
        raise PdfNotVerifiable.single("file", "The file is not a PDF.")
    try:
        reader = PdfFileReader(io.BytesIO(pdf), strict=False)
        found = list(enumerate_sig_fields(reader, filled_status=True))
    except MemoryError:
        raise
    except Exception as error:  # noqa: BLE001 - hostile input: any parser failure means unreadable
        logger.info("verify: unreadable PDF (%s: %s)", type(error).__name__, error)
        raise PdfNotVerifiable.single("file", "The PDF could not be read.") from None

    signatures: list[tuple[str, EmbeddedPdfSignature | None, str]] = []
    for name, _value, field_ref in found[:max_signatures]:
        try:
            embedded = EmbeddedPdfSignature(reader, field_ref, name)
        except MemoryError:
            raise
        except Exception as error:  # noqa: BLE001 - a malformed signature is reported, not fatal
            signatures.append(
                (name, None, f"The signature cannot be read ({type(error).__name__}).")
            )
            continue
        signatures.append((name, embedded, ""))

    checker = _Checker(reader, pdf, list(trust_roots), now)
    regular = [
        (name, embedded, error)
        for name, embedded, error in signatures
        if embedded is None or embedded.sig_object_type != DOCUMENT_TIMESTAMP
    ]
    stamped = [
        (embedded, checker.document_timestamp(name, embedded, regular))
        for name, embedded, _ in signatures
        if embedded is not None and embedded.sig_object_type == DOCUMENT_TIMESTAMP
    ]
    # The revision of the latest document timestamp that holds: signatures before it are LTA.
    latest_timestamp_revision = max(
        (e.signed_revision for e, report in stamped if report.intact and report.trusted),
        default=-1,
    )
    reports = [
        checker.signature(name, embedded, error, latest_timestamp_revision)
        for name, embedded, error in regular
    ]
    return PdfVerification(
        signatures=tuple(reports),
        document_timestamps=tuple(report for _, report in stamped),
        unchecked=max(0, len(found) - max_signatures),
        appended_bytes=checker.appended_bytes,
    )


@dataclass(frozen=True)
class _Dss:
    certificates: tuple[asn1_x509.Certificate, ...]
    crls: tuple[bytes, ...]
    ocsps: tuple[bytes, ...]

    @property
    def certificate_hashes(self) -> frozenset[bytes]:
        return frozenset(c.sha256 for c in self.certificates)

    @property
    def has_revocation_data(self) -> bool:
        return bool(self.crls or self.ocsps)


_NO_DSS = _Dss((), (), ())


def _dss(reader: PdfFileReader) -> _Dss:
    """The file's document security store: its certificates, CRLs and OCSP responses."""
    try:
        store = DocumentSecurityStore.read_dss(reader)
        return _Dss(
            tuple(
                asn1_x509.Certificate.load(ref.get_object().data) for ref in store.certs.values()
            ),
            tuple(ref.get_object().data for ref in store.crls),
            tuple(ref.get_object().data for ref in store.ocsps),
        )
    except NoDSSFoundError:
        return _NO_DSS
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 - a broken store counts as none
        logger.info("verify: unreadable document security store", exc_info=True)
        return _NO_DSS


def _embedded_revocation_data(embedded: EmbeddedPdfSignature) -> tuple[list[bytes], list[bytes]]:
    """The CRLs and OCSP responses of a signature's Adobe revocation-info attribute."""
    try:
        archival = find_unique_cms_attribute(
            embedded.signer_info["signed_attrs"], "adobe_revocation_info_archival"
        )
        return (
            [crl.dump() for crl in archival["crl"] or ()],
            [ocsp.dump() for ocsp in archival["ocsp"] or ()],
        )
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 - absent (the usual case) or unreadable: none
        return [], []


def _appended_bytes(pdf: bytes, reader: PdfFileReader) -> int:
    """How many bytes follow the end of the file's last revision (the %%EOF after the xref
    section that ends furthest into the file: in a linearized file the newest section is near
    the start) that are not whitespace: a tail no signature and no document timestamp covers,
    whatever it holds (another %%EOF included)."""
    xref_end = 0
    try:
        xrefs = reader.xrefs
        for revision in range(xrefs.total_revisions):
            end = xrefs.get_xref_container_info(revision).end_location
            if isinstance(end, int):
                xref_end = max(xref_end, end)
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 - without the revisions' bounds: from the last %%EOF
        xref_end = 0
    end = pdf.find(b"%%EOF", xref_end) if xref_end else pdf.rfind(b"%%EOF")
    if end < 0:
        return 0
    return len(pdf[end + len(b"%%EOF") :].strip(b"\x00\t\n\x0c\r "))


class _Checker:
    """The checks of one file: its validation data, its revisions, its roots."""

    def __init__(
        self,
        reader: PdfFileReader,
        pdf: bytes,
        roots: list[asn1_x509.Certificate],
        now: datetime | None,
    ) -> None:
        self.reader = reader
        self.roots = roots
        self.now = now
        self.dss = _dss(reader)
        self.appended_bytes = _appended_bytes(pdf, reader)

    def context(
        self,
        embedded: EmbeddedPdfSignature | None = None,
        moment: datetime | None = None,
    ) -> ValidationContext:
        """Trust in the roots, with the file's own validation data (its DSS and the
        signature's revocation-info attribute), nothing fetched, at ``moment``. Revocation is
        soft-fail: a certificate without revocation data in the file is not refused for that
        (a PAdES-B-B seal carries none), one the data revokes is. Revocation data issued after
        ``moment`` counts: a CRL of today that says a certificate was revoked last year
        answers for last year."""
        crls, ocsps = list(self.dss.crls), list(self.dss.ocsps)
        if embedded is not None:
            more_crls, more_ocsps = _embedded_revocation_data(embedded)
            crls += more_crls
            ocsps += more_ocsps
        return ValidationContext(
            trust_roots=self.roots,
            other_certs=list(self.dss.certificates),
            crls=crls,
            ocsps=ocsps,
            allow_fetching=False,
            revocation_mode="soft-fail",
            retroactive_revinfo=True,
            moment=moment or self.now,
        )

    def changes_after(self, embedded: EmbeddedPdfSignature, status: object) -> list[Finding]:
        """What follows the revision of ``embedded`` besides long-term validation data."""
        coverage = getattr(status, "coverage", None)
        findings: list[Finding] = []
        if coverage == SignatureCoverageLevel.ENTIRE_REVISION:
            level = getattr(status, "modification_level", None)
            if level is None:
                findings.append(
                    Finding(
                        CHANGES_UNKNOWN,
                        "The file has later revisions that could not be analysed.",
                    )
                )
            elif level in _CHANGE_OF_LEVEL:
                findings.append(Finding(*_CHANGE_OF_LEVEL[level]))
            if getattr(status, "docmdp_ok", None) is False and level not in _CHANGE_OF_LEVEL:
                findings.append(
                    Finding(
                        CHANGED_CONTENT,
                        "The document was changed after it was signed in a way its "
                        "certification does not permit.",
                    )
                )
            if self._info_changed_after(embedded.signed_revision):
                findings.append(
                    Finding(
                        CHANGED_METADATA,
                        "The document's information (title, author, subject...) was changed "
                        "after it was signed.",
                    )
                )
        elif coverage != SignatureCoverageLevel.ENTIRE_FILE:
            findings.append(
                Finding(
                    CHANGES_UNKNOWN,
                    "The signature does not cover its own revision: what it signed is unclear.",
                )
            )
        if self.appended_bytes:
            findings.append(
                Finding(
                    APPENDED_BYTES,
                    f"{self.appended_bytes:,} bytes were added after the end of the file, where "
                    "no signature covers them.",
                )
            )
        return findings

    def _info_changed_after(self, revision: int) -> bool:
        """Whether the document information dictionary (the trailer's /Info: title, author...)
        differs from what it was at ``revision``: pyHanko's analysis of later revisions looks
        only at what the catalog reaches. /ModDate and /Producer are left out: the tools that
        add validation data (pyHanko among them) update them."""
        return self._info_at(revision) != self._info_at(None)

    def _info_at(self, revision: int | None) -> dict[str, str] | None:
        try:
            reference = self.reader.trailer.raw_get("/Info", revision=revision)
        except KeyError:
            return None
        if not isinstance(reference, generic.IndirectObject):
            info = reference
        elif revision is None:
            info = reference.get_object()
        else:
            info = self.reader.get_object(reference.reference, revision=revision)
        if not isinstance(info, generic.DictionaryObject):
            return {"": repr(info)}
        values: dict[str, str] = {}
        for key in info:
            if key in ("/ModDate", "/Producer"):
                continue
            value = info.raw_get(key)
            if isinstance(value, generic.IndirectObject):  # its value as of ``revision``
                value = (
                    value.get_object()
                    if revision is None
                    else self.reader.get_object(value.reference, revision=revision)
                )
            values[str(key)] = repr(value)
        return values

    def signature(
        self,
        name: str,
        embedded: EmbeddedPdfSignature | None,
        read_error: str,
        latest_timestamp_revision: int,
    ) -> SignatureReport:
        if embedded is None:
            return SignatureReport(
                name,
                "",
                None,
                False,
                False,
                False,
                None,
                None,
                findings=(Finding(UNREADABLE_SIGNATURE, read_error),),
            )
        signer = ""
        try:
            signer = _name_of(embedded.signer_cert)
            context = self.context(embedded)
            status = validate_pdf_signature(embedded, context, self.context())
        except MemoryError:
            raise
        except Exception as error:  # noqa: BLE001 - hostile input: report, never crash
            logger.info("verify: signature %s not checkable (%s)", name, type(error).__name__)
            return SignatureReport(
                name,
                signer,
                None,
                False,
                False,
                False,
                None,
                None,
                findings=(
                    Finding(
                        UNREADABLE_SIGNATURE,
                        f"The signature could not be checked ({type(error).__name__}).",
                    ),
                ),
            )
        findings: list[Finding] = []
        clean = _padding_is_clean(embedded)
        intact = bool(status.intact and status.valid and clean)
        if not status.intact:
            findings.append(Finding(NOT_INTACT, "The document was changed after it was signed."))
        elif not status.valid:
            findings.append(
                Finding(
                    SIGNATURE_VALUE_INVALID,
                    "The signature value does not match the signer's certificate.",
                )
            )
        elif not clean:
            findings.append(
                Finding(
                    CONTENTS_CHANGED, "The signature's contents were changed after it was signed."
                )
            )
        timestamp = status.timestamp_validity
        timestamp_ok = bool(timestamp is not None and timestamp.intact and timestamp.valid)
        timestamp_trusted = bool(timestamp_ok and timestamp is not None and timestamp.trusted)
        if intact and timestamp is not None and not timestamp_ok:
            findings.append(
                Finding(TIMESTAMP_NOT_INTACT, "The signature's timestamp is not intact.")
            )
        trusted, revoked, trusted_at = bool(status.trusted), bool(status.revoked), None
        if intact and not trusted and timestamp_trusted and timestamp is not None:
            # Not trusted now (expired, or revoked since): the timestamp proves the signature
            # existed at its time, so trust is decided at that time.
            at_time = validate_pdf_signature(
                embedded, self.context(embedded, timestamp.timestamp), self.context()
            )
            trusted, revoked = bool(at_time.trusted), bool(at_time.revoked)
            trusted_at = timestamp.timestamp
        trusted = bool(intact and trusted and not revoked)
        if intact and revoked:
            findings.append(
                Finding(
                    REVOKED,
                    "The signer's certificate was revoked (by revocation data in the file).",
                )
            )
        elif intact and not trusted:
            findings.append(
                Finding(NOT_TRUSTED, "The signer's certificate does not chain to a trusted root.")
            )
        changes = self.changes_after(embedded, status) if intact else []
        findings += changes
        whole = intact and not changes
        level = _level(embedded, intact, timestamp_ok, self.dss, latest_timestamp_revision)
        return SignatureReport(
            field_name=name,
            signer=signer,
            signed_at=status.signer_reported_dt,
            intact=intact,
            trusted=trusted,
            covers_whole_document=whole,
            level=level,
            timestamp=timestamp.timestamp if timestamp is not None else None,
            timestamp_authority=_name_of(timestamp.signing_cert) if timestamp is not None else "",
            timestamp_trusted=timestamp_trusted,
            findings=tuple(findings),
            revoked=bool(intact and revoked),
            trusted_at=trusted_at if trusted else None,
            certificate_sha256=embedded.signer_cert.sha256.hex(),
            signed_revision=embedded.signed_revision,
        )

    def document_timestamp(
        self,
        name: str,
        embedded: EmbeddedPdfSignature,
        regular: list[tuple[str, EmbeddedPdfSignature | None, str]],
    ) -> DocumentTimestampReport:
        covers = tuple(
            n
            for n, e, _ in regular
            if e is not None and e.signed_revision < embedded.signed_revision
        )
        try:
            authority = _name_of(embedded.signer_cert)
            status = validate_pdf_timestamp(embedded, self.context(embedded))
        except MemoryError:
            raise
        except Exception as error:  # noqa: BLE001 - hostile input
            logger.info(
                "verify: document timestamp %s not checkable (%s)", name, type(error).__name__
            )
            return DocumentTimestampReport(
                name,
                "",
                None,
                False,
                False,
                covers,
                findings=(
                    Finding(
                        DOCUMENT_TIMESTAMP_NOT_INTACT,
                        f"A document timestamp could not be checked ({type(error).__name__}).",
                    ),
                ),
            )
        intact = bool(status.intact and status.valid and _padding_is_clean(embedded))
        trusted = bool(intact and status.trusted and not status.revoked)
        findings: list[Finding] = []
        if not intact:
            findings.append(
                Finding(
                    DOCUMENT_TIMESTAMP_NOT_INTACT,
                    "The file was changed after its document timestamp by "
                    f"{authority}: the bytes it covers (the signatures and their validation "
                    "data) are not the ones it stamped.",
                )
            )
        elif not trusted:
            findings.append(
                Finding(
                    DOCUMENT_TIMESTAMP_NOT_TRUSTED,
                    f"The document timestamp's authority ({authority}) is not trusted.",
                )
            )
        changes = self.changes_after(embedded, status) if intact else []
        return DocumentTimestampReport(
            field_name=name,
            authority=authority,
            at=status.timestamp,
            intact=intact,
            trusted=trusted,
            covers=covers,
            covers_whole_document=intact and not changes,
            findings=tuple(findings),
        )


def _name_of(certificate: asn1_x509.Certificate) -> str:
    names = certificate.subject.native
    common = names.get("common_name") if isinstance(names, dict) else None
    if isinstance(common, list):
        common = common[0] if common else None
    return str(common or certificate.subject.human_friendly)


def _padding_is_clean(embedded: EmbeddedPdfSignature) -> bool:
    """Whether /Contents has nothing but zeros after the CMS object (the DER's own length)."""
    content = embedded.pkcs7_content
    _, _, _, header, contents, trailer = parser.parse(content, strict=False)
    used = len(header) + len(contents) + len(trailer)
    return not content[used:].strip(b"\x00")


def _names_revocation_source(certificate: asn1_x509.Certificate) -> bool:
    return bool(certificate.crl_distribution_points or certificate.ocsp_urls)


def _level(
    embedded: EmbeddedPdfSignature,
    intact: bool,
    timestamped: bool,
    dss: _Dss,
    latest_timestamp_revision: int,
) -> str | None:
    if str(embedded.sig_object.get("/SubFilter")) != PADES_SUBFILTER or not intact:
        return None
    if not timestamped:
        return "PAdES-B-B"
    certificate = embedded.signer_cert
    if certificate.sha256 not in dss.certificate_hashes:
        return "PAdES-B-T"
    if _names_revocation_source(certificate) and not dss.has_revocation_data:
        return "PAdES-B-T"
    if latest_timestamp_revision > embedded.signed_revision:
        return "PAdES-B-LTA"
    return "PAdES-B-LT"
