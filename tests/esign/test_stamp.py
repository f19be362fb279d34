"""stamp_pdf: signatures, initials, text, dates and ticks drawn onto documents, with no database.

Documents are made here with reportlab (then pikepdf gives them their shape), drawn signatures
with Pillow. Every output must pass the structural check (tests/pdfsound.py); where a stamp
lands is read back as words (poppler) and as the pixels it inked (pdftoppm at 72 dpi, one
pixel a point), on the page as it is displayed.

This module: those helpers (shared with the other stamp modules and test_pdf_languages.py), and
drawn and typed signatures. Text, dates, checkboxes, rotated pages and the test mark are in
test_stamp_placement.py; the document's own content, signers one after another and the
refusals in test_stamp_documents.py."""

from __future__ import annotations

import io
from pathlib import Path

import pikepdf
import pytest
from PIL import Image, ImageDraw
from reportlab.pdfgen.canvas import Canvas

from core.engine.fonts import FontLibrary
from core.engine.template_spec import Rect
from esign.engine import HandwritingFontUnusable, Stamp, stamp_pdf
from tests.esign.handwriting import FONT_NAME_PREFIX, handwriting_ttf
from tests.pdfcheck import Word, poppler_words, render, text_in_rect, words
from tests.pdfsound import assert_sound

WIDTH, HEIGHT = 612, 792
LETTER = (0.0, 0.0, float(WIDTH), float(HEIGHT))
CAPTION = "Signed by Ada Lovelace, 2026-11-23 18:30 UTC"


@pytest.fixture(scope="module")
def fonts(tmp_path_factory: pytest.TempPathFactory) -> FontLibrary:
    def no_download(url: str) -> bytes:
        raise OSError("no catalog fonts in these tests")

    return FontLibrary(cache_dir=tmp_path_factory.mktemp("fonts"), download=no_download)


