"""The workflow engine without Django: value rules per field type, the definition's checks and
JSON form, and what a submission resolves to. ``CASES`` is also run in a browser against
form.js (test_rules_browser.py): the two must agree on every one."""

from __future__ import annotations

from typing import Any

import pytest

from core.engine.problems import InvalidInput
from workflows.engine.definition import FieldDef, compatible, parse_definition
from workflows.engine.form_inputs import form_strings, form_value
from workflows.engine.resolve import (
    check_payload,
    completion_percentage,
    display_title,
    document_data,
    resolved_payload,
)
from workflows.engine.rules import (
    EMPTY,
    PHONE_REGION_INFO,
    FieldInvalid,
    check_value,
    national_number,
)

FIELDS: dict[str, FieldDef] = {
    "text": FieldDef("text", "shortText", "Text", min_length=2, max_length=5),
    "required": FieldDef("required", "shortText", "Required", required=True),
    "email": FieldDef("email", "email", "Email"),
    "ssn": FieldDef("ssn", "ssn", "SSN"),
    "ein": FieldDef("ein", "ein", "EIN"),
    "date": FieldDef("date", "date", "Date"),
    "amount": FieldDef("amount", "dollar", "Amount", min_value=1, max_value=5000),
    "count": FieldDef("count", "integer", "Count"),
    "share": FieldDef("share", "percent", "Share"),
    "rate": FieldDef("rate", "number", "Rate", min_value=0.5),
    "colour": FieldDef("colour", "radioGroup", "Colour", options=(("red", "Red"), ("blue", "B"))),
    "agree": FieldDef("agree", "checkbox", "Agree", required=True),
    "name": FieldDef("name", "fullName", "Name", required=True),
    "optionalName": FieldDef("optionalName", "fullName", "Name"),
    "address": FieldDef("address", "usAddress", "Address"),
    "phone": FieldDef("phone", "phone", "Phone"),
    "ukPhone": FieldDef("ukPhone", "phone", "Phone", base_region="GB"),
    "notes": FieldDef("notes", "textWrap", "Notes", max_length=20),
}

