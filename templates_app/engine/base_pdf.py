"""The base PDF a template stores: the upload without its interactive form, so a filled document
never shows the original widgets under (or over) the filled values. Where a widget painted its
own background or border (/MK /BG, /BC), that paint is kept as static page content so the form
still looks the same.

Pure Python (no Django).
"""

from __future__ import annotations

from typing import Any

import pikepdf
from pypdf import PdfReader
from pypdf.generic import DictionaryObject

from core.engine.pdf import PageDrawing, PdfUnreadable, open_pdf, save_pdf
from templates_app.engine.acroform import ANNOT_HIDDEN, rect_of
from templates_app.engine.errors import ImportRefused


def _color_operator(color: Any, stroke: bool) -> str | None:
    values = [float(v) for v in color] if color is not None else []
    ops = {1: ("g", "G"), 3: ("rg", "RG"), 4: ("k", "K")}
    if len(values) not in ops:
        return None
    op = ops[len(values)][1 if stroke else 0]
    return " ".join(f"{v:.4f}" for v in values) + f" {op}"


def _static_paint(widget: DictionaryObject) -> str:
    """Content-stream operators repainting a widget's background and border, if it had any."""
    mk = widget.get("/MK")
    if mk is None or "/Rect" not in widget:
        return ""
    mk = mk.get_object()
    rect = rect_of(widget)
    ops = []
    if (fill := _color_operator(mk.get("/BG"), stroke=False)) is not None:
        ops.append(f"q {fill} {rect.x:.3f} {rect.y:.3f} {rect.width:.3f} {rect.height:.3f} re f Q")
    if (stroke := _color_operator(mk.get("/BC"), stroke=True)) is not None:
        bs = widget.get("/BS")
        width = float(bs.get_object().get("/W", 1)) if bs is not None else 1.0
        if width > 0:
            half = width / 2
            ops.append(
                f"q {stroke} {width:.3f} w {rect.x + half:.3f} {rect.y + half:.3f} "
                f"{rect.width - width:.3f} {rect.height - width:.3f} re S Q"
            )
    return "\n".join(ops)


def widget_paint(reader: PdfReader) -> list[str]:
    """For each page, the operators repainting its visible widgets' backgrounds and borders."""
    pages = []
    for page in reader.pages:
        annots = page.get("/Annots")
        paint = []
        for ref in annots.get_object() if annots is not None else ():
            annot = ref.get_object()
            if (
                isinstance(annot, DictionaryObject)
                and annot.get("/Subtype") == "/Widget"
                and not int(annot.get("/F", 0)) & ANNOT_HIDDEN
            ):
                paint.append(_static_paint(annot))
        pages.append("\n".join(p for p in paint if p))
    return pages


def base_pdf(data: bytes, paint: list[str]) -> bytes:
    """The stored base: ``data`` without its interactive form, the widgets' paint kept as page
    content, written whole by qpdf (repaired, decrypted, structurally sound)."""
    try:
        pdf = open_pdf(data)
    except PdfUnreadable as exc:
        raise ImportRefused("damaged", "The PDF is damaged and cannot be read.") from exc
    if len(pdf.pages) != len(paint):  # the two readers disagree: too damaged to trust
        raise ImportRefused("damaged", "The PDF is damaged and cannot be read.")
    drawing = PageDrawing(pdf)
    for page, operators in zip(pdf.pages, paint, strict=True):
        annots = page.obj.get("/Annots")
        if annots is not None:
            kept = [
                annot
                for annot in (annots if isinstance(annots, pikepdf.Array) else ())
                if not (
                    isinstance(annot, pikepdf.Dictionary)
                    and annot.get("/Subtype") == pikepdf.Name.Widget
                )
            ]
            if kept:
                page.obj.Annots = pikepdf.Array(kept)
            else:
                del page.obj["/Annots"]
        if operators:
            drawing.append(page.obj, drawing.stream(operators.encode()))
    root = pdf.Root
    for key in ("/AcroForm", "/NeedsRendering", "/Perms"):
        if key in root:
            del root[key]
    return save_pdf(pdf)
