"""CSS lengths as the spec allows them in ``page``: a number and one of eight units.

Values are parsed and re-serialised (never copied into CSS as given), so a page setting cannot
smuggle other CSS into the document.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

UNITS = ("mm", "cm", "in", "px", "em", "rem", "pt", "pc")
_LENGTH_RE = re.compile(r"(\d+(?:\.\d+)?|\.\d+)([a-z]+)?", re.IGNORECASE)
# Inches per unit. em and rem resolve against the page's default font size of 16px.
_INCHES = {
    "mm": 1 / 25.4,
    "cm": 1 / 2.54,
    "in": 1.0,
    "px": 1 / 96,
    "pt": 1 / 72,
    "pc": 1 / 6,
    "em": 16 / 96,
    "rem": 16 / 96,
}
UNITS_TEXT = ", ".join(UNITS)


class LengthError(ValueError):
    """A value that is not a length in an allowed unit; the message is meant for the caller."""


@dataclass(frozen=True)
class Length:
    value: float
    unit: str

    @property
    def inches(self) -> float:
        return self.value * _INCHES[self.unit]

    def css(self) -> str:
        number = f"{self.value:.4f}".rstrip("0").rstrip(".")
        return f"{number}{self.unit}" if self.value else "0"


def parse_length(value: object) -> Length:
    """One non-negative length such as ``"8.5in"`` or ``"20mm"``; ``"0"`` needs no unit."""
    if not isinstance(value, str):
        raise LengthError(f"Must be a string: a number and a unit ({UNITS_TEXT}).")
    text = value.strip()
    match = _LENGTH_RE.fullmatch(text)
    if match is None:
        raise LengthError(f"Must be a number and a unit ({UNITS_TEXT}), e.g. 0.5in.")
    number, unit = float(match.group(1)), (match.group(2) or "").lower()
    if not unit:
        if number == 0:
            return Length(0.0, "px")
        raise LengthError(f"A unit is required ({UNITS_TEXT}).")
    if unit not in _INCHES:
        raise LengthError(f'Unit "{match.group(2)}" is not supported; use one of {UNITS_TEXT}.')
    return Length(number, unit)


def parse_margin_shorthand(value: object) -> tuple[Length, Length, Length, Length]:
    """CSS margin shorthand with 1 to 4 lengths -> (top, right, bottom, left)."""
    if not isinstance(value, str):
        raise LengthError(f"Must be a string of 1 to 4 lengths ({UNITS_TEXT}).")
    parts = value.split()
    if not 1 <= len(parts) <= 4:
        raise LengthError(f"Must be 1 to 4 lengths separated by spaces ({UNITS_TEXT}).")
    lengths = [parse_length(part) for part in parts]
    if len(lengths) == 1:
        return lengths[0], lengths[0], lengths[0], lengths[0]
    if len(lengths) == 2:
        return lengths[0], lengths[1], lengths[0], lengths[1]
    if len(lengths) == 3:
        return lengths[0], lengths[1], lengths[2], lengths[1]
    return lengths[0], lengths[1], lengths[2], lengths[3]
