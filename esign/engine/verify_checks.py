"""The checks of one signed file, signature by signature (esign.engine.seal_verify runs them):
trust in the caller's roots with the validation data the file carries (nothing is fetched), the
changes made after each signature (`verify_changes`), and the PAdES level its structure reaches
with that data (`verify_dss`).

Pure Python (no Django).
"""

from __future__ import annotations

import logging
from datetime import datetime

from asn1crypto import x509 as asn1_x509
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import (
    EmbeddedPdfSignature,
    validate_pdf_signature,
    validate_pdf_timestamp,
)
from pyhanko.sign.validation.settings import KeyUsageConstraints
from pyhanko.sign.validation.status import PdfSignatureStatus
from pyhanko_certvalidator import ValidationContext
from pyhanko_certvalidator.fetchers import Fetchers

from core.engine.fetch import FetchPolicy
from esign.engine.revocation import guarded_revocation_fetchers
from esign.engine.signature_changes import Revisions
from esign.engine.signature_structure import check_structure
from esign.engine.signature_timestamps import imprint_of
from esign.engine.verify_certificates import (
    expired_without_proof,
    fetched_about,
    is_timestamping_certificate,
    name_of,
    token_time,
)
from esign.engine.verify_changes import ChangesAfterSigning, appended_bytes_of
from esign.engine.verify_dss import (
    Dss,
    authentic_dss,
    dss_of,
    embedded_revocation_data,
    names_revocation_source,
    pades_level,
)
from esign.engine.verify_report import (
    BYTE_RANGE_INVALID,
    CERTIFICATE_EXPIRED,
    CERTIFICATE_NOT_FOR_SIGNING,
    DOCUMENT_TIMESTAMP_COPIED,
    DOCUMENT_TIMESTAMP_NOT_INTACT,
    DOCUMENT_TIMESTAMP_NOT_TRUSTED,
    NOT_INTACT,
    NOT_TRUSTED,
    RENEWAL_NEEDED,
    REVOCATION_NOT_CHECKED,
    REVOKED,
    SIGNATURE_VALUE_INVALID,
    TIMESTAMP_NOT_INTACT,
    TIMESTAMP_NOT_TRUSTED,
    UNREADABLE_SIGNATURE,
    DocumentTimestampReport,
    Finding,
    SignatureReport,
)

logger = logging.getLogger(__name__)

# A document signature's certificate is for signing (either usage will do); one for time
# stamping only is refused besides (`verify_certificates.is_timestamping_certificate`).
SIGNER_KEY_USAGE = KeyUsageConstraints(
    key_usage={"digital_signature", "non_repudiation"}, match_all_key_usages=False
)


