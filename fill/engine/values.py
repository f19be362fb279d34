"""Checking one value against its field type, and normalizing it (the spec's type table)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

import phonenumbers

from core.engine.field_types import PHONE_REGIONS
from core.engine.template_spec import FieldSpec

TEXT_LIMIT = 20_000  # characters in one value; a page cannot show more
NINE_DIGITS = re.compile(r"^\d{9}$")
ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?$")
NAME_PARTS = ("firstName", "mi", "lastName")
ADDRESS_PARTS = ("street1", "street2", "city", "state", "zip", "country")


@dataclass(frozen=True)
class PhoneValue:
    number: phonenumbers.PhoneNumber
    region: str
    base_region: str


def _text(raw: Any, what: str = "a string") -> str:
    if isinstance(raw, bool) or raw is None:
        raise ValueError(f"Must be {what}.")
    if isinstance(raw, int | float):
        return format(raw, "g") if isinstance(raw, float) else str(raw)
    if not isinstance(raw, str):
        raise ValueError(f"Must be {what}.")
    if len(raw) > TEXT_LIMIT:
        raise ValueError(f"At most {TEXT_LIMIT} characters.")
    return raw


def _digits9(raw: Any, kind: str) -> str:
    text = _text(raw, f"a string of 9 digits ({kind})")
    digits = re.sub(r"[\s-]", "", text)
    if not NINE_DIGITS.match(digits):
        raise ValueError(f"Must be a string of 9 digits ({kind}).")
    return digits


def _date(raw: Any) -> date:
    match = ISO_DATE.match(raw) if isinstance(raw, str) else None
    if match is None:
        raise ValueError("Must be a date as YYYY-MM-DD.")
    try:
        return date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        raise ValueError("Must be a real date as YYYY-MM-DD.") from None


def _number(raw: Any) -> Decimal:
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise ValueError("Must be a number.")
    try:
        value = (
            Decimal(str(raw).strip().replace(",", ""))
            if isinstance(raw, str)
            else Decimal(str(raw))
        )
    except InvalidOperation:
        raise ValueError("Must be a number.") from None
    if not value.is_finite() or abs(value) >= Decimal(10) ** 15:
        raise ValueError("Must be a finite number below 10^15.")
    return value


def _object(raw: Any, keys: tuple[str, ...], kind: str) -> dict[str, str]:
    if not isinstance(raw, dict):
        raise ValueError(f"Must be an object with {', '.join(keys)} ({kind}).")
    out = {}
    for key in keys:
        value = raw.get(key)
        if value is None:
            continue
        out[key] = _text(value, f"a string in {key}")
    return out


def _phone(raw: Any) -> PhoneValue:
    if isinstance(raw, str | int) and not isinstance(raw, bool):
        num, region, base = str(raw), "US", "US"
    elif isinstance(raw, dict):
        num = _text(raw.get("num"), "a string in num")
        region = raw.get("region") or "US"
        base = raw.get("baseRegion") or "US"
    else:
        raise ValueError("Must be a phone number string or {num, region, baseRegion}.")
    for name, value in (("region", region), ("baseRegion", base)):
        if not isinstance(value, str) or value.upper() not in PHONE_REGIONS:
            raise ValueError(
                f"{name}: use a region of the +1, +44 or +52 codes (US, CA, GB, MX...)."
            )
    try:
        number = phonenumbers.parse(num, region.upper())
    except phonenumbers.NumberParseException:
        raise ValueError("Must be a phone number.") from None
    if not phonenumbers.is_possible_number(number):
        raise ValueError("Not a possible phone number for its region.")
    return PhoneValue(number=number, region=region.upper(), base_region=base.upper())


def normalize_value(field: FieldSpec, raw: Any) -> Any:
    """The value in the form the formatter uses; ValueError names what is expected."""
    kind = field.type
    if kind in ("shortText", "longText", "email", "charList"):
        return _text(raw)
    if kind == "ssn":
        return _digits9(raw, "SSN")
    if kind == "ein":
        return _digits9(raw, "EIN")
    if kind == "date":
        return _date(raw)
    if kind == "radioGroup":
        return _text(raw, "the id of an option")
    if kind == "imageFile":
        # Not held to the text limit: data: URLs are long, and their total has its own limit.
        if not isinstance(raw, str):
            raise ValueError("Must be an http(s) URL or a data: URL of an image.")
        url = raw
        if not url.startswith(("http://", "https://", "data:")):
            raise ValueError("Must be an http(s) URL or a data: URL of an image.")
        return url
    if kind == "checkbox":
        if not isinstance(raw, bool):
            raise ValueError("Must be true or false.")
        return raw
    if kind in ("number", "dollar"):
        return _number(raw)
    if kind == "integer":
        return _number(raw).to_integral_value(rounding=ROUND_HALF_UP)
    if kind == "percent":
        value = _number(raw)
        if not 0 <= value <= 100:
            raise ValueError("Must be a number from 0 to 100.")
        return value
    if kind == "textWrap":
        if isinstance(raw, list):
            return tuple(_text(line, "a list of strings") for line in raw)
        return tuple(_text(raw, "a string or a list of strings").split("\n"))
    if kind == "fullName":
        return _object(raw, NAME_PARTS, "a full name")
    if kind == "usAddress":
        return _object(raw, ADDRESS_PARTS, "a US address")
    if kind == "phone":
        return _phone(raw)
    raise ValueError(f"Unsupported field type {kind}.")
