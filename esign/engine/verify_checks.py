"""The checks of one signed file, signature by signature (esign.engine.seal_verify runs them):
trust in the caller's roots with the validation data the file carries (nothing is fetched), the
changes made after each signature, and the PAdES level its structure reaches.

Pure Python (no Django).
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from datetime import datetime

from asn1crypto import crl as asn1_crl
from asn1crypto import ocsp as asn1_ocsp
from asn1crypto import x509 as asn1_x509
from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.ades.report import AdESIndeterminate
from pyhanko.sign.diff_analysis import ModificationLevel
from pyhanko.sign.fields import MDPPerm
from pyhanko.sign.general import find_unique_cms_attribute
from pyhanko.sign.validation import (
    EmbeddedPdfSignature,
    validate_pdf_signature,
    validate_pdf_timestamp,
)
from pyhanko.sign.validation.dss import DocumentSecurityStore, NoDSSFoundError
from pyhanko.sign.validation.settings import KeyUsageConstraints
from pyhanko.sign.validation.status import PdfSignatureStatus, SignatureCoverageLevel
from pyhanko_certvalidator import ValidationContext
from pyhanko_certvalidator.fetchers import Fetchers

from core.engine.fetch import FetchPolicy
from esign.engine.pdf_signatures import file_certificates
from esign.engine.revocation import authentic_revocation_data, guarded_revocation_fetchers
from esign.engine.signature_changes import Revisions
from esign.engine.signature_structure import check_structure
from esign.engine.signature_timestamps import imprint_of
from esign.engine.verify_report import (
    ALLOWED_ANNOTATIONS,
    ALLOWED_FORM_FILLING,
    APPENDED_BYTES,
    BYTE_RANGE_INVALID,
    CERTIFICATE_EXPIRED,
    CERTIFICATE_NOT_FOR_SIGNING,
    CHANGED_ANNOTATIONS,
    CHANGED_CONTENT,
    CHANGED_FORM,
    CHANGED_METADATA,
    CHANGED_PAGES,
    CHANGES_UNKNOWN,
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

PADES_SUBFILTER = "/ETSI.CAdES.detached"

# A document signature's certificate is for signing (either usage will do); one for time
# stamping only is refused besides (`_is_timestamping_certificate`).
SIGNER_KEY_USAGE = KeyUsageConstraints(
    key_usage={"digital_signature", "non_repudiation"}, match_all_key_usages=False
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
class _Dss:
    certificates: tuple[asn1_x509.Certificate, ...]
    crls: tuple[bytes, ...]
    ocsps: tuple[bytes, ...]

    @property
    def certificate_hashes(self) -> frozenset[bytes]:
        return frozenset(c.sha256 for c in self.certificates)

    @functools.cached_property
    def crl_issuers(self) -> frozenset[bytes]:
        """The DER names of the issuers of the CRLs (unreadable ones left out)."""
        issuers = set()
        for data in self.crls:
            try:
                issuers.add(asn1_crl.CertificateList.load(data).issuer.dump())
            except ValueError:
                continue
        return frozenset(issuers)

    @functools.cached_property
    def ocsp_serials(self) -> frozenset[int]:
        """The serial numbers the OCSP responses answer for (unreadable ones left out)."""
        serials = set()
        for data in self.ocsps:
            try:
                basic = asn1_ocsp.OCSPResponse.load(data).basic_ocsp_response
                for response in basic["tbs_response_data"]["responses"]:
                    serials.add(response["cert_id"]["serial_number"].native)
            except (ValueError, KeyError, TypeError):
                continue
        return frozenset(serials)


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


def _authentic(dss: _Dss, reader: PdfFileReader, roots: list[asn1_x509.Certificate]) -> _Dss:
    """The store with only the revocation data that chains to the issuer of what it answers
    for (esign.engine.revocation): for trust and for B-LT coverage alike."""
    crls, ocsps = authentic_revocation_data(
        dss.crls, dss.ocsps, [*dss.certificates, *file_certificates(reader)], roots
    )
    return _Dss(dss.certificates, crls, ocsps)


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


class Checker:
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
        self.dss = _authentic(_dss(reader), reader, [*roots, *self.tsa_roots])
        self.appended_bytes = _appended_bytes(pdf, reader)
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
            more_crls, more_ocsps = _embedded_revocation_data(embedded)
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

    def changes_after(self, embedded: EmbeddedPdfSignature, status: object) -> list[Finding]:
        """What follows the revision of ``embedded`` besides long-term validation data and later
        signatures (esign.engine.signature_changes: pyHanko's analysis, ours where it gives up)."""
        coverage = getattr(status, "coverage", None)
        findings: list[Finding] = []
        modifications = None
        if coverage in (
            SignatureCoverageLevel.ENTIRE_REVISION,
            SignatureCoverageLevel.CONTIGUOUS_BLOCK_FROM_START,  # a linearized file's
        ):
            modifications = self.revisions.modifications(
                embedded,
                frozenset(n for n, r in self.signed_fields if r > embedded.signed_revision),
            )
        if coverage == SignatureCoverageLevel.ENTIRE_FILE:
            pass
        elif modifications is None or modifications.signed_through < 0:
            findings.append(
                Finding(
                    CHANGES_UNKNOWN,
                    "The signature does not cover its own revision: what it signed is unclear.",
                )
            )
        else:
            level = modifications.level
            allowed = self._allowed_by_certification(embedded, modifications, level)
            if allowed is not None:
                findings.append(allowed)
            elif level is None:
                findings.append(
                    Finding(
                        CHANGES_UNKNOWN,
                        "The file has later revisions that could not be analysed.",
                    )
                )
            elif modifications.pages:
                findings.append(
                    Finding(
                        CHANGED_PAGES,
                        "Pages were added, removed or replaced after it was signed.",
                    )
                )
            elif level in _CHANGE_OF_LEVEL:
                findings.append(Finding(*_CHANGE_OF_LEVEL[level]))
            if (
                allowed is None
                and modifications.docmdp_ok is False
                and level not in _CHANGE_OF_LEVEL
                and not modifications.pages
            ):
                findings.append(
                    Finding(
                        CHANGED_CONTENT,
                        "The document was changed after it was signed in a way its "
                        "certification does not permit.",
                    )
                )
            if self._info_changed_after(modifications.signed_through):
                findings.append(
                    Finding(
                        CHANGED_METADATA,
                        "The document's information (title, author, subject...) was changed "
                        "after it was signed.",
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

    def _revocation_data_about(self, embedded: EmbeddedPdfSignature) -> bool:
        """Whether the file holds revocation data about the signer's certificate (its DSS or
        the signature's revocation-info attribute), or the certificate names no source of it
        (nothing could be checked then, nor was anything to be)."""
        certificate = embedded.signer_cert
        if not _names_revocation_source(certificate):
            return True
        crls, ocsps = _embedded_revocation_data(embedded)
        about = _Dss((), (*self.dss.crls, *crls), (*self.dss.ocsps, *ocsps))
        return certificate.serial_number in about.ocsp_serials or (
            certificate.issuer.dump() in about.crl_issuers
        )

    def _allowed_by_certification(
        self, embedded: EmbeddedPdfSignature, status: object, level: object
    ) -> Finding | None:
        """The notice for changes after a signature that it allows: after an ordinary approval
        signature (no certification), form filling (and signing) and annotations, as DSS (a
        warning only) and PDF readers allow them; after a certification, what its permissions
        (DocMDP /P) allow: form filling under P=2 and P=3, annotations under P=3. None when
        there are none or they are not allowed. pyHanko classifies form filling; added
        annotations it cannot tell from any other change (0.38), so those are checked here
        (`_only_annotations_added`)."""
        try:
            permission = embedded.docmdp_level
        except Exception:  # noqa: BLE001 - an unreadable /Reference: nothing is shown allowed
            return None
        certified = permission is not None and getattr(embedded, "is_certification", True)
        if not certified:
            permission = MDPPerm.ANNOTATE  # an approval signature forbids neither
        docmdp_ok = getattr(status, "docmdp_ok", None) is not False
        if (
            level == ModificationLevel.FORM_FILLING
            and docmdp_ok
            and permission in (MDPPerm.FILL_FORMS, MDPPerm.ANNOTATE)
        ):
            return Finding(
                ALLOWED_FORM_FILLING,
                "Form fields were filled in or signatures added after it was certified, which "
                f"the certifier permitted (certification level {permission.value})."
                if certified
                else "Form fields were filled in after it was signed; the signed content is "
                "unchanged.",
            )
        if (
            permission == MDPPerm.ANNOTATE
            and level in (ModificationLevel.ANNOTATIONS, ModificationLevel.OTHER)
            and (
                # our analysis (where pyHanko's gave up) tells annotations from other changes
                (getattr(status, "own", False) and level == ModificationLevel.ANNOTATIONS)
                or _only_annotations_added(self.reader, embedded.signed_revision)
            )
        ):
            return Finding(
                ALLOWED_ANNOTATIONS,
                "Comments or other annotations were added after it was certified, which the "
                "certifier permitted (certification level 3)."
                if certified
                else "Comments or other annotations were added after it was signed; the signed "
                "content is unchanged.",
            )
        return None

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
            signer = _name_of(embedded.signer_cert)
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
            and _is_timestamping_certificate(timestamp.signing_cert)
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
                    f"({_name_of(timestamp.signing_cert)}): its time "
                    f"({timestamp.timestamp:%Y-%m-%d %H:%M:%S} UTC) is claimed, not proven.",
                )
            )
        if intact and not any(f.code == TIMESTAMP_NOT_INTACT for f in findings):
            findings += structure.timestamps  # each token on its own: pyHanko stops at one
        # A certificate for time stamping only (a TSA's) is not one for signing documents,
        # whatever root it chains to.
        for_signing = not _is_timestamping_certificate(embedded.signer_cert)
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
        checked_online = online is not None and _fetched_about(online, embedded.signer_cert)
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
        elif intact and not trusted and _expired_without_proof(status):
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
        level = _level(
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
            timestamp_authority=_name_of(timestamp.signing_cert) if timestamp is not None else "",
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
            authority = _name_of(embedded.signer_cert)
            moment = proven_at or _token_time(embedded)
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
            and _is_timestamping_certificate(embedded.signer_cert)
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


def _expired_without_proof(status: object) -> bool:
    """Whether pyHanko found the signer's chain but the certificate out of its validity at the
    time trust is decided, with nothing proving an earlier time (EN 319 102-1:
    OUT_OF_BOUNDS_NO_POE)."""
    return getattr(status, "trust_problem_indic", None) in _EXPIRED_INDICATIONS


_EXPIRED_INDICATIONS = frozenset(
    {
        AdESIndeterminate.OUT_OF_BOUNDS_NO_POE,
        AdESIndeterminate.OUT_OF_BOUNDS_NOT_REVOKED,
        AdESIndeterminate.EXPIRED,
    }
)


def _name_of(certificate: asn1_x509.Certificate) -> str:
    names = certificate.subject.native
    common = names.get("common_name") if isinstance(names, dict) else None
    if isinstance(common, list):
        common = common[0] if common else None
    return str(common or certificate.subject.human_friendly)


_ANNOTATION_ONLY_KEYS = frozenset({"/Annots"})


def _only_annotations_added(reader: PdfFileReader, signed_revision: int) -> bool:
    """Whether every revision after ``signed_revision`` only adds annotations: each object it
    writes is new and an annotation (not a form field's widget) or its appearance stream, or a
    page whose only change is more entries in /Annots (or its indirect /Annots array, grown)."""
    xrefs = reader.xrefs
    try:
        for revision in range(signed_revision + 1, xrefs.total_revisions):
            info = reader.trailer.raw_get("/Info", revision=revision)
            for ref in xrefs.explicit_refs_in_revision(revision):
                if isinstance(info, generic.IndirectObject) and ref == info.reference:
                    continue  # the document information: checked on its own (_info_changed_after)
                new = reader.get_object(ref, revision=revision)
                if isinstance(new, generic.StreamObject) and new.get("/Type") in (
                    "/XRef",
                    "/ObjStm",
                ):
                    continue  # the update's own cross-reference stream or object stream
                if xrefs.get_historical_ref(ref, revision - 1) is None:
                    if not _is_annotation_or_appearance(new):
                        return False
                    continue
                old = reader.get_object(ref, revision=revision - 1)
                if not _grows_annotations(old, new):
                    return False
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 - whatever cannot be read is not shown to be allowed
        return False
    return True


def _is_annotation_or_appearance(value: object) -> bool:
    if isinstance(value, generic.StreamObject):
        return value.get("/Subtype") == "/Form"  # an appearance stream (a form XObject)
    if not isinstance(value, generic.DictionaryObject):
        return False
    subtype = value.get("/Subtype")
    return (
        subtype is not None
        and subtype != "/Widget"
        and "/Rect" in value
        and value.get("/Type", "/Annot") == "/Annot"
        and "/FT" not in value
    )


def _grows_annotations(old: object, new: object) -> bool:
    """A page whose only change is a longer /Annots beginning with the old one, or an /Annots
    array grown the same way."""
    if isinstance(old, generic.ArrayObject) and isinstance(new, generic.ArrayObject):
        return _extends(old, new)
    if not (
        isinstance(old, generic.DictionaryObject) and isinstance(new, generic.DictionaryObject)
    ):
        return False
    if isinstance(old, generic.StreamObject) or old.get("/Type") != "/Page":
        return False
    keys = (set(old) | set(new)) - _ANNOTATION_ONLY_KEYS
    if any(old.raw_get(k) != new.raw_get(k) for k in keys if k in old and k in new):
        return False
    if set(old) - _ANNOTATION_ONLY_KEYS != set(new) - _ANNOTATION_ONLY_KEYS:
        return False
    old_annots = old.raw_get("/Annots") if "/Annots" in old else generic.ArrayObject()
    new_annots = new.raw_get("/Annots") if "/Annots" in new else generic.ArrayObject()
    if isinstance(old_annots, generic.IndirectObject) or isinstance(
        new_annots, generic.IndirectObject
    ):
        return old_annots == new_annots  # the array itself, if grown, is checked as an array
    return (
        isinstance(old_annots, generic.ArrayObject)
        and isinstance(new_annots, generic.ArrayObject)
        and _extends(old_annots, new_annots)
    )


def _extends(old: generic.ArrayObject, new: generic.ArrayObject) -> bool:
    return len(new) > len(old) and all(new.raw_get(i) == old.raw_get(i) for i in range(len(old)))


def _token_time(embedded: EmbeddedPdfSignature) -> datetime:
    """The time a timestamp token states (its TSTInfo's genTime), as its authority claims it."""
    tst_info = embedded.signed_data["encap_content_info"]["content"].parsed
    return tst_info["gen_time"].native


def _is_timestamping_certificate(certificate: asn1_x509.Certificate) -> bool:
    """RFC 3161 § 2.3: a TSA's certificate has id-kp-timeStamping as its only extended key
    usage, marked critical."""
    extension = next(
        (
            e
            for e in certificate["tbs_certificate"]["extensions"]
            if e["extn_id"].native == "extended_key_usage"
        ),
        None,
    )
    return bool(
        extension is not None
        and extension["critical"].native
        and extension["extn_value"].native == ["time_stamping"]
    )


def _names_revocation_source(certificate: asn1_x509.Certificate) -> bool:
    return bool(certificate.crl_distribution_points or certificate.ocsp_urls)


def _chain(
    certificate: asn1_x509.Certificate, known: list[asn1_x509.Certificate]
) -> list[asn1_x509.Certificate]:
    """``certificate`` and its issuers found among ``known``, up to a self-issued one."""
    by_subject = {c.subject.dump(): c for c in known}
    chain = [certificate]
    while chain[-1].issuer != chain[-1].subject and len(chain) < 10:
        issuer = by_subject.get(chain[-1].issuer.dump())
        if issuer is None or issuer in chain:
            break
        chain.append(issuer)
    return chain


def _is_covered(certificate: asn1_x509.Certificate, dss: _Dss) -> bool:
    """Whether the DSS holds the certificate and, when it names a source of revocation data,
    revocation data about it: a CRL of its issuer, or an OCSP response for its serial number."""
    if certificate.sha256 not in dss.certificate_hashes:
        return False
    if not _names_revocation_source(certificate):
        return True
    return certificate.serial_number in dss.ocsp_serials or (
        certificate.issuer.dump() in dss.crl_issuers
    )


def _level(
    embedded: EmbeddedPdfSignature,
    intact: bool,
    timestamped: bool,
    dss: _Dss,
    latest_timestamp_revision: int,
    timestamp_certificate: asn1_x509.Certificate | None = None,
) -> str | None:
    """The PAdES level: B-LT only when the DSS covers the signer's own chain (each certificate
    but the root, with revocation data for those that name a source) and the signature
    timestamp's; B-LTA when a trusted document timestamp follows as well."""
    if str(embedded.sig_object.get("/SubFilter")) != PADES_SUBFILTER or not intact:
        return None
    if not timestamped:
        return "PAdES-B-B"
    known = [*dss.certificates, *embedded.other_embedded_certs]
    chains = [_chain(embedded.signer_cert, known)]
    if timestamp_certificate is not None:
        chains.append(_chain(timestamp_certificate, known))
    for chain in chains:
        issued = [c for c in chain if c.issuer != c.subject]  # the root needs no coverage
        if not all(_is_covered(c, dss) for c in issued):
            return "PAdES-B-T"
    if latest_timestamp_revision > embedded.signed_revision:
        return "PAdES-B-LTA"
    return "PAdES-B-LT"


def _fetched_about(fetchers: Fetchers, certificate: asn1_x509.Certificate) -> bool:
    """Whether the online check got an OCSP response or a CRL about ``certificate``."""
    if list(fetchers.ocsp_fetcher.fetched_responses_for_cert(certificate)):
        return True
    try:
        return bool(list(fetchers.crl_fetcher.fetched_crls_for_cert(certificate)))
    except KeyError:  # pyHanko's CRL fetcher: no CRL was fetched for this certificate
        return False