class Checker(ChangesAfterSigning):
    """The checks of one file: its validation data, its revisions, its roots."""

    def __init__(
        self,
        reader: PdfFileReader,
        pdf: bytes,
        roots: list[asn1_x509.Certificate],
        now: datetime | None,
        tsa_roots: list[asn1_x509.Certificate] | None = None,
        online: FetchPolicy | None = None,
    ) -> None:
        self.reader = reader
        self.online = online  # fetch a signer's missing revocation data under this policy
        self.roots = roots
        self.tsa_roots = roots if tsa_roots is None else tsa_roots
        self.now = now
        self.dss = authentic_dss(dss_of(reader), reader, [*roots, *self.tsa_roots])
        self.appended_bytes = appended_bytes_of(pdf, reader)
        self.revisions = Revisions(reader)
        # (field name, signed revision) of every signature and document timestamp: those signed
        # after a signature are no change of it (seal_verify sets them)
        self.signed_fields: list[tuple[str, int]] = []
        # how many of the file's timestamps (document and signature timestamps) stamp each
        # digest: a document timestamp that does not hold and stamps what another one does is a
        # copy of it (seal_verify sets them)
        self.timestamp_imprints: dict[bytes, int] = {}

    def context(
        self,
        embedded: EmbeddedPdfSignature | None = None,
        moment: datetime | None = None,
        *,
        tsa: bool = False,
        fetchers: Fetchers | None = None,
    ) -> ValidationContext:
        """Trust in the signers' roots (the TSAs' with ``tsa``), with the file's own validation
        data (its DSS and the signature's revocation-info attribute), nothing fetched, at
        ``moment``. Revocation is soft-fail: a certificate without revocation data in the file
        is not refused for that (a PAdES-B-B seal carries none), one the data revokes is.
        Revocation data issued after ``moment`` counts: a CRL of today that says a certificate
        was revoked last year answers for last year. With ``fetchers`` (the opt-in online
        check) what the file lacks is fetched with them."""
        crls, ocsps = list(self.dss.crls), list(self.dss.ocsps)
        if embedded is not None:
            more_crls, more_ocsps = embedded_revocation_data(embedded)
            crls += more_crls
            ocsps += more_ocsps
        # One context per role, time and revocation data, shared by the signatures that have
        # them alike (issue 47, item 9): building one parses every CRL and OCSP response of the
        # file, and it remembers the paths it validated. Online fetching gets its own.
        key = (tsa, moment or self.now, tuple(crls), tuple(ocsps))
        contexts = self.__dict__.setdefault("_contexts", {})
        if fetchers is None and key in contexts:
            return contexts[key]
        context = ValidationContext(
            trust_roots=self.tsa_roots if tsa else self.roots,
            other_certs=list(self.dss.certificates),
            crls=crls,
            ocsps=ocsps,
            allow_fetching=fetchers is not None,
            fetchers=fetchers,
            revocation_mode="soft-fail",
            retroactive_revinfo=True,
            moment=moment or self.now,
        )
        if fetchers is None:
            contexts[key] = context
        return context

    def _online_fetchers(self, embedded: EmbeddedPdfSignature) -> Fetchers | None:
        """Fetchers for the signer's revocation data when the online check is on and the file
        carries none about its certificate; None otherwise (nothing is fetched)."""
        if self.online is None or self._revocation_data_about(embedded):
            return None
        return guarded_revocation_fetchers(self.online)

    def _revocation_data_about(self, embedded: EmbeddedPdfSignature) -> bool:
        """Whether the file holds revocation data about the signer's certificate (its DSS or
        the signature's revocation-info attribute), or the certificate names no source of it
        (nothing could be checked then, nor was anything to be)."""
        certificate = embedded.signer_cert
        if not names_revocation_source(certificate):
            return True
        crls, ocsps = embedded_revocation_data(embedded)
        about = Dss((), (*self.dss.crls, *crls), (*self.dss.ocsps, *ocsps))
        return certificate.serial_number in about.ocsp_serials or (
            certificate.issuer.dump() in about.crl_issuers
        )

    def signature(
        self,
        name: str,
        embedded: EmbeddedPdfSignature | None,
        read_error: str,
        latest_timestamp_revision: int,
        proven_at: datetime | None = None,
    ) -> SignatureReport:
        """The report of one signature. ``proven_at`` is the time the earliest trusted document
        timestamp after it proves the signature and its validation data existed at (AdES
        long-term validation): its revocation data is judged at that time, not at ``now``,
        when it may long have been superseded. Without it, trust is decided at ``now``, or at
        the time of the signature's own trusted timestamp."""
        if embedded is None:
            return _unreadable(name, "", read_error)
        signer = ""
        trust_error = ""
        moment = proven_at or self.now
        online = self._online_fetchers(embedded)
        try:
            signer = name_of(embedded.signer_cert)
            status = validate_pdf_signature(
                embedded,
                self.context(embedded, moment, fetchers=online),
                self.context(embedded, moment, tsa=True),
                key_usage_settings=SIGNER_KEY_USAGE,
                skip_diff=True,  # changes_after analyses the later revisions
            )
        except MemoryError:
            raise
        except Exception as error:  # noqa: BLE001 - hostile input: report, never crash
            logger.info("verify: signature %s not checkable (%s)", name, type(error).__name__)
            # deciding trust failed (pyHanko's revocation checks fail on data they do not
            # handle): whether the signature is intact is still known, and said
            bare = self._integrity_only(embedded, moment)
            if bare is None:
                return _unreadable(
                    name, signer, f"The signature could not be checked ({type(error).__name__})."
                )
            status, trust_error = bare, type(error).__name__
        findings: list[Finding] = []
        # esign.engine.signature_structure: the byte range, DER order, other tools' CMS shapes;
        # what follows the CMS object in /Contents is padding, a notice
        structure = check_structure(embedded)
        intact = bool(status.intact and status.valid and structure.broken is None)
        if structure.broken is not None and structure.broken.code == BYTE_RANGE_INVALID:
            findings.append(structure.broken)  # DSS: a format failure, before any digest
        elif not status.intact:
            findings.append(Finding(NOT_INTACT, "The document was changed after it was signed."))
        elif not status.valid:
            findings.append(
                Finding(
                    SIGNATURE_VALUE_INVALID,
                    "The signature value does not match the signer's certificate.",
                )
            )
        elif structure.broken is not None:
            findings.append(structure.broken)
        findings += structure.notices
        timestamp = status.timestamp_validity
        timestamp_ok = bool(timestamp is not None and timestamp.intact and timestamp.valid)
        timestamp_trusted = bool(
            timestamp_ok
            and timestamp is not None
            and timestamp.trusted
            and is_timestamping_certificate(timestamp.signing_cert)
        )
        if intact and timestamp is not None and not timestamp_ok:
            findings.append(
                Finding(TIMESTAMP_NOT_INTACT, "The signature's timestamp is not intact.")
            )
        elif intact and timestamp is not None and not timestamp_trusted:
            findings.append(
                Finding(
                    TIMESTAMP_NOT_TRUSTED,
                    f"The signature's timestamp is by an authority that is not trusted "
                    f"({name_of(timestamp.signing_cert)}): its time "
                    f"({timestamp.timestamp:%Y-%m-%d %H:%M:%S} UTC) is claimed, not proven.",
                )
            )
        if intact and not any(f.code == TIMESTAMP_NOT_INTACT for f in findings):
            findings += structure.timestamps  # each token on its own: pyHanko stops at one
        # A certificate for time stamping only (a TSA's) is not one for signing documents,
        # whatever root it chains to.
        for_signing = not is_timestamping_certificate(embedded.signer_cert)
        trusted, revoked = bool(status.trusted and for_signing), bool(status.revoked)
        trusted_at = proven_at if trusted else None
        if intact and not trusted and for_signing and timestamp_trusted and timestamp is not None:
            # Not trusted at the time proven later (expired, or revoked since): the timestamp
            # proves the signature existed at its time, so trust is decided at that time.
            at_time = validate_pdf_signature(
                embedded,
                self.context(embedded, timestamp.timestamp),
                self.context(embedded, timestamp.timestamp, tsa=True),
                key_usage_settings=SIGNER_KEY_USAGE,
                skip_diff=True,
            )
            trusted, revoked = bool(at_time.trusted), bool(at_time.revoked)
            trusted_at = timestamp.timestamp
        trusted = bool(intact and trusted and not revoked)
        checked_online = online is not None and fetched_about(online, embedded.signer_cert)
        revocation_checked = checked_online or self._revocation_data_about(embedded)
        if trusted and not revocation_checked:
            findings.append(
                Finding(
                    REVOCATION_NOT_CHECKED,
                    "Whether the signer's certificate was revoked was not checked: the file "
                    "carries no revocation data for it, and none "
                    + ("could be fetched." if online is not None else "is fetched."),
                )
            )
        if intact and revoked:
            source = "fetched online" if checked_online else "in the file"
            findings.append(
                Finding(
                    REVOKED,
                    f"The signer's certificate was revoked (by revocation data {source}).",
                )
            )
        elif intact and not for_signing:
            findings.append(
                Finding(
                    CERTIFICATE_NOT_FOR_SIGNING,
                    "The signer's certificate is a timestamp authority's, not one for signing "
                    "documents.",
                )
            )
        elif intact and not trusted and expired_without_proof(status):
            expires = embedded.signer_cert["tbs_certificate"]["validity"]["not_after"].native
            findings.append(
                Finding(
                    CERTIFICATE_EXPIRED,
                    f"The signer's certificate expired on {expires:%Y-%m-%d}, and nothing in the "
                    "file proves the signature was made before then (a trusted timestamp).",
                )
            )
        elif intact and not trusted and trust_error:
            findings.append(
                Finding(
                    NOT_TRUSTED,
                    "Whether the signer's certificate chains to a trusted root could not be "
                    f"decided ({trust_error} in its validation data).",
                )
            )
        elif intact and not trusted:
            findings.append(
                Finding(NOT_TRUSTED, "The signer's certificate does not chain to a trusted root.")
            )
        changes = self.changes_after(embedded, status) if intact else []
        findings += changes
        whole = intact and not changes
        level = pades_level(
            embedded,
            intact,
            timestamp_trusted,
            self.dss,
            latest_timestamp_revision,
            timestamp.signing_cert if timestamp is not None else None,
        )
        return SignatureReport(
            field_name=name,
            signer=signer,
            signed_at=status.signer_reported_dt,
            intact=intact,
            trusted=trusted,
            covers_whole_document=whole,
            level=level,
            timestamp=timestamp.timestamp if timestamp is not None else None,
            timestamp_authority=name_of(timestamp.signing_cert) if timestamp is not None else "",
            timestamp_trusted=timestamp_trusted,
            findings=tuple(findings),
            revoked=bool(intact and revoked),
            trusted_at=trusted_at if trusted else None,
            certificate_sha256=embedded.signer_cert.sha256.hex(),
            signed_revision=embedded.signed_revision,
            revocation_checked=revocation_checked,
            revocation_checked_online=checked_online,
            proven=bool(timestamp_trusted or proven_at is not None),
        )

    def _integrity_only(
        self, embedded: EmbeddedPdfSignature, moment: datetime | None
    ) -> PdfSignatureStatus | None:
        """The signature checked without trust roots or validation data: its digest and
        value only (trusted never). None when even that fails."""
        bare = ValidationContext(
            trust_roots=[], allow_fetching=False, revocation_mode="soft-fail", moment=moment
        )
        try:
            return validate_pdf_signature(
                embedded, bare, bare, key_usage_settings=SIGNER_KEY_USAGE, skip_diff=True
            )
        except MemoryError:
            raise
        except Exception:  # noqa: BLE001 - unreadable indeed
            return None

    def document_timestamp(
        self,
        name: str,
        embedded: EmbeddedPdfSignature,
        regular: list[tuple[str, EmbeddedPdfSignature | None, str]],
        proven_at: datetime | None = None,
    ) -> DocumentTimestampReport:
        """The report of one document timestamp. ``proven_at`` is the time the next trusted
        document timestamp proves this one and the validation data before it existed at: its
        authority is judged at that time. The last one (``proven_at`` None) is judged at its
        own time, with the validation data the file had then, and must still be within its
        authority's certificate at ``now``; past it, it is trusted but due for renewal (a new
        document timestamp over the file)."""
        covers = tuple(
            n
            for n, e, _ in regular
            if e is not None and e.signed_revision < embedded.signed_revision
        )
        try:
            authority = name_of(embedded.signer_cert)
            moment = proven_at or token_time(embedded)
            status = validate_pdf_timestamp(
                embedded,
                self.context(embedded, moment, tsa=True),
                skip_diff=True,  # changes_after analyses the later revisions
            )
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
        structure = check_structure(embedded)  # esign.engine.signature_structure
        intact = bool(status.intact and status.valid and structure.broken is None)
        trusted = bool(
            intact
            and status.trusted
            and not status.revoked
            and is_timestamping_certificate(embedded.signer_cert)
        )
        findings: list[Finding] = []
        imprint = imprint_of(embedded.signed_data)
        if not intact and imprint is not None and self.timestamp_imprints.get(imprint, 0) > 1:
            findings.append(
                Finding(
                    DOCUMENT_TIMESTAMP_COPIED,
                    f"A document timestamp by {authority} is a copy of another timestamp of "
                    "the file: it stamps what that one stamps, not its own revision, so it "
                    "proves nothing (and changes nothing that was signed before it).",
                )
            )
        elif not intact:
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
        elif proven_at is None and self.now is not None:
            expires = embedded.signer_cert["tbs_certificate"]["validity"]["not_after"].native
            if expires <= self.now:
                findings.append(
                    Finding(
                        RENEWAL_NEEDED,
                        f"The certificate of the last document timestamp's authority "
                        f"({authority}) expired on {expires:%Y-%m-%d}: what it proves still "
                        "holds, but a new document timestamp should be added to keep it so.",
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
            signed_revision=embedded.signed_revision,
        )


def _unreadable(name: str, signer: str, why: str) -> SignatureReport:
    """The report of a signature that could not be read or checked: nothing about it holds."""
    return SignatureReport(
        name,
        signer,
        None,
        False,
        False,
        False,
        None,
        None,
        findings=(Finding(UNREADABLE_SIGNATURE, why),),
    )
