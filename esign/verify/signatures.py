"""Verifying a PDF someone holds: its signatures (esign.engine.seal_verify) and whether it is,
byte for byte, a document or audit trail this service sealed.

Used by the public page /verify and by ``POST /api/v1/verify``. Nothing uploaded is kept: the
file is read into memory (``in_memory_upload_handlers``: never a temporary file), checked, and
dropped with the request; only its SHA-256 is compared with the sealed files' hashes.

Anybody's file costs the web process only its bytes: the structural limits are checked on the
raw bytes (esign.engine.verify_limits.check_pdf_limits), and the parse and the cryptography run in
a verify worker process with a memory limit and a deadline (esign.engine.verify_pool). Past any
limit the answer is a 422 ValidationError on ``file``; every worker busy is a 503. One client
address may have only VERIFY_MAX_PER_ADDRESS verifications under way at once (esign.verify.slots):
more are a 429, so one visitor never holds every worker.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler
from django.http import HttpRequest
from django.utils import timezone

from core import uploads
from core.engine.fetch import FetchPolicy
from core.errors import RequestTooLarge, ServiceBusy, ValidationFailed
from core.graphql.scalars import iso_ms
from core.pools import SettingsPool
from esign.engine.errors import SealKeyUnavailable
from esign.engine.seal_credentials import SoftwareKey, load_credentials
from esign.engine.seal_verify import MAX_SIGNATURES, PdfNotVerifiable
from esign.engine.verify_limits import PdfTooComplex, VerifyLimits, check_pdf_limits
from esign.engine.verify_pool import VerifyBusy, VerifyCrashed, VerifyJob, VerifyPool
from esign.engine.verify_report import NOT_SIGNED, VALID, PdfVerification
from esign.models import Packet, PacketDocument, SealedFileVersion, Signer
from esign.packets.signature_levels import signers_wire
from esign.sealing.config import seal_key, signer_trust_roots, tsa_trust_roots
from esign.verify.slots import verify_slot

logger = logging.getLogger(__name__)

# Multipart framing and the CSRF token around the file: allowed beyond VERIFY_MAX_BYTES.
FRAMING_ALLOWANCE = 64 * 1024
# A verify worker is replaced after this many files, or when it holds more than this after one
# (Python keeps what a large file made it allocate).
WORKER_MAX_JOBS = 100
WORKER_RECYCLE_BYTES = 300 * 1_048_576


class VerificationRefused(ValidationFailed):
    """The file is beyond what one verification may spend: valid input, so 422, not 400."""

    status = 422


def in_memory_upload_handlers(request: HttpRequest) -> list[FileUploadHandler]:
    """Never a temporary file: check_declared_size has already refused a larger body."""
    return uploads.in_memory_upload_handlers(request)


def check_declared_size(request: HttpRequest) -> None:
    """Refuse a body that says it is too large before any of it is read."""
    uploads.check_declared_size(
        request, limit=settings.VERIFY_MAX_BYTES + FRAMING_ALLOWANCE, message=too_large_message()
    )


def too_large_message() -> str:
    return f"The file is larger than the limit of {limit_text()}."


def limit_text() -> str:
    return uploads.size_text(settings.VERIFY_MAX_BYTES)


# The verdicts of ``POST /api/v1/verify`` (``verdict``): the engine's, and VALID_DEVELOPMENT for a
# file this installation sealed with its development key (trusted here, nowhere else).
VALID_DEVELOPMENT = "valid_development"
DEVELOPMENT_SEAL = "development_seal"
UNCHECKED_SIGNATURES = "unchecked_signatures"

# What a file's SHA-256 says it is (``knownAs``).
SEALED_DOCUMENT = "sealed_document"
SEALED_AUDIT_TRAIL = "sealed_audit_trail"
DOCUMENT_BEFORE_SEAL = "document_before_seal"
DOCUMENT_BEFORE_SIGNING = "document_before_signing"


@dataclass(frozen=True)
class VerifiedSigner:
    name: str
    signed_at: datetime | None
    source: str  # "audit_trail" (the packet's signers) or "signature" (a certificate's name)
    verified: bool  # from this service's records, or a trusted signature's certificate
    # ``signed_at`` is proven: this service's records, or a trusted TSA's timestamp (without
    # one it is the signer's claim)
    time_proven: bool = True
    # The signer's signatureLevel and the certificates of their own signatures (issue 51:
    # esign.sealing.signer_signatures), from this service's records: [{subject, issuer, serial,
    # document}].
    level: str = "simple"
    certificates: tuple[dict[str, str], ...] = ()


@dataclass(frozen=True)
class Verification:
    report: PdfVerification
    sha256: str
    sealed_by_us: bool
    sealed_kind: str  # "document", "audit trail" or "" when not ours
    known_as: str = ""  # SEALED_DOCUMENT, ..., DOCUMENT_BEFORE_SIGNING, or ""
    development: frozenset[str] = frozenset()  # field names sealed with the development key
    signers: tuple[VerifiedSigner, ...] = ()
    verified_at: datetime | None = None  # the time trust was decided at (verification_time)

    @property
    def verdict(self) -> str:
        verdict = self.report.verdict
        if verdict == VALID and self.development:
            return VALID_DEVELOPMENT
        return verdict

    @property
    def valid(self) -> bool:
        """Every signature intact, trusted and covering the whole document, every document
        timestamp intact and trusted, and at least one signature."""
        return self.verdict in (VALID, VALID_DEVELOPMENT)

    @property
    def problems(self) -> list[tuple[str, str, str]]:
        """(code, message, field name) of everything wrong, for the API and the page."""
        found = [(f.code, f.message, name) for name, f in self.report.findings]
        if self.report.verdict == NOT_SIGNED:
            found.insert(0, (NOT_SIGNED, "The file has no signature.", ""))
        for name in sorted(self.development):
            found.append(
                (
                    DEVELOPMENT_SEAL,
                    "Sealed with this installation's development key: trusted here only, and "
                    "nowhere else.",
                    name,
                )
            )
        if self.report.unchecked:
            found.append(
                (
                    UNCHECKED_SIGNATURES,
                    f"{self.report.unchecked} more signatures were not checked.",
                    "",
                )
            )
        return found


def pdf_verify(*, data: bytes, client: str) -> Verification:
    """Check ``data`` (the bytes of an uploaded file) for ``client`` (its address). Raises
    ValidationFailed on ``file`` when it is not a readable PDF, VerificationRefused (422) when it
    is over a structural limit or its verification over the worker's memory or time,
    RequestTooLarge over VERIFY_MAX_BYTES, RateLimited when ``client`` already has as many
    verifications under way as it may (esign.verify.slots), ServiceBusy when no verify worker
    became free."""
    if len(data) > settings.VERIFY_MAX_BYTES:
        raise RequestTooLarge(too_large_message())
    if not data:
        raise ValidationFailed.single("file", "Required")
    at = verification_time()
    with verify_slot(client):
        report = _report(data, at)
    return replace(_verification(data, report), verified_at=at)


def _report(data: bytes, at: datetime) -> PdfVerification:
    """The verify worker's report on ``data``, once its raw bytes pass the structural limits."""
    try:
        check_pdf_limits(data, verify_limits())
        job = VerifyJob(
            pdf=data,
            trust_roots=tuple(c.dump() for c in signer_trust_roots()),
            tsa_roots=tuple(c.dump() for c in tsa_trust_roots()),
            max_signatures=MAX_SIGNATURES,
            now=at,
            online_revocation=online_revocation_policy(),
        )
        report = _pool.run(job)
    except PdfTooComplex as error:
        detail = f": {error.log_detail}" if error.log_detail else ""
        level = logging.ERROR if isinstance(error, VerifyCrashed) else logging.INFO
        logger.log(level, "verify refused (%s)%s", error.code, detail)
        raise VerificationRefused.from_problems(error.problems) from None
    except PdfNotVerifiable as error:
        raise ValidationFailed.from_problems(error.problems) from None
    except VerifyBusy as error:
        logger.warning("verify busy: %s", error.log_detail)
        raise ServiceBusy(str(error), retry_after_seconds=error.retry_after_seconds or 5) from None
    return report


