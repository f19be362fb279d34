"""The demo template, the first PDF a new user sees: every type, and nothing drawn over its text."""

from __future__ import annotations

import io
from dataclasses import dataclass

import pytest
from pdfminer.high_level import extract_pages
from pdfminer.layout import LTCurve

from core.engine.template_spec import FIELD_TYPES
from templates_app.engine.demo import ROW_PITCH, build_demo_template
from tests.pdfcheck import Word, words

# Clearance, in points, between any word's box (poppler's: ascender to descender) and the
# middle of any stroke, beyond half the stroke's width.
CLEARANCE = 1.0


@dataclass(frozen=True)
class Segment:
    """A straight stroke in PDF coordinates (origin lower-left, y up)."""

    x0: float
    y0: float
    x1: float
    y1: float
    width: float


def strokes(pdf: bytes) -> list[list[Segment]]:
    """The edges of every stroked path of each page: rectangles, and the box around curves
    (the radio buttons' circles; their box is a safe over-estimate)."""
    pages = []
    for page in extract_pages(io.BytesIO(pdf)):
        segments = []
        for item in page:
            if isinstance(item, LTCurve) and item.stroke:  # LTRect and LTLine are LTCurves
                x0, y0, x1, y1 = item.bbox
                w = item.linewidth
                segments += [
                    Segment(x0, y0, x1, y0, w),
                    Segment(x0, y1, x1, y1, w),
                    Segment(x0, y0, x0, y1, w),
                    Segment(x1, y0, x1, y1, w),
                ]
        pages.append(segments)
    return pages


def crosses(word: Word, line: Segment, clearance: float) -> bool:
    """Whether ``line``, thickened by its width and ``clearance``, overlaps ``word``'s box."""
    grow = line.width / 2 + clearance
    return (
        min(line.x0, line.x1) - grow < word.x1
        and max(line.x0, line.x1) + grow > word.x0
        and min(line.y0, line.y1) - grow < word.y1
        and max(line.y0, line.y1) + grow > word.y0
    )


def test_the_demo_has_a_field_of_every_type_on_two_pages() -> None:
    _, spec = build_demo_template()

    assert {field.type for field in spec.fields} == set(FIELD_TYPES)
    assert len(spec.pages) == 2


def test_no_line_of_the_demo_touches_any_of_its_words() -> None:
    pdf, _ = build_demo_template()

    page_words, page_strokes = words(pdf), strokes(pdf)

    touching = [
        (number, word.text)
        for number, (texts, lines) in enumerate(zip(page_words, page_strokes, strict=True), 1)
        for word in texts
        if any(crosses(word, line, CLEARANCE) for line in lines)
    ]
    assert touching == []
    # Every word and every box was seen: 31 rectangles and 3 circles, then 11 rectangles.
    assert [len(w) for w in page_words] == [54, 29]
    assert [len(s) for s in page_strokes] == [4 * 34, 4 * 11]


@pytest.mark.parametrize("row", range(1, 5))
def test_page_two_labels_sit_between_their_row_and_the_row_above(row: int) -> None:
    pdf, spec = build_demo_template()
    page = words(pdf)[1]

    for field_id, label in ((f"item{row}", f"Item {row + 1}"), (f"price{row}", f"Price {row + 1}")):
        rect = next(f.rect for f in spec.fields if f.id == field_id)
        above = rect.y + ROW_PITCH  # the bottom of the previous row's box
        name, number = label.split()
        boxes = [w for w in page if w.text in (name, number) and rect.x <= w.x0 < rect.right]
        boxes = [w for w in boxes if rect.top < w.y1 < above]
        assert sorted(w.text for w in boxes) == sorted([name, number])
        assert min(w.y0 for w in boxes) >= rect.top + 1  # clear of its own box's top edge
        assert max(w.y1 for w in boxes) <= above - 2  # and of the row above