# (field, the value as the page's inputs give it, the message or "" when it passes)
CASES: list[tuple[str, Any, str]] = [
    ("text", "", ""),
    ("text", "  ", ""),
    ("text", "a", "Use at least 2 characters."),
    ("text", " abc ", ""),
    ("text", "abcdef", "Use at most 5 characters."),
    ("required", "", "This field is required."),
    ("required", "x", ""),
    ("email", "ada@example.com", ""),
    ("email", "ada@example", "Enter an email address, like name@example.com."),
    ("email", "a b@example.com", "Enter an email address, like name@example.com."),
    ("ssn", "123-45-6789", ""),
    ("ssn", "123 45 6789", ""),
    ("ssn", "12345678", "Enter the 9 digits of a social security number, like 123-45-6789."),
    ("ssn", "000-12-3456", "This is not a valid social security number."),
    ("ssn", "666-12-3456", "This is not a valid social security number."),
    ("ssn", "912-12-3456", "This is not a valid social security number."),
    ("ssn", "123-00-3456", "This is not a valid social security number."),
    ("ssn", "123-45-0000", "This is not a valid social security number."),
    ("ein", "12-3456789", ""),
    ("ein", "00-3456789", "This is not a valid employer identification number."),
    ("ein", "12-34567x9", "Enter the 9 digits of an employer identification number, like 12-3456789."),
    ("date", "2024-02-29", ""),
    ("date", "2023-02-29", "This date does not exist."),
    ("date", "2024-13-01", "This date does not exist."),
    ("date", "02/03/2024", "Enter a date as YYYY-MM-DD."),
    ("amount", "$1,234.50", ""),
    ("amount", "1234.5", ""),
    ("amount", "0.5", "Enter a number of at least 1."),
    ("amount", "5000.01", "Enter a number of at most 5000."),
    ("amount", "12,34", "Enter a number, like 1234.56."),
    ("amount", "1e3", "Enter a number, like 1234.56."),
    ("amount", "$", "Enter a number, like 1234.56."),
    ("count", "3", ""),
    ("count", "3.5", "Enter a whole number."),
    ("count", "-2", ""),
    ("count", "1,000,000,000,000,000", "Enter a number below 1,000,000,000,000,000."),
    ("share", "12.5%", ""),
    ("share", "100", ""),
    ("share", "101", "Enter a number from 0 to 100."),
    ("rate", "0.25", "Enter a number of at least 0.5."),
    ("rate", ".75", ""),
    ("colour", "red", ""),
    ("colour", "green", "Choose one of the options."),
    ("colour", None, ""),
    ("agree", True, ""),
    ("agree", False, "Check this box to continue."),
    ("name", {"firstName": "Ada", "mi": "", "lastName": "Lovelace"}, ""),
    ("name", {"firstName": "Ada", "mi": "", "lastName": ""}, "Enter a first name and a last name."),
    ("name", {"firstName": "", "mi": "", "lastName": ""}, "This field is required."),
    ("name", {"firstName": "Ada", "mi": "BCDEFG", "lastName": "L"},
     "Use at most 5 characters for the middle initial."),
    ("optionalName", {"firstName": "Ada", "mi": "", "lastName": ""}, ""),
    ("optionalName", {"firstName": "x" * 201, "mi": "", "lastName": ""},
     "Use at most 200 characters in each part."),
    ("address", {"street1": "1 Main St", "street2": "", "city": "Boston", "state": "ma",
                 "zip": "02110", "country": ""}, ""),
    ("address", {"street1": "1 Main St", "street2": "", "city": "Boston", "state": "MA",
                 "zip": "02110-1234", "country": ""}, ""),
    ("address", {"street1": "1 Main St", "street2": "", "city": "", "state": "MA", "zip": "02110",
                 "country": ""}, "Enter the street, city, state and ZIP code."),
    ("address", {"street1": "1 Main St", "street2": "", "city": "Boston", "state": "ZZ",
                 "zip": "02110", "country": ""}, "Use the two-letter code of a US state, like CA."),
    ("address", {"street1": "1 Main St", "street2": "", "city": "Boston", "state": "MA",
                 "zip": "2110", "country": ""}, "Enter a 5-digit ZIP code, or ZIP+4 like 94105-1234."),
    ("address", {"street1": "", "street2": "", "city": "", "state": "", "zip": "",
                 "country": ""}, ""),
    ("phone", {"num": "(415) 555-0132", "region": "US"}, ""),
    ("phone", {"num": "1 415 555 0132", "region": "US"}, ""),
    ("phone", {"num": "+1 415 555 0132", "region": "US"}, ""),
    ("phone", {"num": "415 555 013", "region": "US"}, "Enter a complete phone number for United States."),
    ("phone", {"num": "+44 20 7946 0958", "region": "US"},
     "Enter a complete phone number for United States."),
    ("phone", {"num": "020 7946 0958", "region": "GB"}, ""),
    ("phone", {"num": "+44 20 7946 0958", "region": "GB"}, ""),
    ("phone", {"num": "020 7946", "region": "GB"}, "Enter a complete phone number for United Kingdom."),
    ("phone", {"num": "55 1234 5678", "region": "MX"}, ""),
    ("phone", {"num": "55 1234 567", "region": "MX"}, "Enter a complete phone number for Mexico."),
    ("phone", {"num": "876 555 0123", "region": "JM"}, ""),
    ("phone", {"num": "", "region": "US"}, ""),
    ("phone", {"num": "415 555 0132", "region": "FR"},
     "Choose a region of the +1, +44 or +52 codes (US, CA, GB, MX...)."),
    ("ukPhone", {"num": "020 7946 0958", "region": ""}, ""),
    ("notes", "line one\nline two", ""),
    ("notes", "x" * 21, "Use at most 20 characters."),
]  # fmt: skip


def message(field: FieldDef, raw: Any) -> str:
    try:
        check_value(field, raw)
    except FieldInvalid as invalid:
        return str(invalid)
    return ""


@pytest.mark.parametrize(("key", "raw", "expected"), CASES)
def test_each_rule(key: str, raw: Any, expected: str) -> None:
    assert message(FIELDS[key], raw) == expected