def _verification(data: bytes, report: PdfVerification) -> Verification:
    """The worker's ``report`` with what this service knows of the file (by its SHA-256)."""
    sha = hashlib.sha256(data).hexdigest()
    known_as, packet = _known_file(sha)
    kind = {SEALED_DOCUMENT: "document", SEALED_AUDIT_TRAIL: "audit trail"}.get(known_as, "")
    development = _development_signatures(report)
    return Verification(
        report=report,
        sha256=sha,
        sealed_by_us=bool(kind),
        sealed_kind=kind,
        known_as=known_as,
        development=development,
        signers=_signers(report, packet if known_as != DOCUMENT_BEFORE_SIGNING else None),
    )


# An OCSP response or a CRL to read in the online revocation check: a CA's CRL can be large.
REVOCATION_MAX_BYTES = 4 * 1_048_576


def online_revocation_policy() -> FetchPolicy | None:
    """How the verify worker may fetch a signer's missing revocation data
    (VERIFY_ONLINE_REVOCATION), or None: nothing is fetched. A certificate's OCSP and CRL
    addresses are named by whoever made the file, so they pass the same address guard as any
    URL in request data (FETCH_ALLOW_HOSTS / FETCH_ALLOW_NETWORKS for private ones)."""
    if not settings.VERIFY_ONLINE_REVOCATION:
        return None
    return FetchPolicy(
        deadline_seconds=settings.VERIFY_REVOCATION_FETCH_SECONDS,
        max_bytes=REVOCATION_MAX_BYTES,
        max_redirects=0,
        allow_hosts=frozenset(settings.FETCH_ALLOW_HOSTS),
        allow_networks=tuple(settings.FETCH_ALLOW_NETWORKS),
        user_agent="docautomation-verify/1",
    )


