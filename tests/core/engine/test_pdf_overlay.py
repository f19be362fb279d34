"""overlay_pages: one PDF's pages drawn over another's, on bases of every shape, with no database.

Bases and overlays are made here with reportlab, then given their shape with pikepdf. Every
output must pass the structural check (tests/pdfsound.py), keep what the base had, and show the
overlay's text where the overlay drew it, in the base page's user space.
"""

from __future__ import annotations

import io

import pikepdf
import pytest
from reportlab.pdfgen.canvas import Canvas

from core.engine.pdf import PdfUnreadable, overlay_pages
from tests.pdfcheck import Word, inherit_page_attributes, words
from tests.pdfsound import assert_sound

WIDTH, HEIGHT = 612, 792


def _pdf(pages: list[list[tuple[float, float, str]]], size: tuple[float, float] = (WIDTH, HEIGHT)):
    """A PDF whose pages show each (x, y, text) in Helvetica 12."""
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=size, invariant=1)
    for texts in pages:
        canvas.setFont("Helvetica", 12)
        for x, y, text in texts:
            canvas.drawString(x, y, text)
        canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def _save(pdf: pikepdf.Pdf) -> bytes:
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def _open(data: bytes) -> pikepdf.Pdf:
    return pikepdf.open(io.BytesIO(data))


def _reshape(data: bytes, change) -> bytes:
    pdf = pikepdf.open(io.BytesIO(data))
    change(pdf)
    return _save(pdf)


def _find(page_words: list[Word], text: str) -> Word:
    found = [w for w in page_words if w.text == text]
    assert len(found) == 1, (text, page_words)
    return found[0]


BASE = _pdf([[(72, 720, "BaseOne")], [(72, 720, "BaseTwo")], [(72, 720, "BaseThree")]])
OVERLAY = _pdf([[(300, 400, "OverA")], [(300, 300, "OverB")]])


def test_overlay_pages_go_on_the_pages_they_are_placed_on() -> None:
    out = overlay_pages(BASE, OVERLAY, {0: 1, 2: 0})

    assert_sound(out, template=BASE)
    pages = [[w.text for w in page] for page in words(out)]
    assert pages == [["BaseOne", "OverB"], ["BaseTwo"], ["BaseThree", "OverA"]]
    over = _find(words(out)[2], "OverA")
    assert abs(over.x0 - 300) < 1
    assert 396 < over.y0 < 400  # the baseline is at 400; poppler's box includes the descent


def test_pages_not_placed_are_left_as_they_were() -> None:
    out = overlay_pages(BASE, OVERLAY, {0: 0})

    # The Pdf objects are kept in variables: objects of a closed Pdf cannot be read.
    before_pdf, after_pdf = _open(BASE), _open(out)
    before, after = before_pdf.pages[1], after_pdf.pages[1]
    assert after.Contents.read_bytes() == before.Contents.read_bytes()
    assert "/XObject" not in after.Resources


def test_the_form_is_a_named_xobject_with_the_page_mediabox_as_bbox() -> None:
    offset = _reshape(
        BASE, lambda pdf: setattr(pdf.pages[0], "MediaBox", pikepdf.Array([-100, 50, 512, 842]))
    )
    out = overlay_pages(offset, OVERLAY, {0: 0})

    pdf = _open(out)
    page = pdf.pages[0]
    form = page.Resources.XObject["/DocAutomationOverlay"]
    assert form.Subtype == "/Form"
    assert [float(v) for v in form.BBox] == [-100, 50, 512, 842]
    assert "/Matrix" not in form
    contents = list(page.Contents)
    assert contents[0].read_bytes() == b"q\n"
    assert contents[-2].read_bytes() == b"\nQ\n"
    assert contents[-1].read_bytes() == b"q /DocAutomationOverlay Do Q\n"


