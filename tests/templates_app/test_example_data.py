"""Example data (``exampleData``, the admin's test fill, the editor's preview) is valid for its type.

Valid means more than accepted by the fill: an SSN that could be issued, an EIN with an IRS
prefix, a phone number of the numbering plan, digits in character boxes (the IRS W-9 splits its
SSN over three comb fields, which showed "ABC", "AB", "ABCD").
"""

from __future__ import annotations

import base64
import datetime
import io
import json
import re
from typing import Any

import phonenumbers
import pytest
from django.core.validators import validate_email
from django.test import Client
from PIL import Image

from core.engine.template_spec import (
    FIELD_TYPES,
    ArraySpec,
    FieldSpec,
    PageSpec,
    RadioOption,
    Rect,
    TemplateSpec,
)
from templates_app.engine.demo import build_demo_template
from templates_app.engine.describe import array_of, example_data
from templates_app.models import PdfTemplate
from templates_app.services import template_create_with_spec, version_spec, working_version
from tests.pdfcheck import blank_pdf, text_in_rect, words

# The IRS's EIN prefixes (campus and online assignment), "How EINs are assigned".
EIN_PREFIXES = frozenset(
    f"{n:02d}"
    for first, last in (
        (1, 6), (10, 16), (20, 27), (30, 48), (50, 68), (71, 77), (80, 88), (90, 95), (98, 99),
    )
    for n in range(first, last + 1)
)  # fmt: skip
US_STATES = frozenset(
    re.findall(
        "[A-Z]{2}",
        "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH"
        " NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY PR",
    )
)


def assert_valid_example(field: FieldSpec, value: Any) -> None:
    """``value`` is a real-looking value of ``field``'s type (AssertionError says why not)."""
    kind = field.type
    if kind in ("shortText", "longText"):
        assert isinstance(value, str)
        assert value.strip()
    elif kind == "email":
        validate_email(value)
    elif kind == "ssn":
        assert re.fullmatch(r"\d{9}", value), value
        area, group, serial = value[:3], value[3:5], value[5:]
        assert area not in ("000", "666"), value
        assert not area.startswith("9"), value
        assert group != "00", value
        assert serial != "0000", value
    elif kind == "ein":
        assert re.fullmatch(r"\d{9}", value), value
        assert value[:2] in EIN_PREFIXES, value
    elif kind == "date":
        assert isinstance(datetime.date.fromisoformat(value), datetime.date)
    elif kind == "radioGroup":
        assert value in {option.id for option in field.options}
    elif kind == "imageFile":
        header, _, payload = value.partition(",")
        assert header == "data:image/png;base64"
        Image.open(io.BytesIO(base64.b64decode(payload))).verify()
    elif kind == "checkbox":
        assert isinstance(value, bool)
    elif kind in ("number", "dollar", "integer", "percent"):
        assert isinstance(value, int | float), value
        assert not isinstance(value, bool), value
        if kind == "dollar":
            assert round(value, 2) == value
        if kind == "integer":
            assert isinstance(value, int)
        if kind == "percent":
            assert 0 <= value <= 100
    elif kind == "charList":
        assert isinstance(value, str), value
        assert value.isdigit(), value
        assert len(value) == (field.max_length or len(value))
    elif kind == "textWrap":
        assert isinstance(value, list), value
        assert all(isinstance(line, str) for line in value), value
        assert 0 < len(value) <= (len(field.boxes) or len(value))
    elif kind == "fullName":
        assert value["firstName"].isalpha(), value
        assert value["lastName"].isalpha(), value
        assert len(value["mi"]) == 1, value
        assert value["mi"].isalpha(), value
    elif kind == "usAddress":
        assert value["street1"], value
        assert value["city"], value
        assert value["state"] in US_STATES
        assert re.fullmatch(r"\d{5}", value["zip"])
        assert value["country"] == "US"
    elif kind == "phone":
        number = phonenumbers.parse(value["num"], value["region"])
        assert phonenumbers.is_valid_number(number), value
        assert value["baseRegion"] == value["region"] == "US"
    else:
        pytest.fail(f"no rule for the type {kind}")


def assert_examples_valid(spec: TemplateSpec, data: dict[str, Any]) -> None:
    """Every value of ``data`` is valid for each field it fills (array elements for their row)."""
    members = array_of(spec)
    by_alias: dict[str, list[FieldSpec]] = {}
    for field in spec.fields:
        if field.id not in members:
            by_alias.setdefault(field.alias, []).append(field)
    by_id = {field.id: field for field in spec.fields}
    for array in spec.arrays:
        assert array.alias not in by_alias
        elements = data[array.alias]
        assert 0 < len(elements) <= len(array.field_ids)
        for field_id, element in zip(array.field_ids, elements, strict=False):
            assert_valid_example(by_id[field_id], element)
    assert set(data) == set(by_alias) | {array.alias for array in spec.arrays}
    for alias, fields in by_alias.items():
        for field in fields:
            assert_valid_example(field, data[alias])