def verification_time() -> datetime:
    """The time trust is decided at: the current time (tests move it here, not globally)."""
    return timezone.now()


def _known_file(sha: str) -> tuple[str, Packet | None]:
    """What this service knows the file as, by its SHA-256, and its packet. Only the sealed
    hashes (and renewed versions') are indexed; the others are looked up only when no sealed
    file matched."""
    sealed = Packet.SealStatus.SEALED
    document = (
        PacketDocument.objects.filter(sealed_sha256=sha, packet__seal_status=sealed)
        .select_related("packet")
        .first()
    )
    if document is not None:
        return SEALED_DOCUMENT, document.packet
    packet = Packet.objects.filter(merged_sha256=sha, seal_status=sealed).first()
    if packet is not None:
        return SEALED_DOCUMENT, packet
    packet = Packet.objects.filter(audit_trail_sha256=sha, seal_status=sealed).first()
    if packet is not None:
        return SEALED_AUDIT_TRAIL, packet
    # A version an archive timestamp renewal stored (esign.sealing.renewal): the file as sealed,
    # grown by a new timestamp, is still the same sealed document or audit trail.
    version = (
        SealedFileVersion.objects.filter(sha256=sha, packet__seal_status=sealed)
        .select_related("packet")
        .first()
    )
    if version is not None:
        audit_trail = version.slot == SealedFileVersion.AUDIT_TRAIL
        return (SEALED_AUDIT_TRAIL if audit_trail else SEALED_DOCUMENT), version.packet
    document = PacketDocument.objects.filter(current_sha256=sha).select_related("packet").first()
    if document is not None and (
        document.packet.seal_status == sealed or document.current_sha256 != document.prepared_sha256
    ):
        return DOCUMENT_BEFORE_SEAL, document.packet
    document = PacketDocument.objects.filter(prepared_sha256=sha).select_related("packet").first()
    if document is not None:
        return DOCUMENT_BEFORE_SIGNING, document.packet
    return "", None


def _development_signatures(report: PdfVerification) -> frozenset[str]:
    """The trusted signatures made with this installation's development seal key (only the
    development key is a software key here)."""
    key = seal_key()
    if not isinstance(key, SoftwareKey):
        return frozenset()
    try:
        certificate = load_credentials(key).certificate.sha256.hex()
    except SealKeyUnavailable:
        return frozenset()
    return frozenset(
        s.field_name for s in report.signatures if s.trusted and s.certificate_sha256 == certificate
    )


