"""The glyph remover on real PDFs written by others (government forms, a LibreOffice form, PDFlib
and qpdf test files, a WeasyPrint invoice): a word taken out is gone, and every other word is
still read where it was.

The word and the boxes come from poppler (pdftotext -bbox), which the remover does not use.
"""

from __future__ import annotations

from collections import Counter

import pytest

from core.engine.template_spec import Rect
from templates_app.engine.text_redact import remove_glyphs
from templates_app.engine.text_tags import apply_text_tags
from tests.fixtures import PDFS
from tests.pdfcheck import PopplerWord, poppler_words
from tests.pdfsound import assert_sound

# Pages shown as they are stored (no /Rotate, no offset crop box): poppler's boxes are the
# page's own coordinates.
UPRIGHT = [
    "ca-cra-b300-cannabis-duty.pdf",
    "irs-fw4-2022.pdf",
    "irs-fw9-2018.pdf",
    "libreoffice-form.pdf",
    "pdflib-fancy-fields.pdf",
    "qpdf-field-types.pdf",
    "tpl-weasyprint-invoice-a4.pdf",
]


def _seen(words: list[PopplerWord]) -> Counter[tuple[str, float, float]]:
    return Counter((w.text, round(w.x_min, 1), round(w.y_min, 1)) for w in words if w.page == 1)


@pytest.mark.parametrize("name", UPRIGHT)
def test_a_word_taken_out_is_gone_and_the_others_stay(name: str) -> None:
    data = (PDFS / name).read_bytes()
    before = poppler_words(data)
    candidates = [w for w in before if w.page == 1 and len(w.text) >= 6 and w.text.isalpha()]
    word = candidates[len(candidates) // 2]
    box = Rect(word.x_min, word.page_height - word.y_max, word.x_max - word.x_min, word.y_max - word.y_min)  # fmt: skip

    out = remove_glyphs(data, {0: [box]})

    assert_sound(out, template=data)
    expected = _seen(before)
    expected[(word.text, round(word.x_min, 1), round(word.y_min, 1))] -= 1
    assert _seen(poppler_words(out)) == +expected


@pytest.mark.parametrize("name", sorted(p.name for p in PDFS.glob("*.pdf")))
def test_pdfs_without_tags_come_back_unchanged(name: str) -> None:
    data = (PDFS / name).read_bytes()

    tagged = apply_text_tags(data)

    assert tagged.fields == ()
    assert tagged.problems == ()
    assert tagged.pdf is data
