"""What a workflow definition may hold, declared once: the field types a webform offers and the
settings each type takes, repeating groups and conditions (``showWhen``), the limits, and which
webform field may fill which template field.

The parser (workflows.engine.parse_webform) and the admin's builder read this module, so a
setting or limit changed here changes in both. ``catalogue_json`` is the builder's copy.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from core.engine.field_types import FIELD_TYPES, TYPES

FORMAT = "workflow/1"
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
SIGN_FIELD_TYPES = ("signature", "initial", "signatureDate")
SIGNER_TYPES = ("embedded", "email")

MAX_WEBFORMS = 20
MAX_PAGES = 50
MAX_FIELDS = 200  # in one webform, those of its repeating groups included
MAX_GROUPS = 10  # repeating groups on one page
# Entries of one repeating group: what one page posts stays small, and every entry fills a row
# of the template's arrays (the fill takes far more, FILL_MAX_ARRAY_LENGTH).
GROUP_MAX_ENTRIES = 50

# A repeating group holds plain fields: no image (each one is an upload that the page's post cap
# counts per field of a page) and no condition of its own (it would name a field of its entry).
GROUP_FIELD_TYPES: tuple[str, ...] = tuple(t for t in FIELD_TYPES if t != "imageFile")

_TEXT_SETTINGS = ("minLength", "maxLength")
_NUMBER_SETTINGS = ("min", "max")
# The settings of each field type, besides those every field has (key, label, required,
# helpText, default, showWhen): the builder shows only these for a field of the type.
TYPE_SETTINGS: Mapping[str, tuple[str, ...]] = {
    "shortText": _TEXT_SETTINGS,
    "longText": _TEXT_SETTINGS,
    "charList": _TEXT_SETTINGS,
    "textWrap": _TEXT_SETTINGS,
    "number": _NUMBER_SETTINGS,
    "dollar": _NUMBER_SETTINGS,
    "integer": _NUMBER_SETTINGS,
    "percent": _NUMBER_SETTINGS,
    "radioGroup": ("options",),
    "phone": ("baseRegion",),
}
COMMON_SETTINGS = ("key", "label", "required", "helpText", "default", "showWhen")
# A page's settings, and a repeating group's (``groups`` of a page, after its fields).
PAGE_SETTINGS = ("id", "title", "description", "showWhen", "fields", "groups")
GROUP_SETTINGS = ("key", "label", "helpText", "minEntries", "maxEntries", "fields")


def type_settings(kind: str) -> tuple[str, ...]:
    return TYPE_SETTINGS.get(kind, ())


# --- which webform field fills which template field ---------------------------------------------

_TEXT_TARGETS = frozenset({"shortText", "longText", "textWrap", "charList"})
_TEXT_SOURCES = frozenset(
    {"shortText", "longText", "textWrap", "charList", "email", "ssn", "ein", "date"}
    | {"radioGroup", "number", "dollar", "integer"}
)
_NUMBER_TARGETS = frozenset({"number", "dollar", "integer"})


def compatible(source: str, target: str) -> bool:
    """Whether a webform field of type ``source`` may fill a template field of type ``target``:
    the same type; any plain value into text; numbers into numbers (a percent only from a
    percent); short text into an email field. A field of a repeating group fills a template's
    array (a column of rows) by the same rule, a field outside one a plain template field."""
    if source == target:
        return True
    if target in _TEXT_TARGETS:
        return source in _TEXT_SOURCES
    if target in _NUMBER_TARGETS:
        return source in _NUMBER_TARGETS or source == "percent"
    return target == "email" and source == "shortText"


def catalogue_json() -> dict[str, Any]:
    """The builder's copy of this catalogue."""
    return {
        "format": FORMAT,
        "types": [
            {"name": name, "label": TYPES[name].label, "settings": list(type_settings(name))}
            for name in FIELD_TYPES
        ],
        "commonSettings": list(COMMON_SETTINGS),
        "pageSettings": list(PAGE_SETTINGS),
        "groupSettings": list(GROUP_SETTINGS),
        "groupFieldTypes": list(GROUP_FIELD_TYPES),
        "showWhen": {"field": "<key of an earlier field>", "hasValue": True},
        "limits": {
            "webforms": MAX_WEBFORMS,
            "pages": MAX_PAGES,
            "fields": MAX_FIELDS,
            "groupsPerPage": MAX_GROUPS,
            "groupEntries": GROUP_MAX_ENTRIES,
        },
    }
