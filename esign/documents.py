"""A packet document's PDF as it stands."""

from __future__ import annotations

from core.blobs import blob_read
from esign.models import PacketDocument


def document_pdf(document: PacketDocument) -> bytes:
    """The document as it stands: prepared, with every signature given so far."""
    return blob_read(document.current_path, document.current_sha256)