def test_values_are_normalized_as_stored() -> None:
    assert check_value(FIELDS["ssn"], "123-45-6789") == "123456789"
    assert check_value(FIELDS["amount"], "$1,234.50") == 1234.5
    assert check_value(FIELDS["amount"], "12") == 12
    assert check_value(FIELDS["count"], 7.0) == 7
    assert check_value(FIELDS["share"], "12.5%") == 12.5
    assert check_value(FIELDS["text"], " abc ") == "abc"
    assert check_value(FIELDS["agree"], True) is True
    assert check_value(FIELDS["optionalName"], {"firstName": " Ada ", "mi": ""}) == {
        "firstName": "Ada"
    }
    assert check_value(FIELDS["address"], {"street1": "1 Main", "city": "X", "state": "ma",
                                           "zip": "02110"})["state"] == "MA"  # fmt: skip
    assert check_value(FIELDS["ukPhone"], {"num": "020 7946 0958"}) == {
        "num": "020 7946 0958",
        "region": "GB",
        "baseRegion": "GB",
    }
    # A plain string is a US number shown as a local one (the spec's phone rule).
    assert check_value(FIELDS["phone"], "415 555 0132") == {
        "num": "415 555 0132",
        "region": "US",
        "baseRegion": "US",
    }
    assert check_value(FIELDS["notes"], ["a", "b"]) == "a\nb"
    assert check_value(FIELDS["colour"], None) is EMPTY


@pytest.mark.parametrize(
    ("raw", "kind"),
    [(123, "text"), (True, "text"), ({"num": 5}, "phone"), ([1], "text"), ("x", "name")],
)
def test_wrong_kinds_of_values_are_refused_not_crashed(raw: Any, kind: str) -> None:
    field = {"text": FIELDS["email"], "phone": FIELDS["phone"], "name": FIELDS["name"]}[kind]
    if kind == "phone":
        assert message(field, raw) == "Enter a complete phone number for United States."
    else:
        assert message(field, raw) != ""


def test_phone_regions_are_those_of_the_spec() -> None:
    assert list(PHONE_REGION_INFO)[:4] == ["US", "CA", "GB", "MX"]
    assert {info["code"] for info in PHONE_REGION_INFO.values()} == {1, 44, 52}
    assert national_number("+1 (415) 555-0132", "US") == "4155550132"
    assert national_number("0044 20 7946 0958", "GB") is None


def test_form_values_and_strings_go_both_ways() -> None:
    posted = {"name.firstName": "Ada", "name.lastName": "L", "phone.num": "1", "agree": "on"}
    assert form_value(FIELDS["name"], posted.get) == {
        "firstName": "Ada",
        "mi": "",
        "lastName": "L",
    }
    assert form_value(FIELDS["ukPhone"], {}.get) == {"num": "", "region": "GB"}
    assert form_value(FIELDS["agree"], posted.get) is True
    assert form_value(FIELDS["agree"], {}.get) is False
    assert form_strings(FIELDS["amount"], 12.0) == {"amount": "12"}
    assert form_strings(FIELDS["agree"], False) == {}
    assert form_strings(FIELDS["phone"], {"num": "5", "region": "US", "baseRegion": "US"}) == {
        "phone.num": "5",
        "phone.region": "US",
    }


def definition(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "slug": "lease",
        "name": "Lease",
        "webforms": [
            {"slug": "tenant", "name": "Tenant", "pages": [
                {"title": "You", "fields": [
                    {"key": "name", "type": "fullName", "label": "Name", "required": True},
                    {"key": "email", "type": "email", "label": "Email"},
                ]},
                {"title": "Money", "fields": [
                    {"key": "rent", "type": "dollar", "label": "Rent", "validation": {"min": 1}},
                ]},
            ]},
        ],
        "documents": [{"template": {"eid": "T1", "title": "Lease"}, "mappings": [
            {"alias": "tenantName", "forge": "tenant", "field": "name"},
            {"alias": "rent", "forge": "tenant", "field": "rent"},
        ]}],
    }  # fmt: skip
    base.update(overrides)
    return base


def test_a_definition_round_trips_through_json() -> None:
    parsed = parse_definition(definition())
    again = parse_definition(parsed.to_json())

    assert again == parsed
    assert parsed.to_json()["format"] == "workflow/1"
    assert parsed.documents[0].filename == "Lease.pdf"
    assert [(w.slug, i) for w, i in parsed.steps()] == [("tenant", 0), ("tenant", 1)]


