"""Descriptions of a template for integrators: ``fieldInfo`` and a valid example payload."""

from __future__ import annotations

from typing import Any

from core.engine.template_spec import ArraySpec, FieldSpec, TemplateSpec

# One value per type that is valid for the type, not only accepted by the fill: a real-shaped
# SSN (not 000, 666 or 9xx, group and serial not zero) and EIN (a prefix the IRS assigns), a phone
# number that exists in the numbering plan (555-01xx is reserved for fiction), a real date.
EXAMPLE_VALUES: dict[str, Any] = {
    "shortText": "Sample text",
    "longText": "A longer sample text that may wrap onto a second line of its box.",
    "email": "jane.doe@example.com",
    "ssn": "123456789",
    "ein": "987654321",
    "date": "2024-03-15",
    "imageFile": "data:image/png;base64,"
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
    "checkbox": True,
    "number": 1234.5,
    "dollar": 99.95,
    "integer": 42,
    "percent": 12.5,
    "charList": "123456",
    "textWrap": ["First line", "Second line"],
    "fullName": {"firstName": "Jane", "mi": "Q", "lastName": "Doe"},
    "usAddress": {
        "street1": "123 Main St",
        "street2": "Apt 4",
        "city": "San Francisco",
        "state": "CA",
        "zip": "94103",
        "country": "US",
    },
    "phone": {"num": "4155550132", "region": "US", "baseRegion": "US"},
}


def example_value(field: FieldSpec, row: int | None = None) -> Any:
    if field.type == "radioGroup":
        return field.options[0].id
    if field.type == "charList" and field.max_length:
        # Digits: character boxes mostly hold numbers (an SSN or EIN split over several comb
        # fields, as on the IRS W-9, a ZIP code, an account number), and digits suit any box.
        return "".join(str((index + 1) % 10) for index in range(field.max_length))
    value = EXAMPLE_VALUES[field.type]
    if row is not None and field.type in ("shortText", "longText"):
        return f"{value} {row + 1}"
    return value


def array_of(spec: TemplateSpec) -> dict[str, tuple[ArraySpec, int]]:
    """Field id -> (its array, its row), for fields that belong to an array."""
    return {
        field_id: (array, row)
        for array in spec.arrays
        for row, field_id in enumerate(array.field_ids)
    }


def example_data(spec: TemplateSpec) -> dict[str, Any]:
    """A valid fill payload's ``data``: every alias with a value of its type, arrays with two.
    Signer fields take no value (a signer fills them in a packet)."""
    by_id = {f.id: f for f in spec.fields}
    members = array_of(spec)
    data: dict[str, Any] = {}
    for field in spec.fields:
        if field.id not in members and not field.is_signer:
            data.setdefault(field.alias, example_value(field))
    for array in spec.arrays:
        first = by_id[array.field_ids[0]]
        data[array.alias] = [
            example_value(first, row) for row in range(min(2, len(array.field_ids)))
        ]
    return data


def field_info(spec: TemplateSpec) -> dict[str, Any]:
    """The ``fieldInfo`` JSON: one entry per placed field, the arrays, the pages, the style.

    Each field: ``id`` (stable), ``alias`` (its key in ``data``; for array members the
    array's alias), ``type``, ``name``, ``pageNum`` (0-based), ``rect`` (PDF points, origin at
    the page's lower-left, y up), ``array`` ({id, alias, row} or null), ``readOnly``, and where
    they apply ``format``, ``style``, ``maxLength``, ``boxes``, ``options``, ``parts``.
    """
    members = array_of(spec)
    fields = []
    for field in spec.fields:
        entry = field.to_json()
        membership = members.get(field.id)
        info: dict[str, Any] = {
            "id": field.id,
            "alias": membership[0].alias if membership else field.alias,
            "type": field.type,
            "name": field.label or field.alias,
            "pageNum": field.page,
            "rect": entry.pop("rect"),
            "array": (
                {"id": membership[0].id, "alias": membership[0].alias, "row": membership[1]}
                if membership
                else None
            ),
            "readOnly": field.read_only,
        }
        for key in ("format", "style", "maxLength", "boxes", "options", "parts", "autoSize"):
            if key in entry:
                info[key] = entry[key]
        fields.append(info)
    return {
        "fields": fields,
        "arrays": [array.to_json() for array in spec.arrays],
        "pages": [page.to_json() for page in spec.pages],
        "style": spec.style.to_json(),
    }
