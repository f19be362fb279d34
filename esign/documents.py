"""A packet document's PDF as it stands or as a signer is given it, its file name, its pages'
boxes."""

from __future__ import annotations

from django.core.cache import cache

from core.blobs import blob_read
from core.engine.archive import safe_filename
from esign.engine.pages import PageBox, page_boxes
from esign.models import Packet, PacketDocument, SealedFileVersion


def document_pdf(document: PacketDocument) -> bytes:
    """The document as it stands: prepared, with every signature given so far."""
    return blob_read(document.current_path, document.current_sha256)


def document_as_given(document: PacketDocument, packet: Packet) -> bytes:
    """What a signer is given of the document: the sealed PDF once the packet is sealed, until
    then the document as it stands (with every signature so far)."""
    if document.sealed_sha256 and packet.seal_status == Packet.SealStatus.SEALED:
        return sealed_document_pdf(document)  # its newest version, renewals included
    return document_pdf(document)


def sealed_document_pdf(document: PacketDocument) -> bytes:
    """A sealed document's newest version, as the zip serves it: a renewal's (esign.seal_renewal)
    when its archive timestamp was renewed, the file as sealed otherwise."""
    version = (
        document.packet.sealed_versions.filter(slot=SealedFileVersion.document_slot(document.pk))
        .order_by("-version")
        .first()
    )
    if version is not None:
        return blob_read(version.path, version.sha256)
    return blob_read(document.sealed_path, document.sealed_sha256)


def document_filename(document: PacketDocument) -> str:
    """The document's file name, ending in .pdf."""
    name = safe_filename(document.filename or document.title, f"{document.alias_id}.pdf")
    return name if name.lower().endswith(".pdf") else f"{name}.pdf"


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
