"""The rules a webform value must follow: one check per field type, the same on the server and in
the browser.

``check_value`` is the server's check. ``browser_rules`` gives the webform page's script
(workflows/static/workflows/form.js) everything it needs to apply the same rules with the same
messages: the message texts, the phone regions with their country codes, national prefixes and
number lengths, the US state codes and the patterns. A rule changed here changes in both places.

Values arrive in their wire form (what forgeSubmit's payload holds: the spec's type table) or,
from a webform page, as the strings of its inputs (``form_value``). Either way ``check_value``
returns the normalized value that is stored, or ``EMPTY`` when nothing was given.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Mapping
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any, Final

from core.engine.images import DEFAULT_MAX_DECODED_BYTES, TOO_LARGE, image_refusal
from core.engine.input_checks import text_problem
from workflows.engine.messages import MESSAGES, FieldInvalid
from workflows.engine.numbers import ENGLISH, NumberFormat, canonical_number
from workflows.engine.phones import PHONE_REGION_INFO, PHONE_REGION_ORDER, national_number
from workflows.engine.photos import SIDES

# Importable from here as before the messages and phones had modules of their own.
__all__ = [
    "EMPTY",
    "IMAGE_MAX_BYTES",
    "IMAGE_TYPES",
    "MESSAGES",
    "PHONE_REGION_INFO",
    "PHONE_REGION_ORDER",
    "US_STATES",
    "FieldInvalid",
    "browser_rules",
    "check_form_value",
    "check_value",
    "has_value",
    "is_empty",
    "national_number",
]

EMPTY: Final = None
MAX_TEXT = 10_000  # characters of one text value
MAX_PART = 200  # characters of one part of a name or an address
# An uploaded image travels to the fill engine as a data: URL, and the fill engine takes at most
# 100k of data URLs in one payload: 72,000 bytes are 96,000 characters of base64.
IMAGE_MAX_BYTES = 72_000
IMAGE_MAX_DATA_URL = 100_000
# A webform page takes photos as phones take them (the spec's 10 MB) and makes them smaller
# (workflows.engine.photos); what it could not read as the image it claims to be, or of a type
# it does not take, it posts on as these markers, for the rule to say why: not readable, too
# many pixels (refused before decoding), not processed within an image worker's limits, or
# every image worker busy.
IMAGE_UPLOAD_REFUSED = "data:"
IMAGE_UPLOAD_UNREADABLE = "data:,unreadable"
IMAGE_UPLOAD_TOO_LARGE = "data:,too-large"
IMAGE_UPLOAD_NOT_PROCESSED = "data:,not-processed"
IMAGE_UPLOAD_BUSY = "data:,busy"
_IMAGE_UPLOAD_PROBLEMS = {
    IMAGE_UPLOAD_UNREADABLE: "imageBytes",
    IMAGE_UPLOAD_TOO_LARGE: "imageTooLarge",
    IMAGE_UPLOAD_NOT_PROCESSED: "imageNotProcessed",
    IMAGE_UPLOAD_BUSY: "imageBusy",
}
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif")
# An image a public page carries as a data: URL is at most what an upload is made into
# (workflows.engine.photos: 1600 px a side), decoded as RGBA: 10 MB, by its declared size.
PAGE_IMAGE_MAX_DECODED_BYTES = SIDES[0] * SIDES[0] * 4
# The image format each type must be: bytes that claim to be an image are checked to be one.
IMAGE_FORMATS: Mapping[str, str] = {"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF"}
NUMBER_LIMIT = Decimal(10) ** 15

TEXT_TYPES = frozenset({"shortText", "longText", "charList", "textWrap"})
NUMBER_TYPES = frozenset({"number", "dollar", "integer", "percent"})
NAME_PARTS = ("firstName", "mi", "lastName")
ADDRESS_PARTS = ("street1", "street2", "city", "state", "zip", "country")
PHONE_PARTS = ("num", "region")
PARTS: Mapping[str, tuple[str, ...]] = {
    "fullName": NAME_PARTS,
    "usAddress": ADDRESS_PARTS,
    "phone": PHONE_PARTS,
}

# Patterns are written in the dialect Python and JavaScript share.
EMAIL_PATTERN = r"^[^@\s]+@[^@\s]+\.[^@\s]+$"
DATE_PATTERN = r"^(\d{4})-(\d{2})-(\d{2})$"
NUMBER_PATTERN = r"^[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?$"
ZIP_PATTERN = r"^\d{5}(?:-\d{4})?$"
_EMAIL = re.compile(EMAIL_PATTERN)
_DATE = re.compile(DATE_PATTERN)
_NUMBER = re.compile(NUMBER_PATTERN)
_ZIP = re.compile(ZIP_PATTERN)
_SEPARATORS = re.compile(r"[\s-]")

# The states, the District of Columbia, the territories and the military "states" of USPS.
_STATE_CODES = (
    "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ "
    "NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY AS GU MP PR VI UM AA AE AP"
)
US_STATES: tuple[str, ...] = tuple(_STATE_CODES.split())

# --- helpers --------------------------------------------------------------------------------


def _holds_control(raw: Any) -> bool:
    """Text that is no text (core.engine.input_checks): NUL or another control character, in the
    value or in one of its parts. forgeSubmit's JSON is refused as it is read; a webform page's
    post is checked here, one field at a time."""
    if isinstance(raw, str):
        return text_problem(raw) is not None
    if isinstance(raw, Mapping):
        return any(_holds_control(value) for value in raw.values())
    if isinstance(raw, list):
        return any(_holds_control(value) for value in raw)
    return False


def _text(raw: Any, limit: int = MAX_TEXT) -> str:
    if isinstance(raw, bool) or raw is None:
        raise FieldInvalid("text")
    if isinstance(raw, int | float):
        raw = str(raw)
    if not isinstance(raw, str):
        raise FieldInvalid("text")
    if len(raw) > limit:
        raise FieldInvalid("tooLong", max=limit)
    return raw.strip()


def _number(raw: Any, kind: str, number_format: NumberFormat = ENGLISH) -> Decimal:
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise FieldInvalid("number")
    if isinstance(raw, str):
        text = raw.strip()
        if kind == "dollar":
            text = text.removeprefix("$").strip()
        if kind == "percent":
            text = text.removesuffix("%").strip()
        text = canonical_number(text, number_format)
        if not _NUMBER.match(text) or not any(c.isdigit() for c in text):
            raise FieldInvalid("number")
        value = Decimal(text.replace(",", ""))
    else:
        try:
            value = Decimal(str(raw))
        except InvalidOperation:
            raise FieldInvalid("number") from None
    if not value.is_finite():
        raise FieldInvalid("number")
    if abs(value) >= NUMBER_LIMIT:
        raise FieldInvalid("numberTooLarge")
    return value


def _shown(value: Decimal) -> str:
    """A bound as people write it: 10, 2.5 (never 1E+1)."""
    return format(value.normalize(), "f")


def _as_json_number(value: Decimal, kind: str) -> int | float:
    if kind == "integer" or value == value.to_integral_value():
        return int(value)
    return float(value)


def _parts(raw: Any, parts: tuple[str, ...], object_message: str) -> dict[str, str]:
    if not isinstance(raw, Mapping):
        raise FieldInvalid(object_message)
    out = {}
    for part in parts:
        value = raw.get(part)
        if value is None or value == "":
            continue
        if not isinstance(value, str | int) or isinstance(value, bool):
            raise FieldInvalid(object_message)
        text = str(value).strip()
        if len(text) > MAX_PART:
            raise FieldInvalid("part")
        if text:
            out[part] = text
    return out


# --- the check ------------------------------------------------------------------------------


def is_empty(raw: Any) -> bool:
    """Nothing given: absent, null, blank text, or an object of blank parts."""
    if raw is None:
        return True
    if isinstance(raw, str):
        return not raw.strip()
    if isinstance(raw, Mapping):
        return all(is_empty(v) for k, v in raw.items() if k != "baseRegion" and k != "region")
    if isinstance(raw, list):
        return all(is_empty(v) for v in raw)
    return False


def has_value(value: Any) -> bool:
    """Whether a value counts as given for a ``showWhen`` condition: anything but blank, and a
    checkbox only when ticked. form.js's ``hasValue`` is the same."""
    return value is not False and not is_empty(value)