def test_a_custom_prefix_names_the_form() -> None:
    out = overlay_pages(BASE, OVERLAY, {0: 0}, prefix="/MyStamp")
    pdf = _open(out)
    page = pdf.pages[0]
    assert list(page.Resources.XObject.keys()) == ["/MyStamp"]


def test_overlaying_again_keeps_the_earlier_overlay() -> None:
    once = overlay_pages(BASE, OVERLAY, {0: 0})
    twice = overlay_pages(once, OVERLAY, {0: 1})

    assert_sound(twice, template=BASE)
    assert sorted(w.text for w in words(twice)[0]) == ["BaseOne", "OverA", "OverB"]
    pdf = _open(twice)
    page = pdf.pages[0]
    assert sorted(page.Resources.XObject.keys()) == [
        "/DocAutomationOverlay",
        "/DocAutomationOverlay1",
    ]


def test_annotations_and_text_of_the_base_survive() -> None:
    def add_link(pdf: pikepdf.Pdf) -> None:
        link = pdf.make_indirect(
            pikepdf.Dictionary(
                Type=pikepdf.Name.Annot,
                Subtype=pikepdf.Name.Link,
                Rect=pikepdf.Array([72, 715, 140, 735]),
                A=pikepdf.Dictionary(
                    S=pikepdf.Name.URI, URI=pikepdf.String("https://example.org/")
                ),
            )
        )
        pdf.pages[0].Annots = pdf.make_indirect(pikepdf.Array([link]))

    base = _reshape(BASE, add_link)
    out = overlay_pages(base, OVERLAY, {0: 0})

    assert_sound(out, template=base)
    pdf = _open(out)
    page = pdf.pages[0]
    (link,) = list(page.Annots)
    assert link.Subtype == "/Link"
    assert str(link.A.URI) == "https://example.org/"
    assert [float(v) for v in link.Rect] == [72, 715, 140, 735]
    assert sorted(w.text for w in words(out)[0]) == ["BaseOne", "OverA"]


def test_inherited_resources_stay_with_the_other_pages() -> None:
    """/Resources and /MediaBox on an intermediate node, shared by every page."""

    def inherit(pdf: pikepdf.Pdf) -> None:
        # One indirect /Resources: the dictionary every page shares.
        resources = pdf.make_indirect(pdf.pages[0].Resources)
        inherit_page_attributes(pdf, resources, [0, 0, WIDTH, HEIGHT])

    base = _reshape(BASE, inherit)
    out = overlay_pages(base, OVERLAY, {1: 0})

    assert_sound(out, template=base)
    assert [[w.text for w in page] for page in words(out)] == [
        ["BaseOne"],
        ["BaseTwo", "OverA"],
        ["BaseThree"],
    ]
    # qpdf writes inherited attributes onto the pages; the shared dictionary must not have
    # gained the form that only page 2 draws.
    pdf = _open(out)
    assert "/XObject" in pdf.pages[1].obj.Resources
    assert "/XObject" not in pdf.pages[0].obj.Resources
    assert "/XObject" not in pdf.pages[2].obj.Resources
    assert pdf.pages[0].obj.Resources.objgen == pdf.pages[2].obj.Resources.objgen


def test_content_streams_shared_between_pages_stay_shared() -> None:
    def share(pdf: pikepdf.Pdf) -> None:
        shared = pdf.make_stream(b"0 0 1 rg 72 60 200 10 re f")
        for page in pdf.pages:
            page.Contents = pikepdf.Array([shared, page.Contents])

    base = _reshape(BASE, share)
    out = overlay_pages(base, OVERLAY, {0: 0, 1: 1})

    assert_sound(out, template=base)
    pdf = _open(out)
    shared = {
        part.objgen
        for page in pdf.pages
        for part in page.obj.Contents
        if part.read_bytes() == b"0 0 1 rg 72 60 200 10 re f"
    }
    assert len(shared) == 1
    assert [[w.text for w in page] for page in words(out)] == [
        ["BaseOne", "OverA"],
        ["BaseTwo", "OverB"],
        ["BaseThree"],
    ]


