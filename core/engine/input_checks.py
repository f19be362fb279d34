"""What text and whole numbers a request may bring, wherever it enters: one definition, applied
where requests are parsed (JSON and multipart bodies, GraphQL literals, URL paths, form posts).

PostgreSQL refuses NUL in text and in JSON, and a lone UTF-16 surrogate (JSON's ``"\\ud800"``)
is not a character that UTF-8 can hold; SQLite stores both. Without one rule at the door, the same
request was stored on one database and a 500 on the other. The other C0 control characters have
no use in a document, an address or an identifier (an escape character in an email address went
out in the mail), so text refuses them too, except tab, line feed and carriage return, which
multi-line text uses. Single-line text (what becomes an email header, a file name, a name) refuses
line breaks of every kind as well.

Whole numbers are bounded by the column they are stored in (or compared with): PostgreSQL's
ranges, which SQLite's 64-bit integers include, so both databases refuse the same values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# NUL and the C0 control characters but tab (\x09), line feed (\x0a) and carriage return (\x0d).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
# One line: no C0 or C1 control character at all (line breaks included), no Unicode line or
# paragraph separator.
_NOT_ONE_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")

CONTROL_MESSAGE = (
    "Must not contain control characters (NUL and the like); only tab and line breaks are "
    "allowed in text."
)
LINE_MESSAGE = "Must be one line, without line breaks or control characters."
LONE_SURROGATE_MESSAGE = (
    "The text holds a lone surrogate (\\ud800-\\udfff), which is not a character: send UTF-8 "
    "text, or surrogates only in pairs."
)


def has_lone_surrogate(text: str) -> bool:
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be taken as text of any kind (None: it can)."""
    if has_lone_surrogate(text):
        return LONE_SURROGATE_MESSAGE
    if _CONTROL.search(text):
        return CONTROL_MESSAGE
    return None


def line_problem(text: str) -> str | None:
    """Why ``text`` cannot be taken as one line of text (None: it can)."""
    if has_lone_surrogate(text):
        return LONE_SURROGATE_MESSAGE
    if _NOT_ONE_LINE.search(text):
        return LINE_MESSAGE
    return None


def length_problem(text: str, field: Any) -> str | None:
    """Why ``text`` does not fit a model's character ``field`` (its ``max_length``): SQLite
    stores a longer value, PostgreSQL refuses it."""
    limit = field.max_length
    if limit is not None and len(text) > limit:
        return f"Use at most {limit} characters."
    return None


@dataclass(frozen=True)
class IntRange:
    """The whole numbers from ``low`` to ``high``, both included."""

    low: int
    high: int

    def __contains__(self, value: object) -> bool:
        return is_whole_number(value) and self.low <= value <= self.high  # type: ignore[operator]

    def problem(self) -> str:
        return f"Must be a whole number from {self.low} to {self.high}."


def is_whole_number(value: object) -> bool:
    """A JSON integer (a boolean is not one, though Python counts it as an int)."""
    return isinstance(value, int) and not isinstance(value, bool)


# The range of each integer column type, by Django's internal type name: PostgreSQL's (Django's
# own table, BaseDatabaseOperations.integer_field_ranges), which SQLite's 64-bit integers include.
INT32 = IntRange(-(2**31), 2**31 - 1)
INT64 = IntRange(-(2**63), 2**63 - 1)
COLUMN_RANGES: dict[str, IntRange] = {
    "SmallIntegerField": IntRange(-(2**15), 2**15 - 1),
    "IntegerField": INT32,
    "BigIntegerField": INT64,
    "PositiveSmallIntegerField": IntRange(0, 2**15 - 1),
    "PositiveIntegerField": IntRange(0, 2**31 - 1),
    "PositiveBigIntegerField": IntRange(0, 2**63 - 1),
    "SmallAutoField": IntRange(1, 2**15 - 1),
    "AutoField": IntRange(1, 2**31 - 1),
    "BigAutoField": IntRange(1, 2**63 - 1),
}


def column_range(field: Any, *, low: int | None = None) -> IntRange:
    """The whole numbers a model's integer ``field`` holds (anything with Django's
    ``get_internal_type``), from ``low`` when the service wants fewer (an order from 1)."""
    full = COLUMN_RANGES[field.get_internal_type()]
    return IntRange(full.low if low is None else max(low, full.low), full.high)
