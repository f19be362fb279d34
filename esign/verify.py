"""Verifying a PDF someone holds: its signatures (esign.engine.seal_verify) and whether it is,
byte for byte, a document or audit trail this service sealed.

Used by the public page /verify and by ``POST /api/v1/verify``. Nothing uploaded is kept: the
file is read into memory (``in_memory_upload_handlers``: never a temporary file), checked, and
dropped with the request; only its SHA-256 is compared with the sealed files' hashes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler, MemoryFileUploadHandler
from django.http import HttpRequest

from core.errors import RequestTooLarge, ValidationFailed
from core.graphql.scalars import iso_ms
from esign.engine.seal_verify import PdfNotVerifiable, PdfVerification, verify_pdf
from esign.models import Packet, PacketDocument
from esign.sealing import trust_roots

# Multipart framing and the CSRF token around the file: allowed beyond VERIFY_MAX_BYTES.
FRAMING_ALLOWANCE = 64 * 1024


class _InMemoryUpload(MemoryFileUploadHandler):
    """Django's in-memory upload handler, whatever the size: the caller has already refused a
    body over VERIFY_MAX_BYTES, so a file never goes to a temporary file on disk."""

    def handle_raw_input(self, *args: Any, **kwargs: Any) -> None:
        super().handle_raw_input(*args, **kwargs)
        self.activated = True


def in_memory_upload_handlers(request: HttpRequest) -> list[FileUploadHandler]:
    return [_InMemoryUpload(request)]


def check_declared_size(request: HttpRequest) -> None:
    """Refuse a body that says it is too large before any of it is read."""
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > settings.VERIFY_MAX_BYTES + FRAMING_ALLOWANCE:
        raise RequestTooLarge(too_large_message())


def too_large_message() -> str:
    return f"The file is larger than the limit of {limit_text()}."


def limit_text() -> str:
    limit = settings.VERIFY_MAX_BYTES
    if limit >= 1_048_576:
        return f"{limit / 1_048_576:g} MB"
    return f"{limit / 1024:g} KB" if limit >= 1024 else f"{limit} bytes"


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
    it is not a readable PDF, RequestTooLarge over VERIFY_MAX_BYTES."""
    if len(data) > settings.VERIFY_MAX_BYTES:
        raise RequestTooLarge(too_large_message())
    if not data:
        raise ValidationFailed.single("file", "Required")
    try:
        report = verify_pdf(data, trust_roots=trust_roots())
    except PdfNotVerifiable as error:
        raise ValidationFailed.from_problems(error.problems) from None
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
