"""Putting a signer's signature, initials, date and typed values onto the packet's documents.

The PDF work is esign.engine.stamp; this module turns a signer's fields and adoption into
stamps and stores each changed document (content-addressed, so nothing is overwritten).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from django.db.models import Q

from core.blobs import blob_delete, blob_read, blob_save
from core.engine.template_spec import Rect
from core.resources import font_library
from esign.engine.stamp import Stamp, stamp_pdf
from esign.models import Packet, PacketDocument, Signer
from esign.signer_fields import Adoption, signer_fields

HANDWRITING_FONT = Path(__file__).resolve().parent / "static" / "esign" / "fonts" / "Kristi.ttf"
DATE_FORMAT = "%Y-%m-%d"


def _rect(field: dict[str, Any]) -> Rect:
    rect = field["rect"]
    return Rect(float(rect["x"]), float(rect["y"]), float(rect["width"]), float(rect["height"]))


def _stamp(
    field: dict[str, Any], signer: Signer, adoption: Adoption, values: dict[str, Any], when: str
) -> Stamp | None:
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
        return Stamp(page, rect, "checkbox", checked=bool(values.get(key)))
    value = values.get(key)
    if isinstance(value, str) and value.strip():
        return Stamp(page, rect, "date" if kind == "date" else "text", text=value.strip())
    return None


def _initials(adoption: Adoption) -> str:
    return "".join(word[0].upper() for word in adoption.typed.split() if word)[:4] or "X"


@dataclass(frozen=True)
class StampedDocument:
    """A document with a signer's stamps, stored, not yet the document's current PDF."""

    document_id: int
    from_sha256: str  # the current PDF it was stamped onto
    path: str
    sha256: str


def signer_stamps(
    *, signer: Signer, adoption: Adoption, values: dict[str, Any], signed_at: datetime
) -> list[StampedDocument]:
    """Stamp every field of ``signer`` onto its documents' current PDFs and store the results.

    Slow (a PDF rewrite per document): call it outside any transaction, then make the results
    current with :func:`stamps_apply` under the packet's lock.
    """
    when = signed_at.strftime(f"{DATE_FORMAT} %H:%M UTC")
    by_document: dict[str, list[Stamp]] = {}
    for field in signer_fields(signer):
        stamp = _stamp(field, signer, adoption, values, when)
        if stamp is not None:
            by_document.setdefault(field["fileId"], []).append(stamp)
    documents = {d.alias_id: d for d in signer.packet.documents.all()}
    stamped = []
    for alias, stamps in by_document.items():
        document = documents[alias]
        pdf = stamp_pdf(
            blob_read(document.current_path, document.current_sha256),
            stamps,
            fonts=font_library(),
            handwriting_font=HANDWRITING_FONT,
        )
        path, sha = blob_save(prefix=_prefix(document.packet), data=pdf)
        stamped.append(StampedDocument(document.pk, document.current_sha256, path, sha))
    return stamped


def stamps_apply(stamped: list[StampedDocument]) -> bool:
    """Make the stamped PDFs current (in the caller's transaction); False, changing nothing,
    when a document changed since it was stamped (another signer of the same group)."""
    for item in stamped:
        current = PacketDocument.objects.filter(pk=item.document_id).values_list(
            "current_sha256", flat=True
        )
        if list(current) != [item.from_sha256]:
            return False
    for item in stamped:
        PacketDocument.objects.filter(pk=item.document_id).update(
            current_path=item.path, current_sha256=item.sha256
        )
    return True


def stamps_discard(stamped: list[StampedDocument]) -> None:
    """Delete stored stamped PDFs that did not become current."""
    for item in stamped:
        if not PacketDocument.objects.filter(
            Q(current_path=item.path) | Q(prepared_path=item.path)
        ).exists():
            blob_delete(item.path)


def test_mark(pdf: bytes) -> bytes:
    """The visible test mark on every page of a test packet's document."""
    return stamp_pdf(pdf, [], fonts=font_library(), handwriting_font=None, test_mark=True)


def _prefix(packet: Packet) -> str:
    return f"packets/{packet.organization.eid}/{packet.eid}"
