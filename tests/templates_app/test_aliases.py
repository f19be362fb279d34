"""Imported forms get usable aliases: camelCase identifiers from a meaningful field name, the
tooltip (/TU), or the label printed beside the box; unique within the template, the full name
kept in ``name``. And a fill by the new aliases works."""

from __future__ import annotations

import io
import json
import re
from collections import defaultdict

import pytest
from django.test import Client
from reportlab.pdfgen.canvas import Canvas

from templates_app.engine.aliases import (
    identifier_from_name,
    identifier_from_phrase,
    label_phrase,
    unique_aliases,
)
from templates_app.engine.pdf_import import import_pdf
from templates_app.models import PdfTemplate
from templates_app.services import version_spec, working_version
from tests.fixtures import FILLABLE_PDFS, PDFS
from tests.pdfcheck import text_in_rect, words

CAMEL_CASE = re.compile(r"^[a-z][A-Za-z0-9]*(_\d+)?$")


def test_the_w9_fields_are_named_by_the_labels_beside_their_boxes() -> None:
    spec = import_pdf((PDFS / "irs-fw9-2018.pdf").read_bytes()).spec

    assert [(f.alias, f.type) for f in spec.fields] == [
        ("name", "shortText"),
        ("businessName", "shortText"),
        ("individualSoleProprietor", "checkbox"),
        ("cCorporation", "checkbox"),
        ("sCorporation", "checkbox"),
        ("partnership", "checkbox"),
        ("trustEstate", "checkbox"),
        ("limitedLiabilityCompany", "checkbox"),
        ("taxClassification", "shortText"),
        ("other", "checkbox"),
        ("other2", "shortText"),
        ("exemptPayeeCode", "shortText"),
        ("exemptionFromFatcaReportingCode", "shortText"),
        ("address", "shortText"),
        ("cityStateZipCode", "shortText"),
        ("requestersNameAddress", "longText"),
        ("accountNumber", "shortText"),
        # The three comb boxes of one SSN share the caption above the first.
        ("socialSecurityNumber", "charList"),
        ("socialSecurityNumber2", "charList"),
        ("socialSecurityNumber3", "charList"),
        ("employerIdentificationNumber", "charList"),
        ("employerIdentificationNumber2", "charList"),
    ]
    name = spec.fields[0]
    assert name.name == "topmostSubform[0].Page1[0].f1_1[0]"
    assert name.label == "Name"
    assert spec.fields[1].label == "Business name/disregarded entity name, if different from above"
    assert spec.fields[17].name == "topmostSubform[0].Page1[0].SSN[0].f1_11[0]"


@pytest.mark.parametrize("fixture", FILLABLE_PDFS)
def test_every_fixture_form_gets_camel_case_aliases_unique_per_pdf_field(fixture: str) -> None:
    spec = import_pdf((PDFS / fixture).read_bytes()).spec

    names_of: dict[str, set[str]] = defaultdict(set)
    for field in spec.fields:
        assert CAMEL_CASE.match(field.alias), (field.alias, field.name)
        assert len(field.alias) <= 60
        assert field.name  # the full name stays available
        names_of[field.alias].add(field.name)
    # One alias per field of the PDF; widgets of one field share it (one value fills them).
    assert {alias: len(names) for alias, names in names_of.items() if len(names) > 1} == {}
    assert len({f.name for f in spec.fields}) == len(names_of)


def test_meaningful_names_of_the_other_forms() -> None:
    def aliases(fixture: str) -> list[str]:
        fields = import_pdf((PDFS / fixture).read_bytes()).spec.fields
        return list(dict.fromkeys(f.alias for f in fields))

    assert aliases("libreoffice-form.pdf") == [
        "firstName", "lastName", "female", "birthday", "gdpr", "other", "firstName2", "nationality",
    ]  # fmt: skip
    assert aliases("pdflib-fancy-fields.pdf")[:5] == [
        "prefix", "lastName", "middleInitial", "areYouAFairy", "firstName",
    ]  # fmt: skip
    cra = import_pdf((PDFS / "ca-cra-b300-cannabis-duty.pdf").read_bytes()).spec.fields
    assert [f.alias for f in cra[:3]] == ["legalName", "businessNumberRt1", "businessNumberRt"]
    assert cra[0].label == "1. Business information. Legal name."  # the tooltip, as it is


def form(*fields: dict, labels: tuple[tuple[str, float, float], ...] = ()) -> bytes:
    """A one-page form with text fields (reportlab's acroForm) and printed labels."""
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(612, 792))
    canvas.drawString(72, 760, "Application")  # a page needs content to be written
    for text, x, y in labels:
        canvas.drawString(x, y, text)
    for field in fields:
        canvas.acroForm.textfield(width=200, height=18, fontSize=10, **field)
    canvas.save()
    return buffer.getvalue()


