"""A packet's documents as people get them: a document's PDF as it stands or as a signer is
given it, its file name, its pages' boxes, the font signatures are drawn in, and a signer's
lasting copy.

A signer's lasting copy of the packet's documents is a link per document that opens it as a
PDF (a phone shows it; a zip it may not open), working for COPY_LINK_DAYS like the emailed zip
link and with its key (signer_copy_url): the document as it stands until the packet is sealed,
the sealed one after. Offered on the completion page, in the answer to finishing (the signing
page's done state) and in the signerComplete event (``documents``), so that an embedded signer,
who gets no email, keeps a copy too."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from django.conf import settings
from django.core import signing
from django.core.cache import cache
from django.urls import reverse

from core.blobs import blob_read
from core.engine.archive import safe_filename
from esign.engine.pages import PageBox, page_boxes
from esign.models import Packet, PacketDocument, SealedFileVersion, Signer

# The handwriting font of typed signatures and initials, on the documents and the certificate.
HANDWRITING_FONT = (
    Path(__file__).resolve().parent.parent / "static" / "esign" / "fonts" / "Kristi.ttf"
)


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
    """A sealed document's newest version, as the zip serves it: a renewal's (esign.sealing.renewal)
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


# --- a signer's lasting copy ---------------------------------------------------------------------

# How long the link to a signer's copy of the sealed documents works.
COPY_LINK_DAYS = 90
_COPY_SALT = "esign.signer-copy"


def signer_copy_url(signer: Signer) -> str:
    """A link to ``signer``'s copy of the packet's sealed documents (a zip), signed with the
    service's SECRET_KEY; it works for COPY_LINK_DAYS."""
    key = signing.TimestampSigner(salt=_COPY_SALT).sign(signer.eid)
    path = reverse("esign-signer-copy", args=[signer.eid])
    return f"{settings.PUBLIC_BASE_URL}{path}?key={key}"


def signer_of_copy_link(*, signer_eid: str, key: str) -> Signer | None:
    """The signer a copy link is for, while it works."""
    try:
        eid = signing.TimestampSigner(salt=_COPY_SALT).unsign(
            key, max_age=timedelta(days=COPY_LINK_DAYS)
        )
    except signing.BadSignature:
        return None
    if eid != signer_eid:
        return None
    return Signer.objects.select_related("packet__organization").filter(eid=eid).first()


def signer_copies(signer: Signer) -> list[dict[str, str]]:
    """[{id, title, filename, url}] for each document of ``signer``'s packet."""
    # The zip link's key opens the documents one by one as well.
    key = parse_qs(urlsplit(signer_copy_url(signer)).query)["key"][0]
    out = []
    for document in signer.packet.documents.all():
        path = reverse("esign-signer-copy-document", args=[signer.eid, document.alias_id])
        out.append(
            {
                "id": document.alias_id,
                "title": document.title or document.filename,
                "filename": document_filename(document),
                "url": f"{settings.PUBLIC_BASE_URL}{path}?key={key}",
            }
        )
    return out
