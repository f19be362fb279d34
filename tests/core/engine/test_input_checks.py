"""What text and whole numbers a request may bring (core.engine.input_checks)."""

from __future__ import annotations

import pytest

from core.engine.input_checks import (
    CONTROL_MESSAGE,
    INT32,
    LINE_MESSAGE,
    LONE_SURROGATE_MESSAGE,
    IntRange,
    column_range,
    length_problem,
    line_problem,
    text_problem,
)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("Ada Lovelace", None),
        ("two\nlines\r\nand a\ttab", None),
        ("émoji 😀, RTL \u202e, NEL \x85", None),
        ("", None),
        ("nul\x00", CONTROL_MESSAGE),
        ("\x1b[31mred", CONTROL_MESSAGE),
        ("vertical\x0btab", CONTROL_MESSAGE),
        ("form\x0cfeed", CONTROL_MESSAGE),
        ("\x1f", CONTROL_MESSAGE),
        ("half \ud800 a pair", LONE_SURROGATE_MESSAGE),
        ("\udfff", LONE_SURROGATE_MESSAGE),
    ],
)
def test_text(text: str, problem: str | None) -> None:
    assert text_problem(text) == problem


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("Ada Lovelace", None),
        ("Ada\nLovelace", LINE_MESSAGE),
        ("Ada\rLovelace", LINE_MESSAGE),
        ("Ada\tLovelace", LINE_MESSAGE),
        ("NEL\x85", LINE_MESSAGE),
        ("DEL\x7f", LINE_MESSAGE),
        ("separator\u2028", LINE_MESSAGE),
        ("nul\x00", LINE_MESSAGE),
        ("\ud800", LONE_SURROGATE_MESSAGE),
    ],
)
def test_one_line(text: str, problem: str | None) -> None:
    assert line_problem(text) == problem


class Field:
    def __init__(self, internal_type: str, max_length: int | None = None) -> None:
        self.internal_type = internal_type
        self.max_length = max_length

    def get_internal_type(self) -> str:
        return self.internal_type


def test_column_ranges_are_postgresqls() -> None:
    assert column_range(Field("IntegerField")) == INT32 == IntRange(-(2**31), 2**31 - 1)
    assert column_range(Field("PositiveIntegerField"), low=1) == IntRange(1, 2**31 - 1)
    assert column_range(Field("PositiveSmallIntegerField")) == IntRange(0, 32767)
    assert column_range(Field("BigIntegerField")) == IntRange(-(2**63), 2**63 - 1)


@pytest.mark.parametrize(
    ("value", "inside"),
    [(1, True), (2**31 - 1, True), (2**31, False), (0, False), (-1, False), (2**63, False)]
    + [(True, False), (1.0, False), ("1", False), (None, False), ([1], False)],
)
def test_a_range_holds_whole_numbers_only(value: object, inside: bool) -> None:
    assert (value in IntRange(1, 2**31 - 1)) is inside


def test_length_by_the_column() -> None:
    assert length_problem("x" * 254, Field("CharField", 254)) is None
    assert length_problem("x" * 255, Field("CharField", 254)) == "Use at most 254 characters."
    assert length_problem("x" * 10_000, Field("TextField")) is None
