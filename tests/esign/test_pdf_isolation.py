"""Values inside the audit trail's sentences, and CJK punctuation (issue 49, items 3 and 4).

On an Arabic trail the document line "Invoice  (tpl-abc123.pdf, 1 page)" was drawn left to right
from its first (Latin) word, the bracket beside the Arabic word mirrored: it read
"(صفحة 1 ,Invoice (tpl-…pdf". Each value put into a sentence is now isolated (FSI ... PDI, as
<bdi> in HTML) and the sentence set in the page's direction (core.engine.fonts.shaping). On a
Japanese trail 、 and 。 came from Noto Sans Mongolian (the first fallback that has them), raised
and out of place: punctuation now goes with the CJK font of the text around it.

Read back from the drawn PDF: poppler's words with their places (visual order), pypdf's text
with the font of each drawn string, and qpdf --check."""

from __future__ import annotations

import io
import unicodedata
from dataclasses import replace
from pathlib import Path

import pytest
from django.utils import translation
from pypdf import PdfReader

from core.engine.fonts import FontLibrary
from core.engine.fonts.shaping import PDI, RLI, isolate, visual_line
from core.resources import font_library
from esign.engine.audit_trail import TrailAttachment, TrailDocument, draw_audit_trail
from esign.packets.audit import trail_labels
from tests.esign.test_audit_trail import trail
from tests.esign.test_pdf_languages import render
from tests.pdfcheck import fonts, poppler_words
from tests.pdfsound import assert_sound, qpdf_check


def drawn_trail(language: str) -> bytes:
    with translation.override(language):
        labels = trail_labels()
    base = trail(
        packet_name="Services (March)",
        labels=labels,
        documents=(TrailDocument("Invoice", "tpl-abc123.pdf", 1, "a" * 64, "b" * 64),),
        attachments=(
            TrailAttachment(
                "ID (front)", "id.png", "2 MB", "c" * 64, "Ada (QA)", "2026-03-04 05:06:00 UTC"
            ),
        ),
    )
    signer = replace(base.signers[0], name="Ada (QA)", events=base.signers[0].events[:3])
    return draw_audit_trail(replace(base, signers=(signer,)), fonts=font_library())


def drawn_line(pdf: bytes, part: str) -> str:
    """The first line of page 1 with ``part`` in it, as drawn from left to right (poppler's words
    by their places), joined Arabic letters folded back (NFKC)."""
    rows: dict[float, list] = {}
    for word in poppler_words(pdf):
        if word.page == 1:
            middle = (word.y_min + word.y_max) / 2  # fonts' boxes differ in height
            row = next((y for y in rows if abs(y - middle) < 3), middle)
            rows.setdefault(row, []).append(word)
    lines = [
        " ".join(unicodedata.normalize("NFKC", w.text) for w in sorted(row, key=lambda w: w.x_min))
        for _, row in sorted(rows.items())
    ]
    return next(line for line in lines if part in line)


def test_isolated_values_keep_their_brackets_in_a_right_to_left_sentence() -> None:
    sentence = f"{isolate('Invoice')}  ({isolate('tpl-abc123.pdf')}, 1 صفحة)"

    drawn = unicodedata.normalize("NFKC", visual_line(RLI + sentence + PDI))

    # Read from the right: the title, then the file name and the page count in brackets.
    assert drawn == "(ةحفص 1 ,tpl-abc123.pdf)  Invoice"
    # Without the marks the first (Latin) word made it a left-to-right line.
    plain = "Invoice  (tpl-abc123.pdf, 1 صفحة)"
    assert unicodedata.normalize("NFKC", visual_line(plain)).startswith("Invoice")
    # An isolate's own brackets stay its own, in a line of either direction; marks not drawn.
    assert visual_line(f"{RLI}أرفقه {isolate('Ada (QA)')}{PDI}").startswith("Ada (QA) ")
    assert visual_line(f"Signed by {isolate('Ada (QA)')}") == "Signed by Ada (QA)"
    # An isolate left open by a line's end ends there; a stray PDI is dropped.
    assert visual_line(f"{RLI}أ {isolate('x')}{PDI}{PDI}") == visual_line(f"{RLI}أ x")


