"""Verifying a PDF someone holds: its signatures (esign.engine.seal_verify) and whether it is,
byte for byte, a document or audit trail this service sealed.

Used by the public page /verify and by ``POST /api/v1/verify``. Nothing uploaded is kept: the
file is read into memory (``in_memory_upload_handlers``: never a temporary file), checked, and
dropped with the request; only its SHA-256 is compared with the sealed files' hashes.

Anybody's file costs the web process only its bytes: the structural limits are checked on the
raw bytes (esign.engine.seal_verify.check_pdf_limits), and the parse and the cryptography run in
a verify worker process with a memory limit and a deadline (esign.engine.verify_pool). Past any
limit the answer is a 422 ValidationError on ``file``; every worker busy is a 503.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler
from django.http import HttpRequest

from core import uploads
from core.engine.process_pool import PoolSettings
from core.errors import RequestTooLarge, ServiceBusy, ValidationFailed
from core.graphql.scalars import iso_ms
from esign.engine.seal_verify import (
    MAX_SIGNATURES,
    PdfNotVerifiable,
    PdfTooComplex,
    PdfVerification,
    VerifyLimits,
    check_pdf_limits,
)
from esign.engine.verify_pool import VerifyBusy, VerifyCrashed, VerifyJob, VerifyPool
from esign.models import Packet, PacketDocument
from esign.sealing import trust_roots

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


@dataclass(frozen=True)
class Verification:
    report: PdfVerification
    sha256: str
    sealed_by_us: bool
    sealed_kind: str  # "document", "audit trail" or "" when not ours

    @property
    def valid(self) -> bool:
        """Every signature intact, trusted and covering the whole document, and at least one."""
        signatures = self.report.signatures
        return bool(signatures) and all(
            s.intact and s.trusted and s.covers_whole_document for s in signatures
        )


def pdf_verify(*, data: bytes) -> Verification:
    """Check ``data`` (the bytes of an uploaded file). Raises ValidationFailed on ``file`` when
    it is not a readable PDF, VerificationRefused (422) when it is over a structural limit or
    its verification over the worker's memory or time, RequestTooLarge over VERIFY_MAX_BYTES,
    ServiceBusy when no verify worker became free."""
    if len(data) > settings.VERIFY_MAX_BYTES:
        raise RequestTooLarge(too_large_message())
    if not data:
        raise ValidationFailed.single("file", "Required")
    try:
        check_pdf_limits(data, verify_limits())
        job = VerifyJob(
            pdf=data,
            trust_roots=tuple(c.dump() for c in trust_roots()),
            max_signatures=MAX_SIGNATURES,
        )
        report = verify_pool().run(
            job,
            timeout=settings.VERIFY_TIMEOUT_SECONDS,
            queue_timeout=settings.VERIFY_QUEUE_TIMEOUT_SECONDS,
        )
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
    sha = hashlib.sha256(data).hexdigest()
    kind = ""
    if (
        PacketDocument.objects.filter(
            sealed_sha256=sha, packet__seal_status=Packet.SealStatus.SEALED
        ).exists()
        or Packet.objects.filter(merged_sha256=sha, seal_status=Packet.SealStatus.SEALED).exists()
    ):
        kind = "document"
    elif Packet.objects.filter(
        audit_trail_sha256=sha, seal_status=Packet.SealStatus.SEALED
    ).exists():
        kind = "audit trail"
    return Verification(report=report, sha256=sha, sealed_by_us=bool(kind), sealed_kind=kind)


def verify_limits() -> VerifyLimits:
    return VerifyLimits(
        max_signature_contents_bytes=settings.VERIFY_MAX_SIGNATURE_CONTENTS_BYTES,
        max_revisions=settings.VERIFY_MAX_REVISIONS,
        max_objects=settings.VERIFY_MAX_OBJECTS,
        max_signatures=settings.VERIFY_MAX_SIGNATURES,
    )


_pool_lock = threading.Lock()
_pool: tuple[tuple[object, ...], VerifyPool] | None = None


def verify_pool() -> VerifyPool:
    """This process's verify pool, made on first use (and again after a fork or a change of
    the worker settings, the old one being closed)."""
    global _pool
    pool_settings = PoolSettings(
        workers=settings.VERIFY_WORKERS,
        max_jobs=WORKER_MAX_JOBS,
        memory_limit_bytes=settings.VERIFY_WORKER_MEMORY_MB * 1_048_576,
        recycle_rss_bytes=WORKER_RECYCLE_BYTES,
    )
    key = (os.getpid(), pool_settings)
    with _pool_lock:
        if _pool is not None and _pool[0] == key:
            return _pool[1]
        previous = _pool
        _pool = (key, VerifyPool(pool_settings))
        current = _pool[1]
    if previous is not None and previous[0][0] == os.getpid():
        previous[1].close()
    return current


def verification_wire(verification: Verification) -> dict[str, Any]:
    """The JSON of ``POST /api/v1/verify``."""
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
            }
            for s in verification.report.signatures
        ],
        "sealedByUs": verification.sealed_by_us,
    }
