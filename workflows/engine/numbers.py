"""Numbers as the page's reader writes them: "15,5" on a Spanish or German page is fifteen and a
half, "1.234,5" on a German one and "1 234,5" on a French one are one thousand two hundred and
thirty-four and a half; the stored value is the same number whatever the page's language.

The page's conventions (its decimal and grouping separators) are a parameter, chosen at the edge
from the page's language (workflows.languages); this module knows no locale database. A number
written the reader's way is turned into the canonical form the rules read (1234.5); anything else
is left as it was, so the canonical form (what the API sends, what an English page shows) is
still read as before. Arabic-Indic digits and the Arabic separators are read too.
Pure Python (no Django); checks.js applies the same reading in the browser.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal

SPACES = " \u00a0\u202f"  # space, no-break space, narrow no-break space: one grouping separator
_DIGITS = str.maketrans("٠١٢٣٤٥٦٧٨٩۰۱۲۳۴۵۶۷۸۹٫٬", "01234567890123456789.,")


@dataclass(frozen=True)
class NumberFormat:
    """How the page's reader writes a number: the decimal separator and the grouping one; and,
    to write a price or a percentage, where the language puts "$" and "%" ("{}" the number)."""

    decimal: str = "."
    group: str = ","
    money: str = "${}"
    percent: str = "{}%"

    @classmethod
    def of(
        cls, decimal: str, group: str, *, money: str = "${}", percent: str = "{}%"
    ) -> NumberFormat:
        """From a locale's separators; an empty or space-like grouping is any space, a locale
        without one groups by "," when its decimal is "." (Chinese)."""
        if group.strip(SPACES) == "":
            group = "," if decimal == "." and not group else " "
        return cls(decimal, group, money, percent)

    def as_browser_rule(self) -> dict[str, str]:
        return {"decimal": self.decimal, "group": self.group}


ENGLISH = NumberFormat()


def _pattern(number_format: NumberFormat) -> re.Pattern[str]:
    group = (
        f"[{re.escape(SPACES)}]" if number_format.group == " " else re.escape(number_format.group)
    )
    return re.compile(
        rf"^([-+]?)(\d{{1,3}}(?:{group}\d{{3}})+|\d+)?(?:{re.escape(number_format.decimal)}(\d+))?$"
    )


def canonical_number(text: str, number_format: NumberFormat) -> str:
    """``text`` in the form the rules read ("1234.5") when it is a number written the reader's
    way; otherwise ``text`` as it was (for the rules to read in the canonical form, or refuse)."""
    written = text.strip().translate(_DIGITS)
    if number_format.decimal == "." and number_format.group == ",":
        return written
    match = _pattern(number_format).match(written)
    if match is None or not any(c.isdigit() for c in written):
        return written
    sign, whole, fraction = match.groups()
    digits = re.sub(r"\D", "", whole or "") or "0"
    return f"{sign}{digits}.{fraction}" if fraction else f"{sign}{digits}"


def written_number(
    value: float | int,
    number_format: NumberFormat,
    *,
    decimals: int | None = None,
    grouped: bool = False,
) -> str:
    """``value`` written the reader's way, as canonical_number reads it back: "15,5" on a German
    page. ``decimals``: that many digits after the separator (a price's two), else as few as
    the number needs; ``grouped``: thousands grouped ("1.234,5"; a space is written as a
    no-break space), for reading rather than for an input."""
    if not math.isfinite(value):
        return str(value)
    text = f"{value:.{decimals}f}" if decimals is not None else _plain(value)
    sign = "-" if text.startswith("-") else ""
    whole, _, fraction = text.lstrip("-").partition(".")
    if grouped:
        group = "\u00a0" if number_format.group == " " else number_format.group
        whole = f"{int(whole):,}".replace(",", group)
    return sign + whole + (number_format.decimal + fraction if fraction else "")


def _plain(value: float | int) -> str:
    """The shortest digits that are ``value`` ("15.5", "3", "0.0001"), never an exponent."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        return str(value)
    text = repr(value)
    if "e" in text or "E" in text:
        text = format(Decimal(text), "f")
    return text


def written_money(value: float | int, number_format: NumberFormat) -> str:
    """A price as the reader's language writes it: "$1,234.50", "1.234,50 $" (German); the
    minus sign before it all ("-$5.00")."""
    amount = written_number(abs(value), number_format, decimals=2, grouped=True)
    return ("-" if value < 0 else "") + number_format.money.format(amount)


def written_percent(value: float | int, number_format: NumberFormat) -> str:
    """A percentage as the reader's language writes it: "15.5%", "15,5 %" (German)."""
    return number_format.percent.format(written_number(value, number_format, grouped=True))
