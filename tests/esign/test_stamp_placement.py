"""stamp_pdf's text, date and checkbox stamps landing in their rects, every stamp upright inside
its rect on rotated pages with an offset box, and the test mark on every page (the document
still readable)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.engine.fonts import FontLibrary
from core.engine.template_spec import Rect
from esign.engine import Stamp, stamp_pdf
from tests.esign.test_stamp import (
    HEIGHT,
    WIDTH,
    displayed,
    document,
    embedded_fonts,
    in_rect,
    inside,
    new_ink,
    signature_png,
    words_as_shown,
)
from tests.esign.test_stamp import fonts as fonts  # noqa: F401 - the fixture
from tests.esign.test_stamp import handwriting as handwriting  # noqa: F401 - the fixture
from tests.pdfcheck import Word, words
from tests.pdfsound import assert_sound


# --- text, dates and checkboxes -------------------------------------------------------------------
def test_text_and_date_stamps_land_in_their_rects(fonts: FontLibrary) -> None:
    base = document(["Base"])
    date = Rect(100, 600, 120, 20)
    name = Rect(100, 560, 200, 20)
    squeezed = Rect(100, 520, 150, 16)
    wrapped = Rect(300, 400, 120, 60)
    long_text = "A value much too long for one line of this box"
    out = stamp_pdf(
        base,
        [
            Stamp(0, date, "date", text="2026-11-23"),
            Stamp(0, name, "text", text="Ada Lovelace"),
            Stamp(0, squeezed, "text", text=long_text),
            Stamp(0, wrapped, "text", text=long_text),
        ],
        fonts=fonts,
        handwriting_font=None,
    )

    assert_sound(out, template=base)
    page_words = words(out)[0]
    assert in_rect(page_words, date) == "2026-11-23"
    assert in_rect(page_words, name) == "Ada Lovelace"
    assert in_rect(page_words, squeezed) == long_text  # shrunk onto one line
    assert in_rect(page_words, wrapped) == long_text  # wrapped in a box tall enough
    lines = {round(w.y0) for w in page_words if inside((w.x0, w.y0), wrapped)}
    assert len(lines) > 1
    assert all(inside(point, Rect(0, 0, WIDTH, 680)) for point in new_ink(base, out))
    assert embedded_fonts(out).get("NotoSans-Regular") is True


def test_a_checkbox_is_ticked_only_when_checked(fonts: FontLibrary) -> None:
    base = document(["Base"])
    ticked, unticked = Rect(100, 500, 16, 16), Rect(200, 500, 16, 16)
    out = stamp_pdf(
        base,
        [Stamp(0, ticked, "checkbox", checked=True), Stamp(0, unticked, "checkbox")],
        fonts=fonts,
        handwriting_font=None,
    )

    assert_sound(out, template=base)
    ink = new_ink(base, out)
    assert len([p for p in ink if inside(p, ticked)]) > 15
    assert all(inside(p, ticked) for p in ink)


# --- page geometry ---------------------------------------------------------------------------------
@pytest.mark.parametrize("rotate", [0, 90, 180, 270])
def test_stamps_on_rotated_offset_pages_land_upright_inside_their_rects(
    rotate: int, fonts: FontLibrary, handwriting: Path
) -> None:
    box = (-100.0, 50.0, WIDTH - 100.0, HEIGHT + 50.0)
    base = document(["Base"], box=box, rotate=rotate)
    # Boxes 200 wide and 30 high as the page is displayed: turned in user space.
    size = (30, 200) if rotate in (90, 270) else (200, 30)
    typed = Rect(box[0] + 100, box[1] + 100, *size)
    text = Rect(box[0] + 300, box[1] + 300, *size)
    drawn = Rect(box[0] + 100, box[1] + 450, *size)
    out = stamp_pdf(
        base,
        [
            Stamp(0, typed, "signature", text="Ada Lovelace"),
            Stamp(0, text, "text", text="Upright text"),
            Stamp(0, drawn, "signature", image_png=signature_png()),
        ],
        fonts=fonts,
        handwriting_font=handwriting,
    )

    assert_sound(out, template=base)
    page_words = words_as_shown(out, rotate=rotate)[0]
    shown_typed = displayed(typed, box=box, rotate=rotate)
    shown_text = displayed(text, box=box, rotate=rotate)
    shown_drawn = displayed(drawn, box=box, rotate=rotate)
    assert in_rect(page_words, shown_typed) == "Ada Lovelace"
    assert in_rect(page_words, shown_text) == "Upright text"
    # Upright as displayed: the words read left to right on one horizontal line.
    upright = sorted((w for w in page_words if w.text in ("Upright", "text")), key=lambda w: w.x0)
    assert [w.text for w in upright] == ["Upright", "text"]
    assert abs(upright[0].y0 - upright[1].y0) < 1
    assert upright[0].x1 - upright[0].x0 > upright[0].y1 - upright[0].y0  # wider than tall
    ink = new_ink(base, out)
    assert len([p for p in ink if inside(p, shown_drawn)]) > 200
    assert all(any(inside(p, r) for r in (shown_typed, shown_text, shown_drawn)) for p in ink)
    assert "Base" in [w.text for w in page_words]


# --- the test mark ---------------------------------------------------------------------------------
def _mark_words(page_words: list[Word]) -> list[str]:
    return [w.text for w in page_words if w.text in ("TEST", "not", "legally", "binding")]


def test_the_test_mark_is_on_every_page_when_asked(fonts: FontLibrary) -> None:
    base = document(["One", "Two", "Three"])
    rotated = document(["Turned"], box=(-100.0, 50.0, WIDTH - 100.0, HEIGHT + 50.0), rotate=90)
    for pdf in (base, rotated):
        stamps = [Stamp(0, Rect(100, 500, 100, 20), "text", text="Signed")]
        out = stamp_pdf(pdf, stamps, fonts=fonts, handwriting_font=None, test_mark=True)

        assert_sound(out, template=pdf)
        for page_words in words_as_shown(out, rotate=90 if pdf is rotated else 0):
            # The banner along the top edge, upright as displayed.
            page_height = WIDTH if pdf is rotated else HEIGHT  # as displayed
            banner = [w for w in page_words if w.y0 > page_height - 20]
            assert [w.text for w in sorted(banner, key=lambda w: w.x0)] == [
                "TEST",
                "—",
                "not",
                "legally",
                "binding",
            ]
        unmarked = stamp_pdf(pdf, stamps, fonts=fonts, handwriting_font=None)
        assert all(_mark_words(page_words) == [] for page_words in words(unmarked))


def test_the_test_mark_leaves_the_document_readable(fonts: FontLibrary) -> None:
    base = document(["Contract text"])
    out = stamp_pdf(base, [], fonts=fonts, handwriting_font=None, test_mark=True)

    assert_sound(out, template=base)
    assert in_rect(words(out)[0], Rect(0, 700, WIDTH, 40)) == "Contract text"
    assert new_ink(base, out) == []  # translucent: lighter than anything counted as ink