def test_the_arabic_audit_trail_reads_its_sentences_from_the_right() -> None:
    pdf = drawn_trail("ar")

    # The document's line: the title at the right, the file name inside its brackets.
    assert drawn_line(pdf, "Invoice") == "(ةحفص 1 ,tpl-abc123.pdf) Invoice"
    # The attachment's lines: "ID (front)  (id.png, 2 MB)" and "Attached by Ada (QA), <time>".
    assert drawn_line(pdf, "(front)") == "(2 MB ,id.png) ID (front)"
    attached = drawn_line(pdf, "05:06:00")
    assert attached.endswith("Ada (QA) هقفرأ"), attached
    assert attached.startswith("2026-03-04 05:06:00 UTC ،"), attached
    page = render(pdf, "63-audit-trail-arabic-isolated")
    assert page.size == (612, 792)
    assert qpdf_check(pdf).returncode == 0
    assert_sound(pdf)


def test_the_english_audit_trail_is_unchanged_by_the_marks() -> None:
    pdf = drawn_trail("en")

    assert drawn_line(pdf, "Invoice") == "Invoice (tpl-abc123.pdf, 1 page)"
    assert drawn_line(pdf, "05:06:00") == "Attached by Ada (QA), 2026-03-04 05:06:00 UTC"
    # No mark is drawn (no glyph stands for one).
    text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)
    assert not any(mark in text for mark in "\u2066\u2067\u2068\u2069")


def glyph_fonts(pdf: bytes, characters: str) -> dict[str, set[str]]:
    """For each of ``characters``: the fonts of the drawn strings on page 1 that hold it."""
    found: dict[str, set[str]] = {char: set() for char in characters}

    def visit(text, _cm, _tm, font, _size) -> None:
        if font is None:
            return
        name = str(font["/BaseFont"]).split("+")[-1].lstrip("/")
        for char in characters:
            if char in text:
                found[char].add(name)

    PdfReader(io.BytesIO(pdf)).pages[0].extract_text(visitor_text=visit)
    return found


def test_japanese_punctuation_is_drawn_by_the_cjk_font_of_its_text() -> None:
    pdf = drawn_trail("ja")

    drawn = glyph_fonts(pdf, "、。")
    assert drawn == {"、": {"DroidSansFallback"}, "。": {"DroidSansFallback"}}
    assert not any("Mongolian" in name for name in fonts(pdf)), fonts(pdf)
    render(pdf, "64-audit-trail-japanese-punctuation")
    assert qpdf_check(pdf).returncode == 0


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> FontLibrary:
    def no_download(url: str) -> bytes:
        raise OSError("no catalog fonts in these tests")

    return FontLibrary(cache_dir=tmp_path_factory.mktemp("fonts"), download=no_download)


@pytest.mark.parametrize(
    "text",
    [
        "署名しました。",  # after kana: the run's font
        "「署名」、完了。",  # before kanji: the next letter's font
        "SHA-256。SHA-256",  # after Latin: a CJK font, not the first fallback with the glyph
        "OK、",
    ],
)
def test_cjk_punctuation_falls_back_to_a_cjk_font(library: FontLibrary, text: str) -> None:
    runs = library.split_runs(text, library.resolve("Noto Sans"))

    for face, part in runs:
        for char in part:
            if char in "、。「」":
                assert face.path is not None
                assert Path(face.path).name == "DroidSansFallbackFull.ttf", (char, face)
    assert "".join(part for _, part in runs) == text


def test_punctuation_every_script_has_is_not_moved(library: FontLibrary) -> None:
    # Latin punctuation after CJK still comes from the chosen face (Noto Sans), as before.
    runs = library.split_runs("完了, ok!", library.resolve("Noto Sans"))

    assert [(Path(f.path).name, part) for f, part in runs] == [  # type: ignore[arg-type]
        ("DroidSansFallbackFull.ttf", "完了"),
        ("NotoSans-Regular.ttf", ", ok!"),
    ]