def check_value(field: Any, raw: Any, *, number_format: NumberFormat = ENGLISH) -> Any:
    """The normalized value of ``raw`` for ``field`` (a ``definition.FieldDef``); ``EMPTY``
    when nothing was given and the field is optional. FieldInvalid says what is wrong.
    ``number_format``: how a number typed in a page is written (its reader's language)."""
    if _holds_control(raw):
        raise FieldInvalid("controlCharacters")
    kind = field.type
    if kind == "checkbox":
        if raw is None:
            raw = False
        if not isinstance(raw, bool):
            raise FieldInvalid("checkbox")
        if field.required and not raw:
            raise FieldInvalid("checkboxRequired")
        return raw
    if is_empty(raw):
        if field.required:
            raise FieldInvalid("required")
        return EMPTY
    if kind in NUMBER_TYPES:
        return _check_number(field, raw, number_format)
    check = _CHECKS[kind]
    return check(field, raw)


def check_form_value(field: Any, raw: Any, *, number_format: NumberFormat = ENGLISH) -> Any:
    """``check_value`` for a value posted by a public webform page, where an image is only ever
    an uploaded file (or the data: URL an earlier upload became), never a link: a URL given
    there would make the service fetch whatever an anonymous visitor names."""
    if field.type == "imageFile" and isinstance(raw, str):
        given = raw.strip()
        if given and not given.startswith("data:"):
            raise FieldInvalid("imageUpload")
        if given in _IMAGE_UPLOAD_PROBLEMS:
            raise FieldInvalid(_IMAGE_UPLOAD_PROBLEMS[given])
        if given:
            # What a page carries is what an upload became (a fitted image): no more pixels
            # than that, since the documents are filled with it in the web process.
            _check_image(field, given, max_decoded_bytes=PAGE_IMAGE_MAX_DECODED_BYTES)
    return check_value(field, raw, number_format=number_format)