@pytest.fixture(scope="module")
def handwriting(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return handwriting_ttf(tmp_path_factory.mktemp("handwriting"))


# --- documents, signatures and what the pages show ------------------------------------------------
def document(
    texts: list[str],
    *,
    box: tuple[float, float, float, float] = LETTER,
    rotate: int = 0,
) -> bytes:
    """One page per text, the text at (72, 720) from the box's lower-left corner."""
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(WIDTH, HEIGHT), invariant=1)
    for text in texts:
        canvas.setFont("Helvetica", 12)
        canvas.drawString(box[0] + 72, box[1] + 720, text)
        canvas.showPage()
    canvas.save()
    if box == LETTER and not rotate:
        return buffer.getvalue()
    pdf = pikepdf.open(io.BytesIO(buffer.getvalue()))
    for page in pdf.pages:
        page.MediaBox = pikepdf.Array(box)
        page.Rotate = rotate
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def signature_png(size: tuple[int, int] = (600, 240)) -> bytes:
    """A black stroke 500 x 100 pixels, on a transparent pad with wide empty margins."""
    image = Image.new("RGBA", size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.line([(50, 170), (200, 70), (350, 170), (550, 80)], fill=(0, 0, 0, 255), width=8)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def displayed(
    rect: Rect, *, box: tuple[float, float, float, float] = LETTER, rotate: int = 0
) -> Rect:
    """``rect`` (user space) on the page as displayed: origin lower-left, y up."""
    x0, y0, x1, y1 = box
    width, height = x1 - x0, y1 - y0

    def turn(x: float, y: float) -> tuple[float, float]:
        u, v = x - x0, y - y0
        return {
            0: (u, v),
            90: (v, width - u),
            180: (width - u, height - v),
            270: (height - v, u),
        }[rotate]

    return Rect.from_corners(*turn(rect.x, rect.y), *turn(rect.right, rect.top))


def new_ink(before: bytes, after: bytes, page: int = 0) -> list[tuple[float, float]]:
    """Pixels dark in ``after`` that were not in ``before``, as displayed points (y up)."""
    old, new = render(before, page).convert("L"), render(after, page).convert("L")
    assert old.size == new.size
    width, height = new.size
    return [
        (i % width + 0.5, height - i // width - 0.5)
        for i, (a, b) in enumerate(zip(old.tobytes(), new.tobytes(), strict=True))
        if b < 160 <= a
    ]


def inside(point: tuple[float, float], rect: Rect, tolerance: float = 1.0) -> bool:
    x, y = point
    return (
        rect.x - tolerance <= x <= rect.right + tolerance
        and rect.y - tolerance <= y <= rect.top + tolerance
    )


def words_as_shown(pdf: bytes, *, rotate: int = 0) -> list[list[Word]]:
    """Words of each page in displayed points (origin lower-left, y up).

    poppler's -bbox gives word boxes on the page as displayed but the page's unrotated size,
    so tests.pdfcheck.words is off on pages turned by 90 or 270 degrees; this takes the height
    from the rotation the test made.
    """
    found = poppler_words(pdf)
    pages: list[list[Word]] = [[] for _ in range(max((w.page for w in found), default=0))]
    for w in found:
        height = w.page_height if rotate in (0, 180) else WIDTH * w.page_height / HEIGHT
        pages[w.page - 1].append(Word(w.text, w.x_min, height - w.y_max, w.x_max, height - w.y_min))
    return pages


def in_rect(page_words: list[Word], rect: Rect) -> str:
    return text_in_rect(page_words, (rect.x, rect.y, rect.width, rect.height))


def embedded_fonts(pdf: bytes, page: int = 0) -> dict[str, bool]:
    """Base font names (without subset tags) drawn on a page or in its forms: embedded?"""
    found: dict[str, bool] = {}

    def walk(resources: pikepdf.Object | None, depth: int = 0) -> None:
        if resources is None or depth > 8:
            return
        for font in (resources.get("/Font") or {}).values():
            described = font.DescendantFonts[0] if "/DescendantFonts" in font else font
            descriptor = described.get("/FontDescriptor")
            embedded = descriptor is not None and any(
                key in descriptor for key in ("/FontFile", "/FontFile2", "/FontFile3")
            )
            found[str(font.BaseFont).lstrip("/").split("+")[-1]] = embedded
        for xobject in (resources.get("/XObject") or {}).values():
            if xobject.get("/Subtype") == "/Form":
                walk(xobject.get("/Resources"), depth + 1)

    with pikepdf.open(io.BytesIO(pdf)) as opened:
        walk(opened.pages[page].obj.get("/Resources"))
    return found


# --- drawn and typed signatures --------------------------------------------------------------------
def test_a_drawn_signature_is_fitted_and_centred_inside_its_rect(fonts: FontLibrary) -> None:
    base = document(["Please sign below"])
    rect = Rect(100, 500, 200, 60)
    out = stamp_pdf(
        base,
        [Stamp(0, rect, "signature", image_png=signature_png())],
        fonts=fonts,
        handwriting_font=None,
    )

    assert_sound(out, template=base)
    ink = new_ink(base, out)
    assert len(ink) > 300
    assert all(inside(point, rect) for point in ink)
    # Cropped to its ink (about 508 x 108 pixels with the stroke's width), scaled to the rect's
    # width keeping the aspect ratio, and centred vertically.
    xs, ys = [x for x, _ in ink], [y for _, y in ink]
    assert min(xs) < rect.x + 3
    assert max(xs) > rect.right - 3
    drawn_height = 200 * 108 / 508
    assert abs((max(ys) - min(ys)) - drawn_height) < 4
    assert abs((max(ys) + min(ys)) / 2 - (rect.y + rect.height / 2)) < 2
    assert in_rect(words(out)[0], Rect(0, 700, WIDTH, 40)) == "Please sign below"


def test_a_drawn_signature_stays_above_its_caption(fonts: FontLibrary) -> None:
    base = document(["Base"])
    rect = Rect(100, 500, 240, 60)
    out = stamp_pdf(
        base,
        [Stamp(0, rect, "signature", image_png=signature_png(), caption=CAPTION)],
        fonts=fonts,
        handwriting_font=None,
    )

    assert_sound(out, template=base)
    page_words = words(out)[0]
    band = Rect(rect.x, rect.y, rect.width, 10)  # a quarter of 60, at most 10
    assert in_rect(page_words, band) == CAPTION
    assert all(inside(point, rect) for point in new_ink(base, out))
    # The caption is small but legible: poppler reads every word of it.
    caption_words = [w for w in page_words if w.text in CAPTION.split()]
    assert len(caption_words) == len(CAPTION.split())
    assert all(4 <= w.y1 - w.y0 <= 10 for w in caption_words)


def test_a_typed_signature_is_text_in_the_embedded_handwriting_font(
    fonts: FontLibrary, handwriting: Path
) -> None:
    base = document(["Base"])
    signature = Rect(100, 500, 220, 50)
    initials = Rect(400, 500, 60, 30)
    out = stamp_pdf(
        base,
        [
            Stamp(0, signature, "signature", text="Ada Lovelace", caption=CAPTION),
            Stamp(0, initials, "initial", text="AL"),
        ],
        fonts=fonts,
        handwriting_font=handwriting,
    )

    assert_sound(out, template=base)
    page_words = words(out)[0]
    above_caption = Rect(signature.x, signature.y + 10, signature.width, signature.height - 10)
    assert in_rect(page_words, above_caption) == "Ada Lovelace"
    assert in_rect(page_words, Rect(signature.x, signature.y, signature.width, 10)) == CAPTION
    assert in_rect(page_words, initials) == "AL"
    ada = next(w for w in page_words if w.text == "Ada")
    assert ada.y1 - ada.y0 > 20  # as large as the rect allows, not a text size
    found = embedded_fonts(out)
    handwriting_names = [name for name in found if name.startswith(FONT_NAME_PREFIX)]
    assert handwriting_names
    assert all(found[name] for name in handwriting_names)
    assert all(found[name] for name in found if name.startswith("NotoSans"))  # the caption


def test_without_a_handwriting_font_typed_signatures_use_noto_sans_italic(
    fonts: FontLibrary,
) -> None:
    base = document(["Base"])
    rect = Rect(100, 500, 220, 50)
    out = stamp_pdf(
        base, [Stamp(0, rect, "signature", text="Ada Lovelace")], fonts=fonts, handwriting_font=None
    )

    assert_sound(out, template=base)
    assert in_rect(words(out)[0], rect) == "Ada Lovelace"
    assert embedded_fonts(out).get("NotoSans-Italic") is True


def test_characters_the_handwriting_font_lacks_fall_back_to_noto(
    fonts: FontLibrary, handwriting: Path
) -> None:
    base = document(["Base"])
    rect = Rect(100, 500, 300, 50)
    out = stamp_pdf(
        base,
        [Stamp(0, rect, "signature", text="Ада Лавлейс")],  # Cyrillic: not in Dancing Script
        fonts=fonts,
        handwriting_font=handwriting,
    )

    # Checked by the words' centres: poppler boxes the fallback's words with its own, taller,
    # ascent and descent, which the ink does not reach.
    page_words = words(out)[0]
    assert [w.text for w in page_words if inside(w.center, rect, 0)] == ["Ада", "Лавлейс"]
    assert all(inside(point, rect) for point in new_ink(base, out))
    assert any(name.startswith("NotoSans") for name in embedded_fonts(out))


def test_an_unusable_handwriting_font_is_refused_only_when_needed(
    fonts: FontLibrary, tmp_path: Path
) -> None:
    unusable = tmp_path / "not-a-font.ttf"
    unusable.write_bytes(b"OTTO" + b"\0" * 200)  # a CFF header reportlab cannot embed
    base = document(["Base"])
    rect = Rect(100, 500, 220, 50)
    with pytest.raises(HandwritingFontUnusable) as raised:
        stamp_pdf(
            base,
            [Stamp(0, rect, "signature", text="Ada Lovelace")],
            fonts=fonts,
            handwriting_font=unusable,
        )
    assert raised.value.code == "handwriting_font_unusable"

    drawn = stamp_pdf(
        base,
        [Stamp(0, rect, "signature", image_png=signature_png())],
        fonts=fonts,
        handwriting_font=unusable,
    )
    assert_sound(drawn, template=base)
