"""Putting a signer's signature, initials, date and typed values onto the packet's documents.

The PDF work is esign.engine.stamp; this module turns a signer's fields and adoption into
stamps and stores each changed document (content-addressed, so nothing is overwritten).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.blobs import blob_read, blob_save
from core.engine.template_spec import Rect
from core.resources import font_library
from esign.engine.stamp import Stamp, stamp_pdf
from esign.models import Packet, PacketDocument, Signer

if TYPE_CHECKING:
    from esign.services import Adoption

HANDWRITING_FONT = Path(__file__).resolve().parent / "static" / "esign" / "fonts" / "Kristi.ttf"
DATE_FORMAT = "%Y-%m-%d"


def _rect(field: dict[str, Any]) -> Rect:
    rect = field["rect"]
    return Rect(float(rect["x"]), float(rect["y"]), float(rect["width"]), float(rect["height"]))


def _stamp(field: dict[str, Any], signer: Signer, adoption: Adoption, when: str) -> Stamp | None:
    kind, page, rect = field["type"], int(field["page"]), _rect(field)
    key = f"{field['fileId']}/{field['id']}"
    if kind in ("signature", "initial"):
        caption = f"{signer.name}, {when}" if kind == "signature" else None
        if adoption.drawn_png is not None and kind == "signature":
            return Stamp(page, rect, kind, image_png=adoption.drawn_png, caption=caption)
        text = adoption.typed if kind == "signature" else (adoption.initials or _initials(adoption))
        return Stamp(page, rect, kind, text=text, caption=caption)
    if kind == "signatureDate":
        return Stamp(page, rect, "date", text=when[:10])
    if kind == "checkbox":
        return Stamp(page, rect, "checkbox", checked=bool(signer.values.get(key)))
    value = signer.values.get(key)
    if isinstance(value, str) and value.strip():
        return Stamp(page, rect, "date" if kind == "date" else "text", text=value.strip())
    return None


def _initials(adoption: Adoption) -> str:
    return "".join(word[0].upper() for word in adoption.typed.split() if word)[:4] or "X"


def stamp_signer(*, signer: Signer, adoption: Adoption, signed_at: datetime) -> None:
    """Stamp every field of ``signer`` onto its document and store the documents' new PDFs."""
    from esign.services import signer_fields

    when = signed_at.strftime(f"{DATE_FORMAT} %H:%M UTC")
    by_document: dict[str, list[Stamp]] = {}
    for field in signer_fields(signer):
        stamp = _stamp(field, signer, adoption, when)
        if stamp is not None:
            by_document.setdefault(field["fileId"], []).append(stamp)
    documents = {d.alias_id: d for d in signer.packet.documents.all()}
    for alias, stamps in by_document.items():
        document = documents[alias]
        pdf = stamp_pdf(
            blob_read(document.current_path, document.current_sha256),
            stamps,
            fonts=font_library(),
            handwriting_font=HANDWRITING_FONT,
        )
        _store(document, pdf)


def mark_test_documents(packet: Packet) -> None:
    """A test packet's documents carry a visible mark on every page, once, at creation."""
    for document in packet.documents.all():
        pdf = stamp_pdf(
            blob_read(document.current_path, document.current_sha256),
            [],
            fonts=font_library(),
            handwriting_font=None,
            test_mark=True,
        )
        _store(document, pdf)


def _store(document: PacketDocument, pdf: bytes) -> None:
    path, sha = blob_save(
        prefix=f"packets/{document.packet.organization.eid}/{document.packet.eid}", data=pdf
    )
    document.current_path, document.current_sha256 = path, sha
    document.save(update_fields=["current_path", "current_sha256"])