def _check_text(field: Any, raw: Any) -> str:
    if field.type == "textWrap" and isinstance(raw, list):
        raw = "\n".join(_text(line) for line in raw)
    text = _text(raw)
    if field.max_length is not None and len(text) > field.max_length:
        raise FieldInvalid("tooLong", max=field.max_length)
    if field.min_length is not None and len(text) < field.min_length:
        raise FieldInvalid("tooShort", min=field.min_length)
    return text


def _check_email(field: Any, raw: Any) -> str:
    text = _text(raw, 254)
    if not _EMAIL.match(text):
        raise FieldInvalid("email")
    return text


def _nine_digits(raw: Any, kind: str) -> str:
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = f"{raw:09d}"
    digits = _SEPARATORS.sub("", _text(raw, 50))
    if len(digits) != 9 or not digits.isascii() or not digits.isdigit():
        raise FieldInvalid(kind)
    return digits


def _check_ssn(field: Any, raw: Any) -> str:
    digits = _nine_digits(raw, "ssn")
    # Never issued: area 000, 666 or 900-999, group 00, serial 0000.
    if digits[:3] in ("000", "666") or digits[0] == "9" or digits[3:5] == "00":
        raise FieldInvalid("ssnInvalid")
    if digits[5:] == "0000":
        raise FieldInvalid("ssnInvalid")
    return digits


def _check_ein(field: Any, raw: Any) -> str:
    digits = _nine_digits(raw, "ein")
    if digits[:2] == "00":
        raise FieldInvalid("einInvalid")
    return digits


def _check_date(field: Any, raw: Any) -> str:
    text = _text(raw, 50)
    match = _DATE.match(text)
    if match is None:
        raise FieldInvalid("date")
    try:
        date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        raise FieldInvalid("dateInvalid") from None
    return text


def _check_number(field: Any, raw: Any, number_format: NumberFormat = ENGLISH) -> int | float:
    kind = field.type
    value = _number(raw, kind, number_format)
    if kind == "integer" and value != value.to_integral_value():
        raise FieldInvalid("integer")
    if kind == "percent" and not 0 <= value <= 100:
        raise FieldInvalid("percent")
    if field.min_value is not None and value < Decimal(str(field.min_value)):
        raise FieldInvalid("min", min=_shown(Decimal(str(field.min_value))))
    if field.max_value is not None and value > Decimal(str(field.max_value)):
        raise FieldInvalid("max", max=_shown(Decimal(str(field.max_value))))
    return _as_json_number(value, kind)


def _check_option(field: Any, raw: Any) -> str:
    text = _text(raw, 200)
    if text not in {value for value, _ in field.options}:
        raise FieldInvalid("option")
    return text


def _check_image(
    field: Any, raw: Any, *, max_decoded_bytes: int = DEFAULT_MAX_DECODED_BYTES
) -> str:
    if not isinstance(raw, str):
        raise FieldInvalid("imageUrl")
    url = raw.strip()
    if url.startswith(("http://", "https://")) and len(url) <= 2000:
        return url
    if url.startswith("data:"):
        head = url[5 : url.find(",")] if "," in url else ""
        mime = head.split(";")[0].lower()
        if mime not in IMAGE_TYPES or not head.endswith(";base64"):
            raise FieldInvalid("image")
        if len(url) > IMAGE_MAX_DATA_URL:
            raise FieldInvalid("imageDataUrl")
        _check_image_bytes(url[len(head) + 6 :], mime, max_decoded_bytes)
        return url
    raise FieldInvalid("imageUrl")


