"""Numbers written back as the page's language writes them (issue 49, item 5): an input after
Back and the answers page showed 15.5 as "15.5" and a price as "$1,234.50" on German, French and
Arabic pages, which read "15,5" as the number. Written with the page's separators (Django's
locale formats, as the page reads them: workflows.pages.numbers), a price with "$" where the
language puts it; what is written reads back as the same number. The browser's side is
tests/workflows/test_reader_text_browser.py."""

from __future__ import annotations

import pytest
from django.utils import translation

from workflows.engine.defs import FieldDef
from workflows.engine.form_inputs import form_strings
from workflows.engine.numbers import (
    ENGLISH,
    canonical_number,
    written_money,
    written_number,
    written_percent,
)
from workflows.engine.resolve import answer_text
from workflows.pages.numbers import page_number_format


def page_format(language: str):
    with translation.override(language):
        return page_number_format()


@pytest.mark.parametrize(
    ("language", "number", "grouped", "money", "percent"),
    [
        ("en", "15.5", "1,234.5", "$1,234.50", "15.5%"),
        ("ja", "15.5", "1,234.5", "$1,234.50", "15.5%"),
        ("de", "15,5", "1.234,5", "1.234,50\xa0$", "15,5\xa0%"),
        ("fr", "15,5", "1\xa0234,5", "1\xa0234,50\xa0$", "15,5\xa0%"),
        ("ar", "15,5", "1.234,5", "1.234,50\xa0$", "15,5%"),
        ("pt-br", "15,5", "1.234,5", "$\xa01.234,50", "15,5%"),
    ],
)
def test_numbers_written_as_the_page_writes_them(language, number, grouped, money, percent):
    number_format = page_format(language)

    assert written_number(15.5, number_format) == number
    assert written_number(1234.5, number_format, grouped=True) == grouped
    assert written_money(1234.5, number_format) == money
    assert written_percent(15.5, number_format) == percent
    # What the page shows reads back as the same number.
    assert canonical_number(number, number_format) == "15.5"
    # (an English page's canonical form is read by the rules as it is, grouping and all)
    assert canonical_number(grouped, number_format) in ("1234.5", "1,234.5")


def test_odd_numbers_are_written_whole() -> None:
    assert written_number(3.0, ENGLISH) == "3"
    assert written_number(1e-7, ENGLISH) == "0.0000001"  # never an exponent
    assert written_number(-1234567.25, page_format("de"), grouped=True) == "-1.234.567,25"
    assert written_money(-5, ENGLISH) == "-$5.00"


@pytest.mark.parametrize(
    ("kind", "value", "german"),
    [("number", 15.5, "15,5"), ("dollar", 1234.5, "1234,50"), ("dollar", 20, "20"),
     ("percent", 7.25, "7,25"), ("integer", 1990, "1990")],
)  # fmt: skip
def test_an_input_after_back_holds_the_number_the_page_way(kind, value, german) -> None:
    field = FieldDef(key="x", type=kind, label="X")

    assert form_strings(field, value, page_format("de")) == {"x": german}
    assert form_strings(field, value)["x"] == german.replace(",", ".")  # the canonical form
    assert form_strings(field, "15,5 typed") == {"x": "15,5 typed"}  # a draft: as typed


def test_the_answers_page_writes_numbers_the_page_way() -> None:
    german = page_format("de")

    assert answer_text(
        FieldDef(key="a", type="dollar", label="A"), 1234.5, number_format=german
    ) == ("1.234,50\xa0$")
    assert answer_text(FieldDef(key="n", type="number", label="N"), 15.5, number_format=german) == (
        "15,5"
    )
    assert answer_text(
        FieldDef(key="p", type="percent", label="P"), 15.5, number_format=german
    ) == ("15,5\xa0%")
    assert answer_text(FieldDef(key="q", type="integer", label="Q"), 2) == "2"
    assert answer_text(FieldDef(key="a", type="dollar", label="A"), 99.5) == "$99.50"
