"""The last changes to a rendered PDF's objects before WeasyPrint writes them: the form's field
list tidied (WeasyPrint 70 leaves references readers cannot parse) and a diagonal watermark on
every page if asked for."""

from __future__ import annotations

import math
from typing import Any

import pydyf


class Finisher:
    """Last changes to the PDF objects before WeasyPrint writes them."""

    def __init__(self, watermark: str | None) -> None:
        self.watermark = watermark

    def __call__(self, document: Any, pdf: pydyf.PDF) -> None:
        _tidy_field_list(pdf)
        if self.watermark:
            _draw_watermark(pdf, self.watermark)


def _is_dangling(reference: Any) -> bool:
    return isinstance(reference, bytes) and reference.startswith(b"None ")


def _tidy_field_list(pdf: pydyf.PDF) -> None:
    """Keep the AcroForm field list to the fields WeasyPrint wrote, top-level ones only.

    The HTML preparation keeps buttons out of the form, which is where WeasyPrint 70 leaves a
    ``None 0 R`` reference that readers cannot parse; this drops any other such reference too.
    WeasyPrint also lists each radio button beside its group: a kid belongs in its group only.
    """
    acroform = pdf.catalog.get("AcroForm")
    if isinstance(acroform, pydyf.Dictionary) and "Fields" in acroform:
        acroform["Fields"] = pydyf.Array(
            reference
            for reference in acroform["Fields"]
            if not _is_dangling(reference) and "Parent" not in _resolve(pdf, reference)
        )
    for page in _pages(pdf):
        annotations = page.get("Annots")
        if isinstance(annotations, pydyf.Array):
            page["Annots"] = pydyf.Array(r for r in annotations if not _is_dangling(r))


def _pages(pdf: pydyf.PDF) -> list[pydyf.Dictionary]:
    return [pdf.objects[number] for number in pdf.pages["Kids"][::3]]


def _resolve(pdf: pydyf.PDF, value: Any) -> Any:
    if isinstance(value, bytes) and value.endswith(b" R"):
        return pdf.objects[int(value.split()[0])]
    return value


# Helvetica-Bold advance widths (1/1000 em) for centring the watermark without a font file.
_HELVETICA_BOLD_WIDTHS = {
    " ": 278, "A": 722, "B": 722, "C": 722, "D": 722, "E": 667, "F": 611, "G": 778, "H": 722,
    "I": 278, "J": 556, "K": 722, "L": 611, "M": 833, "N": 722, "O": 778, "P": 667, "Q": 778,
    "R": 722, "S": 667, "T": 611, "U": 722, "V": 667, "W": 944, "X": 667, "Y": 667, "Z": 611,
}  # fmt: skip


def _draw_watermark(pdf: pydyf.PDF, text: str) -> None:
    """Draw ``text`` diagonally across every page, over the content, translucent.

    A standard PDF font (nothing embedded) and a content stream appended to each page: the
    document's own CSS cannot hide it, and text extraction finds it.
    """
    text = "".join(c for c in text.upper() if c in _HELVETICA_BOLD_WIDTHS) or "DEVELOPMENT"
    width_em = sum(_HELVETICA_BOLD_WIDTHS[c] for c in text) / 1000
    font = pydyf.Dictionary(
        {
            "Type": "/Font",
            "Subtype": "/Type1",
            "BaseFont": "/Helvetica-Bold",
            "Encoding": "/WinAnsiEncoding",
        }
    )
    pdf.add_object(font)
    state = pydyf.Dictionary({"Type": "/ExtGState", "ca": 0.16, "CA": 0.16})
    pdf.add_object(state)
    save = pydyf.Stream([b"q"])
    pdf.add_object(save)

    for page in _pages(pdf):
        resources = _resolve(pdf, page["Resources"])
        fonts = _resolve(pdf, resources.get("Font"))
        if fonts is None:
            fonts = resources["Font"] = pydyf.Dictionary()
        fonts["DocgenWatermark"] = font.reference
        states = _resolve(pdf, resources.get("ExtGState"))
        if states is None:
            states = resources["ExtGState"] = pydyf.Dictionary()
        states["DocgenWatermarkState"] = state.reference

        left, bottom, right, top = (float(v) for v in page["MediaBox"])
        width, height = right - left, top - bottom
        angle = math.atan2(height, width)
        cos, sin = math.cos(angle), math.sin(angle)
        size = 0.6 * math.hypot(width, height) / width_em
        advance = width_em * size
        # Start so the text's centre (half its advance, a third of the size up) is the page's.
        x = left + width / 2 - cos * advance / 2 + sin * size / 3
        y = bottom + height / 2 - sin * advance / 2 - cos * size / 3
        operations = (
            f"Q q /DocgenWatermarkState gs 0.75 0.1 0.1 rg BT /DocgenWatermark {size:.2f} Tf "
            f"{cos:.5f} {sin:.5f} {-sin:.5f} {cos:.5f} {x:.2f} {y:.2f} Tm ({text}) Tj ET Q"
        )
        stamp = pydyf.Stream([operations.encode("ascii")])
        pdf.add_object(stamp)
        # "q" before the page's own content and "Q" after it, so its graphics state (WeasyPrint
        # flips the y axis) does not carry over into the watermark.
        contents = page["Contents"]
        own = list(contents) if isinstance(contents, pydyf.Array) else [contents]
        page["Contents"] = pydyf.Array([save.reference, *own, stamp.reference])
