"""Filled values in Arabic and Hebrew read right to left, with joined Arabic letters, and CJK
values are drawn with a font that has them (issue 35, items 3 and 4): fill goes through the same
TextSetter as the stamps and the audit trail (core.engine.fonts.shaping)."""

from __future__ import annotations

import pytest

from tests.esign.test_pdf_languages import pdftotext, read_back
from tests.fill.test_fill_rules import plain
from tests.pdfcheck import fonts, poppler_words

__all__ = ["plain"]  # the fixture of tests.fill.test_fill_rules, used here too


@pytest.mark.parametrize(
    ("value", "font"),
    [
        ("عقد الخدمات", "NotoSansArabic-Regular"),
        ("הסכם שירותים", "NotoSansHebrew-Regular"),
        ("業務委託契約書", "DroidSansFallback"),
        ("서비스 계약서", "NanumGothic"),
    ],
)
def test_a_filled_value_in_any_script_reads_back(plain, fill, value, font) -> None:
    pdf = fill(plain, {"data": {"a": value}}).content

    assert value in read_back(pdf)
    assert font in fonts(pdf)


def test_a_filled_arabic_value_is_drawn_joined_and_from_the_right(plain, fill) -> None:
    pdf = fill(plain, {"data": {"a": "عقد 2026"}}).content

    assert "\ufecb\ufed8\ufeaa" in pdftotext(pdf)  # عقد in its joined forms
    [number] = [w for w in poppler_words(pdf) if w.text == "2026"]
    [word] = [w for w in poppler_words(pdf) if w.text != "2026"]
    assert word.x_min > number.x_max  # read from the right: the word, then the number
