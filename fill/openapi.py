"""Fill in the OpenAPI document (core/openapi.py): the request body's components, derived from
the model the engine checks the body's root with (``fill.engine.request_model``), and the
operation's description, parameters, headers and examples.

Which keys ``data`` takes depends on the template (its aliases: GraphQL ``cast { fieldInfo }``),
so the document gives the value shape of every field type, from the types the template spec
declares. docs/fill.md is the long form.
"""

from __future__ import annotations

from urllib.parse import quote

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter

from core.eids import EID_PATTERN
from core.engine.field_types import FIELD_TYPES, PARTS
from core.engine.wire_models import component_schemas
from core.openapi import Schema, register_schemas
from fill.engine.request_model import FillRequest
from fill.engine.values import TEXT_LIMIT

# The value each field type takes in ``data`` (fill/engine/values.py decides).
_TEXT = f"a string (numbers are written as they are; at most {TEXT_LIMIT} characters)"
_NUMBER = 'a number, or a string of one ("1,234.5")'
VALUE_SHAPES: dict[str, str] = {
    "shortText": _TEXT,
    "longText": _TEXT + "; wraps in its box",
    "email": _TEXT,
    "charList": _TEXT + "; one character per box",
    "ssn": 'a string of 9 digits; spaces and dashes are ignored ("123-45-6789")',
    "ein": 'a string of 9 digits; spaces and dashes are ignored ("12-3456789")',
    "date": 'a date as YYYY-MM-DD ("2024-03-31"), written in the field\'s pattern',
    "radioGroup": "the id of one of its options",
    "imageFile": "an http(s) URL or a data: URL of an image",
    "checkbox": "true or false",
    "number": _NUMBER,
    "dollar": _NUMBER,
    "integer": _NUMBER + ", rounded half up",
    "percent": _NUMBER + " from 0 to 100",
    "textWrap": "a string (one line per box, split at line breaks) or an array of strings",
    "phone": 'a string ("+1 555 123 4567") or {num, region, baseRegion} (US, CA, GB, MX...)',
}
for _kind, _parts in PARTS.items():
    VALUE_SHAPES.setdefault(_kind, "an object of strings: " + ", ".join(_parts))
_missing = set(FIELD_TYPES) - set(VALUE_SHAPES)
if _missing:  # a new field type must say what value it takes
    raise RuntimeError(f"No OpenAPI value shape for the field types {sorted(_missing)}.")

_SHAPES_TEXT = "\n".join(f"- `{kind}`: {VALUE_SHAPES[kind]}" for kind in FIELD_TYPES)

# FillRequest and FillData derived from the model parse_fill_request checks the root with; what
# each field type takes is the template's, so FillData's description lists it from here.
SCHEMAS: dict[str, Schema] = component_schemas(FillRequest)
SCHEMAS["FillData"] = {
    **SCHEMAS["FillData"],
    "description": "Alias -> value. Absent or `null` leaves a field empty; keys that name no "
    "field are ignored. The value of each field type:\n\n"
    + _SHAPES_TEXT
    + "\n\nAny value may be wrapped as `{value, <style>, readOnly}`. An array sent to a "
    "non-array field repeats its page once per element; an array field (a column of rows) "
    "takes an array, elements optionally wrapped as `{data, <style>, readOnly}`, and its "
    "page repeats when the array is longer than its rows.",
    "example": {
        "name": {"firstName": "Ada", "lastName": "Lovelace"},
        "email": "ada@example.com",
        "birthDate": "1815-12-10",
        "agree": True,
        "items": ["Difference engine", "Analytical engine"],
    },
}
register_schemas(SCHEMAS)


def fill_description() -> str:
    return (
        "Fills a version of a PDF template with JSON and answers the PDF. Nothing of the request "
        "is stored. The template's aliases and field types are in GraphQL "
        "`cast(eid) { fieldInfo }`.\n\n"
        f"Limits: {settings.FILL_MAX_PAGES} pages, {settings.FILL_MAX_ARRAY_LENGTH} elements "
        f"per array and {settings.FILL_MAX_DOCUMENTS} documents (whole-PDF repeat) per "
        "request (400 above them); `data:` URLs anywhere in `data` at most "
        f"{settings.FILL_MAX_DATA_URL_BYTES} decoded bytes in total (413)."
    )


VERSION_NUMBER = OpenApiParameter(
    "versionNumber",
    OpenApiTypes.INT,
    OpenApiParameter.QUERY,
    required=False,
    description="-1: the working version; -2 or absent: the latest published version (the "
    "working version if never published); N > 0: published version N. Not an integer: 400; "
    "no such version: 404.",
)
TEMPLATE_EID = OpenApiParameter(
    "template_eid",
    {"type": "string", "pattern": f"^{EID_PATTERN}$"},
    OpenApiParameter.PATH,
    description="The template's eid (a cast's eid on the wire). The example is this server's "
    "demo template when it has one (scripts/run.sh makes it).",
)

# Keys of ``data`` that name no field: the fill ignores them and the 200 says which.
IGNORED_KEYS_HEADER = "X-Ignored-Keys"
IGNORED_KEYS_COUNT_HEADER = "X-Ignored-Keys-Count"
IGNORED_KEYS_HEADER_LIMIT = 1000  # characters of the list; the count header has them all


def ignored_keys_header(keys: tuple[str, ...]) -> str:
    """The keys comma-separated, each percent-encoded (UTF-8) but for letters, digits and
    ``-._~``; cut after the last key that fits in IGNORED_KEYS_HEADER_LIMIT characters."""
    listed: list[str] = []
    length = 0
    for key in keys:
        encoded = quote(key, safe="")
        length += len(encoded) + (2 if listed else 0)
        if length > IGNORED_KEYS_HEADER_LIMIT:
            break
        listed.append(encoded)
    return ", ".join(listed)


IGNORED_KEYS_HEADERS = [
    OpenApiParameter(
        IGNORED_KEYS_HEADER,
        OpenApiTypes.STR,
        OpenApiParameter.HEADER,
        response=[200],
        description="Only when `data` has keys that name no field of the template (they fill "
        "nothing): those keys, comma-separated, in the order sent, each percent-encoded "
        "(UTF-8) except letters, digits and `-._~`; a list over "
        f"{IGNORED_KEYS_HEADER_LIMIT} characters ends at the last key that fits.",
    ),
    OpenApiParameter(
        IGNORED_KEYS_COUNT_HEADER,
        OpenApiTypes.INT,
        OpenApiParameter.HEADER,
        response=[200],
        description=f"With `{IGNORED_KEYS_HEADER}`: how many keys were ignored in all.",
    ),
]

EXAMPLES = [
    OpenApiExample(
        "Values",
        request_only=True,
        value={
            "title": "Demo fill",
            "fontSize": 10,
            "data": {
                "name": {"firstName": "Ada", "lastName": "Lovelace"},
                "email": "ada@example.com",
                "amount": 1234.5,
                "agree": True,
                "items": ["Difference engine", "Analytical engine"],
            },
        },
    ),
    OpenApiExample(
        "Whole-PDF repeat",
        request_only=True,
        value={"data": [{"email": "ada@example.com"}, {"email": "charles@example.com"}]},
    ),
]