def test_a_graphics_state_left_by_the_base_does_not_move_the_overlay() -> None:
    def leak(pdf: pikepdf.Pdf) -> None:
        page = pdf.pages[0]
        page.Contents = pdf.make_stream(b"q 0.5 0 0 0.5 0 0 cm " + page.Contents.read_bytes())

    base = _reshape(BASE, leak)
    out = overlay_pages(base, OVERLAY, {0: 0})

    over = _find(words(out)[0], "OverA")
    assert abs(over.x0 - 300) < 1
    assert 395 < over.y0 < 401


def _turned(vector: tuple[float, float], rotate: int) -> tuple[float, float]:
    """A user-space vector as a page with ``rotate`` (clockwise) displays it."""
    dx, dy = vector
    return {0: (dx, dy), 90: (dy, -dx), 180: (-dx, -dy), 270: (-dy, dx)}[rotate]


@pytest.mark.parametrize("rotate", [0, 90, 180, 270])
def test_a_rotated_offset_page_gets_the_overlay_in_its_user_space(rotate: int) -> None:
    """The overlay is drawn in the unrotated user space, as the base page's own content is."""
    box = [-100, 50, WIDTH - 100, HEIGHT + 50]

    def rotate_and_offset(pdf: pikepdf.Pdf) -> None:
        pdf.pages[0].MediaBox = pikepdf.Array(box)
        pdf.pages[0].Rotate = rotate

    base = _reshape(_pdf([[(box[0] + 72, box[1] + 720, "BaseWord")]]), rotate_and_offset)
    overlay = _pdf([[(box[0] + 272, box[1] + 600, "OverWord")]])
    out = overlay_pages(base, overlay, {0: 0})

    assert_sound(out, template=base)
    page_words = words(out)[0]
    base_word, over_word = _find(page_words, "BaseWord"), _find(page_words, "OverWord")
    shown = (
        over_word.center[0] - base_word.center[0],
        over_word.center[1] - base_word.center[1],
    )
    # In user space the centres are 200 right and 120 down of each other, give or take the
    # words' different widths; as displayed, that vector is turned with the page.
    width_difference = (over_word.x1 - over_word.x0) - (base_word.x1 - base_word.x0)
    if rotate in (90, 270):
        width_difference = (over_word.y1 - over_word.y0) - (base_word.y1 - base_word.y0)
    expected = _turned((200 + width_difference / 2, -120), rotate)
    assert abs(shown[0] - expected[0]) < 1.5, (shown, expected)
    assert abs(shown[1] - expected[1]) < 1.5, (shown, expected)


def test_placements_outside_either_file_are_refused() -> None:
    with pytest.raises(IndexError, match="base PDF has no page 3"):
        overlay_pages(BASE, OVERLAY, {3: 0})
    with pytest.raises(IndexError, match="overlay PDF has no page 2"):
        overlay_pages(BASE, OVERLAY, {0: 2})


def test_bytes_that_are_not_a_pdf_are_refused() -> None:
    with pytest.raises(PdfUnreadable):
        overlay_pages(b"not a pdf", OVERLAY, {0: 0})


def test_no_placements_writes_the_base_again() -> None:
    out = overlay_pages(BASE, OVERLAY, {})
    assert_sound(out, template=BASE)
    assert [[w.text for w in page] for page in words(out)] == [
        ["BaseOne"],
        ["BaseTwo"],
        ["BaseThree"],
    ]


def test_a_page_without_contents_gets_the_overlay() -> None:
    def empty(pdf: pikepdf.Pdf) -> None:
        del pdf.pages[0].obj["/Contents"]

    base = _reshape(BASE, empty)
    out = overlay_pages(base, OVERLAY, {0: 0})

    assert_sound(out, template=base)
    assert [w.text for w in words(out)[0]] == ["OverA"]