def test_every_problem_of_a_definition_is_named() -> None:
    bad = definition(slug="Not A Slug")
    bad["webforms"][0]["pages"][0]["fields"].append(
        {"key": "name", "type": "nope", "label": "", "default": 3}
    )
    bad["webforms"][0]["pages"][1]["fields"][0]["validation"] = {"min": 10, "max": 1}
    bad["documents"][0]["mappings"].append({"alias": "x", "forge": "tenant", "field": "ghost"})
    bad["signers"] = [{"nameField": {"forge": "tenant", "field": "email"}, "fields": []}]

    with pytest.raises(InvalidInput) as raised:
        parse_definition(bad)

    assert {(p.path, p.message) for p in raised.value.problems} == {
        ("slug", "Use lowercase letters, digits and dashes."),
        ("webforms.0.pages.0.fields.2.type",
         "Must be one of shortText, longText, email, ssn, ein, date, radioGroup, imageFile, "
         "checkbox, number, dollar, integer, percent, charList, textWrap, fullName, usAddress, "
         "phone."),
        ("webforms.0.pages.0.fields.2.label", "Required"),
        ("webforms.0.pages.1.fields.0.validation.max", "Must not be below the minimum."),
        ("signers.0.fields", "A signer needs at least one box to sign."),
        ("signers.0.nameField", "Must name a full name or text field."),
    }  # fmt: skip


def test_a_mapping_names_a_field_of_the_workflow() -> None:
    bad = definition()
    bad["documents"][0]["mappings"].append({"alias": "x", "forge": "tenant", "field": "ghost"})

    with pytest.raises(InvalidInput) as raised:
        parse_definition(bad)

    assert [(p.path, p.message) for p in raised.value.problems] == [
        ("documents.0.mappings.2", "No field 'ghost' in webform 'tenant'.")
    ]


def test_a_default_must_pass_its_fields_rule() -> None:
    bad = definition()
    bad["webforms"][0]["pages"][1]["fields"][0]["default"] = "0.5"

    with pytest.raises(InvalidInput) as raised:
        parse_definition(bad)

    [problem] = raised.value.problems
    assert problem.path == "webforms.0.pages.1.fields.0.default"
    assert problem.message == "Enter a number of at least 1."


def test_what_a_submission_resolves_to() -> None:
    parsed = parse_definition(definition())
    webform = parsed.webforms[0]
    payload = {"name": {"firstName": "Ada", "lastName": "Lovelace"}, "rent": 1200}

    assert resolved_payload(webform, payload) == {
        "name": {"type": "fullName", "value": payload["name"], "label": "Name"},
        "rent": {"type": "dollar", "value": 1200, "label": "Rent"},
    }
    assert document_data(parsed, parsed.documents[0], {"tenant": payload}) == {
        "tenantName": payload["name"],
        "rent": 1200,
    }
    assert display_title(parsed, {"tenant": payload}) == "Lease: Ada Lovelace"
    assert display_title(parsed, {}) == "Lease"
    assert completion_percentage(parsed, set()) == 0.0
    assert completion_percentage(parsed, {"tenant"}) == 100.0
    partial = check_payload(webform, {"email": "x", "unknown": 1}, only_given=True)
    assert {k: str(m) for k, m in partial.errors.items()} == {
        "email": "Enter an email address, like name@example.com."
    }
    whole = check_payload(webform, {}, only_given=False)
    assert {k: str(m) for k, m in whole.errors.items()} == {"name": "This field is required."}


@pytest.mark.parametrize(
    ("source", "target", "fits"),
    [
        ("email", "email", True),
        ("shortText", "email", True),
        ("ssn", "shortText", True),
        ("dollar", "number", True),
        ("number", "percent", False),
        ("percent", "percent", True),
        ("fullName", "shortText", False),
        ("date", "longText", True),
        ("checkbox", "shortText", False),
    ],
)
def test_which_fields_may_fill_which(source: str, target: str, fits: bool) -> None:
    assert compatible(source, target) is fits


def test_every_message_can_be_given() -> None:
    from workflows.engine.rules import MESSAGES

    for key in MESSAGES:
        text = str(FieldInvalid(key, min=1, max=2, region="Mexico"))
        assert "{" not in text, key