def _check_image_bytes(encoded: str, mime: str, max_decoded_bytes: int) -> None:
    """The data: URL's bytes are an image of the type it names (not HTML labelled image/png),
    of a size the documents can be filled with (its declared size: nothing is decoded)."""
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise FieldInvalid("imageBytes") from None
    refusal = image_refusal(
        data, formats=(IMAGE_FORMATS[mime],), max_decoded_bytes=max_decoded_bytes
    )
    if refusal == TOO_LARGE:
        raise FieldInvalid("imageTooLarge")
    if refusal is not None:
        raise FieldInvalid("imageBytes")


def _check_name(field: Any, raw: Any) -> dict[str, str]:
    if isinstance(raw, str):
        raise FieldInvalid("nameObject")
    parts = _parts(raw, NAME_PARTS, "nameObject")
    if len(parts.get("mi", "")) > 5:
        raise FieldInvalid("middleInitial")
    if field.required and not ("firstName" in parts and "lastName" in parts):
        raise FieldInvalid("name")
    return parts


def _check_address(field: Any, raw: Any) -> dict[str, str]:
    parts = _parts(raw, ADDRESS_PARTS, "addressObject")
    if not all(parts.get(part) for part in ("street1", "city", "state", "zip")):
        raise FieldInvalid("address")
    state = parts["state"].upper()
    if state not in US_STATES:
        raise FieldInvalid("state")
    parts["state"] = state
    if not _ZIP.match(parts["zip"]):
        raise FieldInvalid("zip")
    return parts


def _check_phone(field: Any, raw: Any) -> dict[str, str]:
    base: Any = field.base_region
    region: Any = "US"
    if isinstance(raw, str | int) and not isinstance(raw, bool):
        num = str(raw)
    elif isinstance(raw, Mapping):
        given = raw.get("num")
        region = raw.get("region") or base
        base = raw.get("baseRegion") or base
        if not isinstance(given, str | int) or isinstance(given, bool):
            raise FieldInvalid("phoneObject")
        num = str(given)
    else:
        raise FieldInvalid("phoneObject")
    if not isinstance(region, str) or region.upper() not in PHONE_REGION_INFO:
        raise FieldInvalid("phoneRegion")
    if not isinstance(base, str) or base.upper() not in PHONE_REGION_INFO:
        raise FieldInvalid("phoneRegion")
    region, base = region.upper(), base.upper()
    num = num.strip()
    if len(num) > 40 or national_number(num, region) is None:
        raise FieldInvalid("phone", region=PHONE_REGION_INFO[region]["name"])
    return {"num": num, "region": region, "baseRegion": base}


_CHECKS: Mapping[str, Callable[[Any, Any], Any]] = {
    "shortText": _check_text,
    "longText": _check_text,
    "charList": _check_text,
    "textWrap": _check_text,
    "email": _check_email,
    "ssn": _check_ssn,
    "ein": _check_ein,
    "date": _check_date,
    "radioGroup": _check_option,
    "imageFile": _check_image,
    "number": _check_number,
    "dollar": _check_number,
    "integer": _check_number,
    "percent": _check_number,
    "fullName": _check_name,
    "usAddress": _check_address,
    "phone": _check_phone,
}


# --- for the browser ------------------------------------------------------------------------


def _same(text: str) -> str:
    return text


def browser_rules(
    translate: Callable[[str], str] = _same, number_format: NumberFormat = ENGLISH
) -> dict[str, Any]:
    """What form.js needs to apply these rules: messages, patterns, regions, states, limits;
    the messages and regions' names in the language of ``translate``, numbers as written in it."""
    return {
        "numberFormat": number_format.as_browser_rule(),
        "messages": {code: translate(text) for code, text in MESSAGES.items()},
        "patterns": {
            "email": EMAIL_PATTERN,
            "date": DATE_PATTERN,
            "number": NUMBER_PATTERN,
            "zip": ZIP_PATTERN,
        },
        "phoneRegions": {
            region: {**info, "name": translate(info["name"])}
            for region, info in PHONE_REGION_INFO.items()
        },
        "usStates": list(US_STATES),
        "limits": {
            "text": MAX_TEXT,
            "part": MAX_PART,
            "imageBytes": IMAGE_MAX_BYTES,
            "imageTypes": list(IMAGE_TYPES),
            "numberLimit": int(NUMBER_LIMIT),
        },
    }
