"""What the webform builder's settings panel shows, served to its script as JSON
(``catalogue_json``): the field types, the settings of each type, of a page and of a repeating
group, and how each setting is shown (its label, input and place in the definition's JSON).

What a definition may hold is the definition's catalogue (workflows.engine.catalogue): this
module adds only how each setting looks, by its name. The script has no list of its own, and a
setting the catalogue gains before it has a look here is still shown, as JSON, under its name
(a test asks for a look for every one).

Pure Python, like the engine it describes: no Django.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.engine.field_types import TYPES
from workflows.engine import catalogue
from workflows.engine.phones import PHONE_REGION_INFO

# What the builder keeps by other means than a setting: a page's id, the lists of fields and
# groups (its list of pages and fields).
STRUCTURE = frozenset({"id", "fields", "groups"})


@dataclass(frozen=True)
class Look:
    """How the panel shows a setting. ``input`` is one of panel.js's inputs: text, key,
    textarea, checkbox, number, count (a whole number from 0), select (of ``choices``), options
    (a radio group's, one a line), condition (rules on earlier fields, builder/condition.js),
    default (the field's own kind of value), json (anything else)."""

    label: str
    input: str
    path: str = ""  # where the value is in the JSON, dotted; the setting's name when empty
    help: str = ""
    choices: tuple[tuple[str, str], ...] = ()
    required: bool = False

    def to_json(self, name: str) -> dict[str, Any]:
        out: dict[str, Any] = {"label": self.label, "input": self.input, "path": self.path or name}
        if self.help:
            out["help"] = self.help
        if self.choices:
            out["choices"] = [{"value": v, "label": label} for v, label in self.choices]
        if self.required:
            out["required"] = True
        return out


_REGIONS = tuple(
    sorted(
        ((code, f"{info['name']} (+{info['code']})") for code, info in PHONE_REGION_INFO.items()),
        key=lambda choice: choice[1],
    )
)

LOOKS: dict[str, Look] = {
    "label": Look("Label", "text", required=True),
    "key": Look(
        "Key",
        "key",
        required=True,
        help="Its name in payloads, webhooks and document mappings: a letter, then letters, "
        "digits or _.",
    ),
    "required": Look("Required", "checkbox"),
    "helpText": Look("Help text", "textarea", help="Shown under the label."),
    "options": Look("Options", "options", help="One a line: value, or value: label."),
    "minLength": Look("Shortest (characters)", "count", "validation.minLength"),
    "maxLength": Look("Longest (characters)", "count", "validation.maxLength"),
    "min": Look("Smallest value", "number", "validation.min"),
    "max": Look("Largest value", "number", "validation.max"),
    "minEntries": Look("Fewest entries", "count", help="0: the group may be left empty."),
    "maxEntries": Look(
        "Most entries", "count", help=f"From 1 to {catalogue.GROUP_MAX_ENTRIES}; 10 when empty."
    ),
    "baseRegion": Look(
        "Base region",
        "select",
        help="Numbers of this region are shown without the country code.",
        choices=_REGIONS,
    ),
    "default": Look(
        "Default value",
        "default",
        help="Checked like an answer: a date as YYYY-MM-DD; a name, address or phone as JSON.",
    ),
    "showWhen": Look(
        "Show only when",
        "condition",
        help="Rules on earlier fields; with several, all or any of them. Hidden, it is not "
        "asked and what was given is dropped.",
    ),
    "title": Look("Page title", "text", required=True),
    "description": Look("Description", "textarea", help="Shown above the page's fields."),
}


# The panel's order of a field's settings: what it asks, its type, then how it is checked.
_FIRST = ("label", "key", "required", "helpText")


def settings_of(kind: str) -> tuple[str, ...]:
    """The settings of a field of type ``kind``, in the panel's order."""
    common = catalogue.COMMON_SETTINGS
    first = tuple(name for name in _FIRST if name in common)
    rest = tuple(name for name in common if name not in first)
    return (*first, *catalogue.type_settings(kind), *rest)


def _settings(names: tuple[str, ...]) -> list[str]:
    first = [name for name in _FIRST if name in names]
    return first + [name for name in names if name not in STRUCTURE and name not in first]


def all_settings() -> set[str]:
    """Every setting the catalogue names, of fields, pages and groups."""
    names = {*catalogue.COMMON_SETTINGS, *catalogue.PAGE_SETTINGS, *catalogue.GROUP_SETTINGS}
    names |= {name for kind in TYPES for name in catalogue.type_settings(kind)}
    return names - STRUCTURE


# The builder's palette of field types: each type in one category, in this order.
TYPE_CATEGORIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Text", ("shortText", "longText", "textWrap", "charList")),
    ("Numbers", ("number", "integer", "dollar", "percent")),
    ("Choices", ("checkbox", "radioGroup")),
    ("People and contact", ("fullName", "email", "phone", "usAddress")),
    ("Dates", ("date",)),
    ("Tax numbers", ("ssn", "ein")),
    ("Files", ("imageFile",)),
)


def catalogue_json() -> dict[str, Any]:
    """The types, the settings of each, of pages and groups, and how every setting looks."""
    return {
        "types": [
            {"name": t.name, "label": t.label, "settings": list(settings_of(t.name))}
            for t in TYPES.values()
        ],
        "typeCategories": [
            {"label": label, "types": list(names)} for label, names in TYPE_CATEGORIES
        ],
        "page": _settings(catalogue.PAGE_SETTINGS),
        "group": _settings(catalogue.GROUP_SETTINGS),
        # A repeating group's fields: these types, without a condition of their own.
        "groupFieldTypes": list(catalogue.GROUP_FIELD_TYPES),
        "groupFieldWithout": ["showWhen"],
        "looks": {
            name: (LOOKS[name] if name in LOOKS else Look(name, "json")).to_json(name)
            for name in sorted(all_settings())
        },
    }
