"""stamp_pdf and the document it stamps: the document's own text and annotations survive, a second
signer keeps the first signer's stamps, no stamps writes the document again; and the refusals
(every problem reported together, an oversized signature image, stamps that make no sense)."""

from __future__ import annotations

import io
from pathlib import Path

import pikepdf
import pytest
from PIL import Image

from core.engine.fonts import FontLibrary
from core.engine.template_spec import Rect
from esign.engine import Stamp, StampInvalid, stamp_pdf
from tests.esign.test_stamp import WIDTH, document, in_rect, signature_png
from tests.esign.test_stamp import fonts as fonts  # noqa: F401 - the fixture
from tests.esign.test_stamp import handwriting as handwriting  # noqa: F401 - the fixture
from tests.pdfcheck import words
from tests.pdfsound import assert_sound


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
