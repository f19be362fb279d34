"""The field types of a template, each declared once: its name, what people call it, and for the
complex types the parts it may be split into and how they are laid out.

``template_spec`` re-exports the names and parts (``FIELD_TYPES``, ``PARTS``) for validation;
the visual editor receives ``field_types_json()`` in its page, so a type declared here is
offered, labelled, sized and split by the editor with no change to its script.

Two kinds of types: those that take a value in fill data and webforms (``FIELD_TYPES``), and
the signer types (``SIGNER_TYPES``: signature, initial, signatureDate, signerName), which mark
where a signer signs. Fill never draws them; createEtchPacket assigns them to signers by id.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import phonenumbers


@dataclass(frozen=True)
class Part:
    """One part of a complex value (``firstName`` of a full name)."""

    name: str
    label: str
    # Share of its row's width when the field gets a separate box for each part.
    weight: float = 1.0


@dataclass(frozen=True)
class FieldType:
    name: str
    label: str
    # The editor colours fields by kind of value: text, id, date, choice, number, boxes,
    # complex, image (one ``.cat-<category>`` rule each in templates_app/static/editor/editor.css).
    category: str = "text"
    # Width and height in points of a field placed with a click instead of a drag.
    default_size: tuple[float, float] = (160.0, 18.0)
    # The stem of default aliases ("date" gives date1, date2); empty: the type's name.
    alias_stem: str = ""
    # Complex types: the parts, as rows of the field's box from top to bottom (as the page is
    # seen), each row split into its parts from left to right by weight.
    part_rows: tuple[tuple[Part, ...], ...] = ()
    # A signer type: filled by a signer in an e-signature packet, never by fill data.
    signer: bool = False

    @property
    def parts(self) -> tuple[str, ...]:
        return tuple(part.name for row in self.part_rows for part in row)

    def to_json(self) -> dict[str, Any]:
        """The editor's form: camelCase, part rows as lists of ``{name, label, weight}``."""
        return {
            "name": self.name,
            "label": self.label,
            "category": self.category,
            "defaultSize": list(self.default_size),
            "aliasStem": self.alias_stem or self.name,
            "partRows": [
                [{"name": p.name, "label": p.label, "weight": p.weight} for p in row]
                for row in self.part_rows
            ],
            "signer": self.signer,
        }


_TYPES: tuple[FieldType, ...] = (
    FieldType("shortText", "Short text", alias_stem="text"),
    FieldType("longText", "Long text", default_size=(220, 48)),
    FieldType("email", "Email"),
    FieldType("ssn", "SSN", category="id", default_size=(100, 18)),
    FieldType("ein", "EIN", category="id", default_size=(100, 18)),
    FieldType("date", "Date", category="date", default_size=(90, 18)),
    FieldType(
        "radioGroup", "Radio group", category="choice", default_size=(40, 12), alias_stem="choice"
    ),
    FieldType("imageFile", "Image", category="image", default_size=(120, 60), alias_stem="image"),
    FieldType("checkbox", "Checkbox", category="choice", default_size=(12, 12)),
    FieldType("number", "Number", category="number", default_size=(80, 18)),
    FieldType("dollar", "Dollar", category="number", default_size=(80, 18), alias_stem="amount"),
    FieldType("integer", "Integer", category="number", default_size=(60, 18)),
    FieldType("percent", "Percent", category="number", default_size=(60, 18)),
    FieldType("charList", "Character boxes", category="boxes", alias_stem="chars"),
    FieldType(
        "textWrap", "Wrapped lines", category="boxes", default_size=(220, 36), alias_stem="lines"
    ),
    FieldType(
        "fullName",
        "Full name",
        category="complex",
        alias_stem="name",
        part_rows=(
            (
                Part("firstName", "First name", 4),
                Part("mi", "Middle initial", 1),
                Part("lastName", "Last name", 4),
            ),
        ),
    ),
    FieldType(
        "usAddress",
        "US address",
        category="complex",
        default_size=(240, 54),
        alias_stem="address",
        part_rows=(
            (Part("street1", "Street"),),
            (Part("street2", "Street (line 2)"),),
            (
                Part("city", "City", 4),
                Part("state", "State", 1.2),
                Part("zip", "ZIP", 1.8),
                Part("country", "Country", 1.2),
            ),
        ),
    ),
    FieldType(
        "phone",
        "Phone",
        category="complex",
        part_rows=(
            (
                Part("countryCode", "Country code", 1),
                Part("areaCode", "Area code", 1.2),
                Part("exchange", "Exchange", 1.2),
                Part("line", "Line", 1.6),
            ),
        ),
    ),
)

# Where a signer signs, initials, dates and names: the types of the hosted API's e-signature fields
# (signature, initial, signatureDate); the signer's name is ``signerName`` in a template, since
# ``fullName`` there is a value of fill data (the packet's field type for it is ``fullName``).
_SIGNER_TYPES: tuple[FieldType, ...] = (
    FieldType("signature", "Signature", category="signer", default_size=(180, 36), signer=True),
    FieldType("initial", "Initials", category="signer", default_size=(48, 28), signer=True),
    FieldType(
        "signatureDate", "Date signed", category="signer", default_size=(90, 18), signer=True
    ),
    FieldType("signerName", "Signer name", category="signer", signer=True),
)

# The spec's phone regions: those of the +1, +44 and +52 country codes (US, CA, GB, MX and the
# regions that share those codes, such as PR, JM, JE, IM). Fill formats numbers of these regions;
# webforms offer them and check numbers against them.
PHONE_COUNTRY_CODES: tuple[int, ...] = (1, 44, 52)
PHONE_REGIONS: frozenset[str] = frozenset(
    region
    for code in PHONE_COUNTRY_CODES
    for region in phonenumbers.COUNTRY_CODE_TO_REGION_CODE.get(code, ())
    if region != "001"
)

# The types that take a value in fill data (and webform fields: workflows' choices).
TYPES: Mapping[str, FieldType] = {t.name: t for t in _TYPES}
FIELD_TYPES: tuple[str, ...] = tuple(TYPES)
# Every type a template field may have: the filled ones and the signer types.
TEMPLATE_TYPES: Mapping[str, FieldType] = {t.name: t for t in (*_TYPES, *_SIGNER_TYPES)}
# The types a signer fills in a packet; a template may hold both kinds.
SIGNER_TYPES: tuple[str, ...] = tuple(t.name for t in _SIGNER_TYPES)
TEMPLATE_FIELD_TYPES: tuple[str, ...] = FIELD_TYPES + SIGNER_TYPES
TEXT_TYPES = frozenset({"shortText", "longText"})
# Complex types: one box for the whole value, or separate boxes for these parts.
PARTS: Mapping[str, tuple[str, ...]] = {t.name: t.parts for t in _TYPES if t.part_rows}


def field_types_json() -> list[dict[str, Any]]:
    """Every type in the editor's JSON form, in the order the editor offers them."""
    return [t.to_json() for t in (*_TYPES, *_SIGNER_TYPES)]