def aliases_of(pdf: bytes) -> list[tuple[str, str]]:
    return [(f.alias, f.label) for f in import_pdf(pdf).spec.fields]


def test_a_tooltip_names_a_field_with_a_generated_name() -> None:
    pdf = form(
        {
            "name": "Text1",
            "tooltip": "2. Business name/disregarded entity name, if any",
            "x": 72,
            "y": 700,
        },
        {"name": "Text2", "tooltip": "Step 1(a): First name and middle initial", "x": 72, "y": 650},
        {"name": "f1_3", "tooltip": "Enter your email address (optional).", "x": 72, "y": 600},
    )

    assert aliases_of(pdf) == [
        ("businessName", "2. Business name/disregarded entity name, if any"),
        ("firstNameMiddleInitial", "Step 1(a): First name and middle initial"),
        ("emailAddress", "Enter your email address (optional)."),
    ]


def test_a_meaningful_name_wins_over_tooltip_and_printed_label() -> None:
    pdf = form(
        {
            "name": "LegalName",
            "tooltip": "1. Business information. Legal name.",
            "x": 200,
            "y": 700,
        },
        labels=(("Name of the business:", 72, 705),),
    )

    assert [alias for alias, _ in aliases_of(pdf)] == ["legalName"]


def test_a_printed_label_names_a_field_without_name_or_tooltip() -> None:
    pdf = form(
        {"name": "Text1", "x": 200, "y": 700},
        {"name": "Text2", "x": 72, "y": 600},
        labels=(("Date of birth:", 72, 705), ("Mother's maiden name (if any)", 74, 622)),
    )

    assert aliases_of(pdf) == [
        ("dateOfBirth", "Date of birth"),  # left of the box, on its line
        ("mothersMaidenName", "Mother's maiden name"),  # above the box
    ]


def test_collisions_get_numbers() -> None:
    pdf = form(
        {"name": "Text1", "tooltip": "Phone", "x": 72, "y": 700},
        {"name": "Text2", "tooltip": "Phone", "x": 72, "y": 650},
        {"name": "phone2", "x": 72, "y": 600},
        {"name": "Text4", "x": 72, "y": 550},
    )

    assert [alias for alias, _ in aliases_of(pdf)] == [
        "phone",
        "phone2",
        "phone2_2",
        "text4",
    ]
    assert unique_aliases(["a", "a", "a2", "a"]) == ["a", "a2", "a2_2", "a3"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1  Name (as shown on your income tax return). Name is required on this line.", "name"),
        ("5  Address (number, street, and apt. or suite no.) See instructions.", "address"),
        ("6  City, state, and ZIP code", "cityStateZipCode"),
        ("7  List account number(s) here (optional)", "accountNumber"),
        (" C Corporation", "cCorporation"),
        ("Requester’s name and address (optional)", "requestersNameAddress"),
        ("Part IV. Certification", "certification"),
        ("Numéro d'assurance sociale", "numeroDassuranceSociale"),
    ],
)
def test_label_text_to_identifier(text: str, expected: str) -> None:
    phrase = label_phrase(text)
    assert phrase is not None
    assert identifier_from_phrase(phrase) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("LegalName", "legalName"),
        ("OI_Flowering", "oiFlowering"),
        ("First Name_2", "firstName2"),
        ("full_name", "fullName"),
        ("Are You A Fairy? 🌿", "areYouAFairy"),
        ("1099 Amount", "field1099Amount"),
        ("f1_1", None),
        ("c1_1", None),
        ("Text3", None),
        ("Check Box 2", None),
        ("RadioButtonGroup", None),
        ("topmostSubform", None),
    ],
)
def test_generated_names_are_not_aliases(name: str, expected: str | None) -> None:
    assert identifier_from_name(name) == expected


@pytest.mark.django_db
def test_a_fill_by_the_new_aliases_puts_the_values_in_their_boxes(
    api_client: Client, fw9_template: PdfTemplate
) -> None:
    spec = version_spec(working_version(fw9_template))
    by_alias = {f.alias: f for f in spec.fields}

    response = api_client.post(
        f"/api/v1/fill/{fw9_template.eid}.pdf",
        data=json.dumps(
            {
                "data": {
                    "name": "Ada Lovelace",
                    "cityStateZipCode": "London W1",
                    "socialSecurityNumber": "123",
                    "cCorporation": True,
                }
            }
        ),
        content_type="application/json",
    )

    assert response.status_code == 200, response.content[:300]
    page = words(response.content)[0]
    assert text_in_rect(page, by_alias["name"].rect.to_json()) == "Ada Lovelace"
    assert text_in_rect(page, by_alias["cityStateZipCode"].rect.to_json()) == "London W1"
    ssn = text_in_rect(page, by_alias["socialSecurityNumber"].rect.to_json())
    assert ssn.replace(" ", "") == "123"