def every_type_spec() -> TemplateSpec:
    """One field of every type on one page (boxes and parts where the type has them)."""

    def row(index: int, height: float = 18) -> Rect:
        return Rect(54, 740 - index * 34, 300, height)

    fields = []
    for index, kind in enumerate(FIELD_TYPES):
        rect = row(index)
        extra: dict[str, Any] = {}
        if kind == "charList":
            extra = {
                "max_length": 9,
                "boxes": tuple(Rect(54 + i * 18, rect.y, 18, 18) for i in range(9)),
            }
        elif kind == "textWrap":
            extra = {"boxes": (Rect(54, rect.y + 9, 300, 9), Rect(54, rect.y, 300, 9))}
        elif kind == "radioGroup":
            extra = {
                "options": tuple(
                    RadioOption(f"o{i}", Rect(54 + i * 30, rect.y, 12, 12)) for i in range(2)
                )
            }
        fields.append(FieldSpec(id=kind, alias=kind, type=kind, page=0, rect=rect, **extra))
    # An array of SSNs: its elements must be valid too, not only text-typed rows.
    fields += [
        FieldSpec(
            id=f"ssn{i}", alias=f"ssn{i}", type="ssn", page=0, rect=Rect(380, 740 - i * 34, 120, 18)
        )
        for i in range(2)
    ]
    return TemplateSpec(
        pages=(PageSpec(612, 792, 0, (0.0, 0.0, 612.0, 792.0)),),
        fields=tuple(fields),
        arrays=(ArraySpec(id="ssns", alias="ssns", field_ids=("ssn0", "ssn1")),),
    )


def fill_working_version(client: Client, template: PdfTemplate, data: dict[str, Any]) -> bytes:
    response = client.post(
        f"/api/v1/fill/{template.eid}.pdf?versionNumber=-1",
        data=json.dumps({"data": data}),
        content_type="application/json",
    )
    assert response.status_code == 200, response.content[:1000]
    return response.content


def test_the_every_type_spec_covers_every_type() -> None:
    assert {field.type for field in every_type_spec().fields} == set(FIELD_TYPES)


def test_every_types_example_is_valid_for_its_type() -> None:
    spec = every_type_spec()

    assert_examples_valid(spec, example_data(spec))


def test_the_demo_templates_example_is_valid_for_each_field() -> None:
    _, spec = build_demo_template()

    assert_examples_valid(spec, example_data(spec))


@pytest.mark.django_db
def test_every_types_example_fills_without_errors(api_client: Client, organization) -> None:
    spec = every_type_spec()
    template = template_create_with_spec(
        organization=organization, title="Every type", pdf=blank_pdf(), spec=spec
    )

    pdf = fill_working_version(api_client, template, example_data(spec))

    page = words(pdf)[0]
    rects = {field.id: field.rect for field in spec.fields}
    assert text_in_rect(page, rects["ssn"].to_json()) == "123-45-6789"
    assert text_in_rect(page, rects["ssn1"].to_json()) == "123-45-6789"
    assert text_in_rect(page, rects["ein"].to_json()) == "98-7654321"
    assert text_in_rect(page, rects["phone"].to_json()) == "(415) 555-0132"
    assert text_in_rect(page, rects["charList"].to_json()) == "1 2 3 4 5 6 7 8 9"


@pytest.mark.django_db
def test_the_demo_templates_example_fills_without_errors(api_client: Client, demo_template) -> None:
    spec = version_spec(working_version(demo_template))

    pdf = fill_working_version(api_client, demo_template, example_data(spec))

    page = words(pdf)[0]
    ssn = next(field for field in spec.fields if field.id == "ssn")
    assert text_in_rect(page, ssn.rect.to_json()) == "123-45-6789"


@pytest.mark.django_db
def test_the_w9_ssn_and_ein_boxes_get_digits(api_client: Client, fw9_template) -> None:
    spec = version_spec(working_version(fw9_template))
    data = example_data(spec)

    assert_examples_valid(spec, data)
    pdf = fill_working_version(api_client, fw9_template, data)
    page = words(pdf)[0]
    combs = [field for field in spec.fields if "SSN" in field.name or "EmployerID" in field.name]
    assert [text_in_rect(page, field.rect.to_json()).replace(" ", "") for field in combs] == [
        "123", "12", "1234", "12", "1234567",
    ]  # fmt: skip
