"""A packet document's PDF as it stands, and its pages' boxes."""

from __future__ import annotations

from django.core.cache import cache

from core.blobs import blob_read
from esign.engine.pages import PageBox, page_boxes
from esign.models import PacketDocument


def document_pdf(document: PacketDocument) -> bytes:
    """The document as it stands: prepared, with every signature given so far."""
    return blob_read(document.current_path, document.current_sha256)


def document_page_boxes(document: PacketDocument) -> list[PageBox]:
    """The boxes of the document's pages as it stands. Kept in the cache by the version's hash
    (a version never changes): the signing page is opened again and again, and reading a long
    document's pages each time is most of its cost."""
    key = f"esign-page-boxes:{document.current_sha256}"
    boxes = cache.get(key)
    if boxes is None:
        boxes = page_boxes(document_pdf(document))
        cache.set(key, boxes, timeout=24 * 3600)
    return boxes
