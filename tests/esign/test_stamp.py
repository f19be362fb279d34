"""stamp_pdf: signatures, initials, text, dates and ticks drawn onto documents, with no database.

Documents are made here with reportlab (then pikepdf gives them their shape), drawn signatures
with Pillow. Every output must pass the structural check (tests/pdfsound.py); where a stamp
lands is read back as words (poppler) and as the pixels it inked (pdftoppm at 72 dpi, one
pixel a point), on the page as it is displayed.
"""

from __future__ import annotations

import io
from pathlib import Path

import pikepdf
import pytest
from PIL import Image, ImageDraw
from reportlab.pdfgen.canvas import Canvas

from core.engine.fonts import FontLibrary
from core.engine.template_spec import Rect
from esign.engine import HandwritingFontUnusable, Stamp, StampInvalid, stamp_pdf
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


# --- what the document had, and signers one after another -------------------------------------------
def test_the_documents_own_text_and_annotations_survive(fonts: FontLibrary) -> None:
    pdf = pikepdf.open(io.BytesIO(document(["Terms and conditions", "Second page"])))
    link = pdf.make_indirect(
        pikepdf.Dictionary(
            Type=pikepdf.Name.Annot,
            Subtype=pikepdf.Name.Link,
            Rect=pikepdf.Array([72, 715, 200, 735]),
            A=pikepdf.Dictionary(S=pikepdf.Name.URI, URI=pikepdf.String("https://example.org/")),
        )
    )
    pdf.pages[0].Annots = pikepdf.Array([link])
    buffer = io.BytesIO()
    pdf.save(buffer)
    base = buffer.getvalue()

    out = stamp_pdf(
        base,
        [Stamp(0, Rect(100, 500, 200, 40), "signature", image_png=signature_png())],
        fonts=fonts,
        handwriting_font=None,
    )

    assert_sound(out, template=base)
    pages = words(out)
    assert "Terms and conditions" in in_rect(pages[0], Rect(0, 700, WIDTH, 40))
    assert [w.text for w in pages[1]] == ["Second", "page"]
    with pikepdf.open(io.BytesIO(out)) as stamped:
        (annotation,) = list(stamped.pages[0].Annots)
        assert annotation.Subtype == "/Link"
        assert str(annotation.A.URI) == "https://example.org/"
        assert [float(v) for v in annotation.Rect] == [72, 715, 200, 735]
        assert "/XObject" not in stamped.pages[1].Resources  # no stamp, no overlay


def test_a_second_signer_keeps_the_first_signers_stamps(
    fonts: FontLibrary, handwriting: Path
) -> None:
    base = document(["Agreement"])
    first_rect, second_rect = Rect(100, 500, 200, 40), Rect(320, 500, 200, 40)
    first = stamp_pdf(
        base,
        [
            Stamp(0, first_rect, "signature", text="Ada Lovelace"),
            Stamp(0, Rect(100, 470, 120, 20), "date", text="2026-11-23"),
        ],
        fonts=fonts,
        handwriting_font=handwriting,
    )
    second = stamp_pdf(
        first,
        [
            Stamp(0, second_rect, "signature", text="Charles Babbage"),
            Stamp(0, Rect(320, 470, 120, 20), "date", text="2026-11-24"),
        ],
        fonts=fonts,
        handwriting_font=handwriting,
    )

    assert_sound(second, template=base)
    page_words = words(second)[0]
    assert in_rect(page_words, first_rect) == "Ada Lovelace"
    assert in_rect(page_words, second_rect) == "Charles Babbage"
    assert in_rect(page_words, Rect(100, 470, 120, 20)) == "2026-11-23"
    assert in_rect(page_words, Rect(320, 470, 120, 20)) == "2026-11-24"
    with pikepdf.open(io.BytesIO(second)) as stamped:
        names = sorted(stamped.pages[0].Resources.XObject.keys())
    assert names == ["/DocAutomationStamp", "/DocAutomationStamp1"]


# --- refusals --------------------------------------------------------------------------------------
def test_every_problem_of_every_stamp_is_reported_together(fonts: FontLibrary) -> None:
    base = document(["Only page"])
    transparent = io.BytesIO()
    Image.new("RGBA", (50, 20), (0, 0, 0, 0)).save(transparent, format="PNG")
    jpeg = io.BytesIO()
    Image.new("RGB", (50, 20)).save(jpeg, format="JPEG")
    stamps = [
        Stamp(0, Rect(100, 500, 200, 40), "date", text="ok"),
        Stamp(3, Rect(100, 500, 200, 40), "date", text="no such page"),
        Stamp(0, Rect(100, 500, 0, 40), "text", text="no area"),
        Stamp(0, Rect(100, 500, 200, 40), "signature", image_png=b"\x89PNG broken"),
        Stamp(0, Rect(100, 500, 200, 40), "initial", image_png=transparent.getvalue()),
        Stamp(0, Rect(100, 500, 200, 40), "signature", image_png=jpeg.getvalue()),
    ]
    with pytest.raises(StampInvalid) as raised:
        stamp_pdf(base, stamps, fonts=fonts, handwriting_font=None)

    assert raised.value.code == "invalid"
    assert [(p.path, p.message) for p in raised.value.problems] == [
        ("stamps.1.page", "The document has 1 page(s)."),
        ("stamps.2.rect", "The rect has no area."),
        ("stamps.3.image_png", "The signature image is not a readable PNG."),
        ("stamps.4.image_png", "The signature image is empty."),
        ("stamps.5.image_png", "The signature image is not a readable PNG."),
    ]


def test_an_oversized_signature_image_is_refused(fonts: FontLibrary) -> None:
    huge = io.BytesIO()
    Image.new("LA", (4000, 2001)).save(huge, format="PNG")  # 8,004,000 pixels, a small file
    with pytest.raises(StampInvalid) as raised:
        stamp_pdf(
            document(["Base"]),
            [Stamp(0, Rect(100, 500, 200, 40), "signature", image_png=huge.getvalue())],
            fonts=fonts,
            handwriting_font=None,
        )
    assert [p.message for p in raised.value.problems] == ["The signature image is too large."]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"kind": "stamp"}, "unknown stamp kind"),
        ({"kind": "signature"}, "exactly one of text and image_png"),
        ({"kind": "signature", "text": "A", "image_png": b"png"}, "exactly one"),
        ({"kind": "text"}, "needs its text"),
        ({"kind": "date", "image_png": b"png", "text": "x"}, "has no image"),
        ({"kind": "checkbox", "text": "x"}, "has no text"),
        ({"kind": "text", "text": "x", "checked": True}, "only a checkbox"),
        ({"kind": "date", "text": "x", "caption": "Signed"}, "caption"),
    ],
)
def test_stamps_that_make_no_sense_are_a_programming_error(arguments: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Stamp(page=0, rect=Rect(0, 0, 10, 10), **arguments)


def test_no_stamps_and_no_mark_writes_the_document_again(fonts: FontLibrary) -> None:
    base = document(["Untouched"])
    out = stamp_pdf(base, [], fonts=fonts, handwriting_font=None)

    assert_sound(out, template=base)
    assert [w.text for w in words(out)[0]] == ["Untouched"]
    with pikepdf.open(io.BytesIO(out)) as pdf:
        assert "/XObject" not in pdf.pages[0].Resources