def _signers(report: PdfVerification, packet: Packet | None) -> tuple[VerifiedSigner, ...]:
    """Who signed: a packet's signers who signed, from its audit trail, when the file is one of
    its documents; otherwise the names of the intact signatures' certificates."""
    if packet is not None:
        levels = {s["aliasId"]: s for s in signers_wire(packet)}
        return tuple(
            VerifiedSigner(
                signer.name,
                signer.completed_at,
                "audit_trail",
                verified=True,
                level=levels[signer.alias_id]["signatureLevel"],
                certificates=tuple(levels[signer.alias_id]["certificates"]),
            )
            for signer in packet.signers.filter(status=Signer.Status.COMPLETED).order_by(
                "completed_at", "routing_order", "id"
            )
        )
    return tuple(
        VerifiedSigner(
            s.signer or "(unknown)",
            s.timestamp if s.timestamp_trusted else s.signed_at,
            "signature",
            verified=s.trusted,
            time_proven=s.timestamp_trusted,
        )
        for s in report.signatures
        if s.intact
    )


def verify_limits() -> VerifyLimits:
    return VerifyLimits(
        max_signature_contents_bytes=settings.VERIFY_MAX_SIGNATURE_CONTENTS_BYTES,
        max_revisions=settings.VERIFY_MAX_REVISIONS,
        max_objects=settings.VERIFY_MAX_OBJECTS,
        max_signatures=settings.VERIFY_MAX_SIGNATURES,
        max_total_signature_contents_bytes=settings.VERIFY_MAX_TOTAL_SIGNATURE_CONTENTS_BYTES,
        max_object_streams=settings.VERIFY_MAX_OBJECT_STREAMS,
        max_object_stream_bytes=settings.VERIFY_MAX_OBJECT_STREAM_BYTES,
    )


_pool = SettingsPool(
    VerifyPool, "VERIFY", max_jobs=WORKER_MAX_JOBS, recycle_rss_bytes=WORKER_RECYCLE_BYTES
)


def verify_pool() -> VerifyPool:
    """This process's verify pool (VERIFY_WORKERS, VERIFY_WORKER_MEMORY_MB: core.pools)."""
    return _pool.get()


def verification_report_file(verification: Verification) -> str:
    """The validation report to keep, as the page offers it: the API's JSON (with each
    signature's and timestamp's EN 319 102-1 indication), base64 for a data: link."""
    wire = verification_wire(verification)
    return base64.b64encode(json.dumps(wire, indent=2).encode()).decode()


def verification_wire(verification: Verification) -> dict[str, Any]:
    """The JSON of ``POST /api/v1/verify``: the fields of before (``signatures``,
    ``sealedByUs``) first, then the verdict and what it rests on."""
    development = verification.development
    return {
        "signatures": [
            {
                "fieldName": s.field_name,
                "signer": s.signer,
                "signedAt": iso_ms(s.signed_at),
                "intact": s.intact,
                "trusted": s.trusted,
                "coversWholeDocument": s.covers_whole_document,
                "level": s.level,
                "timestamp": iso_ms(s.timestamp),
                "timestampAuthority": s.timestamp_authority or None,
                "timestampTrusted": s.timestamp_trusted,
                "revoked": s.revoked,
                "revocationChecked": s.revocation_checked,
                "revocationCheckedOnline": s.revocation_checked_online,
                "trustedAt": iso_ms(s.trusted_at),
                "development": s.field_name in development,
                "indication": s.indication[0],
                "subIndication": s.indication[1],
                "problems": [{"code": f.code, "message": f.message} for f in s.findings],
            }
            for s in verification.report.signatures
        ],
        "sealedByUs": verification.sealed_by_us,
        "verdict": verification.verdict,
        "problems": [
            {"code": code, "message": message, "fieldName": name or None}
            for code, message, name in verification.problems
        ],
        "documentTimestamps": [
            {
                "fieldName": t.field_name,
                "authority": t.authority,
                "at": iso_ms(t.at),
                "intact": t.intact,
                "trusted": t.trusted,
                "coversWholeDocument": t.covers_whole_document,
                "covers": list(t.covers),
                "indication": t.indication[0],
                "subIndication": t.indication[1],
                "problems": [{"code": f.code, "message": f.message} for f in t.findings],
            }
            for t in verification.report.document_timestamps
        ],
        "signers": [
            {
                "name": s.name,
                "signedAt": iso_ms(s.signed_at),
                "source": s.source,
                "verified": s.verified,
                "timeProven": s.time_proven,
                # What this service recorded of its own packets' signers (issue 51).
                **(
                    {"signatureLevel": s.level, "certificates": list(s.certificates)}
                    if s.source == "audit_trail"
                    else {}
                ),
            }
            for s in verification.signers
        ],
        "knownAs": verification.known_as or None,
        "sha256": verification.sha256,
    }
