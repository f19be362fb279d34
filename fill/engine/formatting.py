"""Turning a normalized value into what is drawn, by the rules of the field's type."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import phonenumbers

from core.engine.template_spec import FieldSpec
from fill.engine.payload import EMPTY
from fill.engine.values import PhoneValue

MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
DEFAULT_DATE_PATTERN = "MM/DD/YYYY"
_DATE_TOKENS = re.compile(r"YYYY|YY|MMMM|MMM|MM|M|dddd|ddd|DD|D")
_PAGE_VARIABLE = re.compile(
    r"\{\{\s*(pageNumber|pageIndex|totalPages|pageRepeatNumber|pageRepeatIndex|pageRepeatTotal)\s*\}\}"
)


@dataclass(frozen=True)
class Content:
    """What one field shows. Exactly one of the groups below is used, by ``kind``."""

    kind: str  # text | parts | boxes | check | radio | image | empty
    text: str = ""
    parts: tuple[tuple[str, str], ...] = ()
    boxes: tuple[str, ...] = ()
    flag: bool = False
    option: str = ""
    url: str = ""


@dataclass(frozen=True)
class PageNumbers:
    page_number: int
    total_pages: int
    repeat_number: int
    repeat_total: int

    def substitute(self, text: str) -> str:
        values = {
            "pageNumber": self.page_number,
            "pageIndex": self.page_number - 1,
            "totalPages": self.total_pages,
            "pageRepeatNumber": self.repeat_number,
            "pageRepeatIndex": self.repeat_number - 1,
            "pageRepeatTotal": self.repeat_total,
        }
        return _PAGE_VARIABLE.sub(lambda m: str(values[m.group(1)]), text)


def format_date(value: date, pattern: str | None) -> str:
    def token(match: re.Match[str]) -> str:
        t = match.group(0)
        return {
            "YYYY": f"{value.year:04d}",
            "YY": f"{value.year % 100:02d}",
            "MMMM": MONTHS[value.month - 1],
            "MMM": MONTHS[value.month - 1][:3],
            "MM": f"{value.month:02d}",
            "M": str(value.month),
            "dddd": WEEKDAYS[value.weekday()],
            "ddd": WEEKDAYS[value.weekday()][:3],
            "DD": f"{value.day:02d}",
            "D": str(value.day),
        }[t]

    return _DATE_TOKENS.sub(token, pattern or DEFAULT_DATE_PATTERN)


def format_decimal(
    value: Decimal, *, decimals: int | None, thousands: str = ",", point: str = "."
) -> str:
    if decimals is not None:
        value = value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    text = format(abs(value), "f")
    whole, _, fraction = text.partition(".")
    groups: list[str] = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    groups.insert(0, whole)
    out = thousands.join(groups) + (point + fraction if fraction else "")
    return ("-" if value < 0 and value != 0 else "") + out


def format_number(field: FieldSpec, value: Decimal) -> str:
    fmt = field.format
    kind = field.type
    default_decimals = {"dollar": 2, "integer": 0}.get(kind)
    decimals = fmt.get("decimals", default_decimals)
    body = format_decimal(
        abs(value),
        decimals=0 if kind == "integer" else decimals,
        thousands=fmt.get("thousandsSeparator", ","),
        point=fmt.get("decimalSeparator", "."),
    )
    sign = "-" if value < 0 else ""
    if kind == "dollar":
        return f"{sign}{fmt.get('currencySymbol', '$')}{body}"
    if kind == "percent":
        return f"{sign}{body}%"
    return sign + body


def _national_groups(phone: PhoneValue) -> tuple[str, str, str] | None:
    """(area, exchange, line) for the 10-digit plans of +1 and +52; None for others."""
    digits = phonenumbers.national_significant_number(phone.number)
    if phone.number.country_code in (1, 52) and len(digits) == 10:
        return digits[:3], digits[3:6], digits[6:]
    return None


def format_phone(phone: PhoneValue) -> str:
    local = phone.region == phone.base_region
    code = phone.number.country_code
    groups = _national_groups(phone)
    if groups and code == 1:
        text = f"({groups[0]}) {groups[1]}-{groups[2]}"
        return text if local else f"+1 {text}"
    if groups and code == 52:
        text = " ".join(groups)
        return text if local else f"+52 {text}"
    number_format = (
        phonenumbers.PhoneNumberFormat.NATIONAL
        if local
        else phonenumbers.PhoneNumberFormat.INTERNATIONAL
    )
    return phonenumbers.format_number(phone.number, number_format)


def phone_parts(phone: PhoneValue) -> dict[str, str]:
    groups = _national_groups(phone)
    if groups:
        area, exchange, line = groups
    else:
        digits = phonenumbers.national_significant_number(phone.number)
        split = phonenumbers.length_of_national_destination_code(phone.number) or 0
        area, exchange, line = digits[:split], digits[split:], ""
    return {
        "countryCode": f"+{phone.number.country_code}",
        "areaCode": area,
        "exchange": exchange,
        "line": line,
    }


def one_line(field: FieldSpec, value: Any) -> str:
    """The single-box text of every type that shows as text."""
    kind = field.type
    if kind == "ssn":
        return f"{value[:3]}-{value[3:5]}-{value[5:]}"
    if kind == "ein":
        return f"{value[:2]}-{value[2:]}"
    if kind == "date":
        return format_date(value, field.format.get("pattern"))
    if kind in ("number", "dollar", "integer", "percent"):
        return format_number(field, value)
    if kind == "phone":
        return format_phone(value)
    if kind == "fullName":
        return " ".join(value[p] for p in ("firstName", "mi", "lastName") if value.get(p))
    if kind == "usAddress":
        # One box has no street2 or country box, so those parts are not shown (spec).
        state_zip = " ".join(value[p] for p in ("state", "zip") if value.get(p))
        pieces = [value.get("street1", ""), value.get("city", ""), state_zip]
        return ", ".join(p for p in pieces if p)
    return value


def content_for(field: FieldSpec, value: Any, numbers: PageNumbers) -> Content:
    kind = field.type
    if value is EMPTY:
        return Content("empty")
    if kind == "checkbox":
        return Content("check", flag=value)
    if kind == "radioGroup":
        return Content("radio", option=value)
    if kind == "imageFile":
        return Content("image", url=value)
    if kind == "charList":
        return Content("boxes", boxes=tuple(value))
    if kind == "textWrap":
        return Content("boxes", boxes=value)
    if field.parts:
        parts = phone_parts(value) if kind == "phone" else value
        return Content("parts", parts=tuple((name, parts.get(name, "")) for name, _ in field.parts))
    text = one_line(field, value)
    if kind in ("shortText", "longText"):
        text = numbers.substitute(text)
    return Content("text", text=text)
