"""Conditions beyond "has a value" (workflows.engine.conditions): each operator, rules on a
repeating group's fields, several rules under all / any, the old ``{field, hasValue: true}``
read as before, what a condition's JSON may not be; then in a definition (kept through its
JSON, naming earlier fields only) and enforced by the server (pages and fields hidden, hidden
values dropped). CASES is the table the browser's
``conditionHolds`` (static/workflows/checks.js) is held to as well
(test_condition_rules_browser.py)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from core.engine.problems import InvalidInput
from workflows.engine.conditions import ConditionInvalid, parse_condition
from workflows.engine.definition import parse_definition
from workflows.engine.resolve import check_fields, drop_hidden, hidden_pages
from workflows.engine.rules import EMPTY

VALUES: dict[str, Any] = {
    "pet": "dog",
    "rent": 1200,
    "typedRent": "$1,200.50",
    "share": Decimal("12.5"),
    "agree": True,
    "optOut": False,
    "blank": "",
    "name": {"firstName": "Ada", "lastName": "Lovelace"},
    "items": [{"description": "Desk", "price": 80}, {"description": "Chair", "price": 150}],
}

# (condition, holds for VALUES)
CASES: list[tuple[dict[str, Any], bool]] = [
    # hasValue: the one condition there was, read as before
    ({"field": "pet", "hasValue": True}, True),
    ({"field": "blank", "hasValue": True}, False),
    ({"field": "missing", "hasValue": True}, False),
    ({"field": "optOut", "hasValue": True}, False),
    # equals
    ({"field": "pet", "equals": "dog"}, True),
    ({"field": "pet", "equals": " dog "}, True),
    ({"field": "pet", "equals": "Dog"}, False),
    ({"field": "rent", "equals": 1200}, True),
    ({"field": "typedRent", "equals": 1200.5}, True),
    ({"field": "rent", "equals": "1200"}, True),
    ({"field": "agree", "equals": True}, True),
    ({"field": "optOut", "equals": False}, True),
    ({"field": "blank", "equals": ""}, False),
    ({"field": "name", "equals": "Ada"}, False),
    # notEquals
    ({"field": "pet", "notEquals": "cat"}, True),
    ({"field": "pet", "notEquals": "dog"}, False),
    ({"field": "missing", "notEquals": "cat"}, False),
    ({"field": "optOut", "notEquals": True}, True),
    # oneOf
    ({"field": "pet", "oneOf": ["cat", "dog"]}, True),
    ({"field": "pet", "oneOf": ["cat", "bird"]}, False),
    ({"field": "rent", "oneOf": [1000, 1200]}, True),
    ({"field": "missing", "oneOf": ["cat"]}, False),
    # numbers: lt, lte, gt, gte
    ({"field": "rent", "lt": 1200}, False),
    ({"field": "rent", "lt": 1201}, True),
    ({"field": "rent", "lte": 1200}, True),
    ({"field": "rent", "lte": 1199.99}, False),
    ({"field": "rent", "gt": 1000}, True),
    ({"field": "rent", "gt": 1200}, False),
    ({"field": "rent", "gte": 1200}, True),
    ({"field": "rent", "gte": 1200.01}, False),
    ({"field": "typedRent", "gt": 1200}, True),
    ({"field": "share", "lt": 13}, True),
    ({"field": "pet", "gt": 0}, False),
    ({"field": "agree", "gt": 0}, False),
    ({"field": "missing", "lt": 10}, False),
    # a repeating group's field: at least one entry
    ({"field": "items.price", "gt": 100}, True),
    ({"field": "items.price", "gt": 200}, False),
    ({"field": "items.description", "equals": "Desk"}, True),
    ({"field": "items.description", "oneOf": ["Lamp", "Sofa"]}, False),
    ({"field": "pet.price", "gt": 1}, False),
    # several rules
    ({"all": [{"field": "pet", "equals": "dog"}, {"field": "rent", "gte": 1000}]}, True),
    ({"all": [{"field": "pet", "equals": "dog"}, {"field": "rent", "lt": 1000}]}, False),
    ({"any": [{"field": "pet", "equals": "cat"}, {"field": "rent", "lt": 1000}]}, False),
    ({"any": [{"field": "pet", "equals": "cat"}, {"field": "items.price", "gte": 150}]}, True),
]


@pytest.mark.parametrize(("condition", "expected"), CASES, ids=[str(c) for c, _ in CASES])
def test_each_rule_holds_as_the_table_says(condition: dict[str, Any], expected: bool) -> None:
    assert parse_condition(condition).holds(VALUES) is expected


def test_a_condition_keeps_its_json_and_names_its_keys() -> None:
    one = {"field": "pet", "hasValue": True}
    several = {"any": [{"field": "pet", "oneOf": ["cat"]}, {"field": "items.price", "lt": 5}]}

    assert parse_condition(one).to_json() == one
    assert parse_condition(several).to_json() == several
    assert parse_condition(several).keys == ("pet", "items.price")


@pytest.mark.parametrize(
    ("raw", "path", "message"),
    [
        ("pet", "", "Must be an object."),
        ({"field": "pet", "hasValue": False}, "hasValue", "Must be true."),
        ({"field": "pet"}, "", "Give the field and one of: hasValue, equals, notEquals, oneOf, "
                               "lt, lte, gt, gte."),
        ({"field": "pet", "equals": "a", "gt": 1}, "", "Give the field and one of: hasValue, "
                                                     "equals, notEquals, oneOf, lt, lte, gt, gte."),
        ({"field": "1pet", "equals": "a"}, "field", "Must be the key of an earlier field."),
        ({"field": "pet", "equals": ["a"]}, "equals", "Must be a text, a number, true or false."),
        ({"field": "pet", "oneOf": []}, "oneOf", "Must be a list of 1 to 50 values."),
        ({"field": "rent", "gt": "5"}, "gt", "Must be a number."),
        ({"field": "rent", "lt": True}, "lt", "Must be a number."),
        ({"all": []}, "all", "Must be a list of 1 to 10 rules."),
        ({"all": [{"field": "a", "hasValue": True}], "any": []}, "", "Use either all or any, "
                                                                      "alone."),
        ({"any": [{"field": "a", "between": 1}]}, "any.0", "Give the field and one of: "
         "hasValue, equals, notEquals, oneOf, lt, lte, gt, gte."),
    ],
)  # fmt: skip
def test_a_condition_that_is_not_one_says_where_and_why(raw: Any, path: str, message: str) -> None:
    with pytest.raises(ConditionInvalid) as caught:
        parse_condition(raw)

    assert (caught.value.path, caught.value.message) == (path, message)


# --- in a definition, and enforced by the server -------------------------------------------------


def lease(page_condition: Any, field_condition: Any) -> dict[str, Any]:
    """You (kind, rent), Items (a repeating group), Extras (conditional page, a field with a
    condition of its own)."""
    return {
        "format": "workflow/1",
        "slug": "lease",
        "name": "Lease",
        "webforms": [{"slug": "you", "name": "You", "pages": [
            {"title": "You", "fields": [
                {"key": "kind", "type": "radioGroup", "label": "Kind",
                 "options": [{"value": "flat", "label": "Flat"},
                             {"value": "house", "label": "House"}]},
                {"key": "rent", "type": "dollar", "label": "Rent"}]},
            {"title": "Items", "groups": [{"key": "items", "label": "Items", "fields": [
                {"key": "price", "type": "dollar", "label": "Price"}]}],
             "fields": [{"key": "note", "type": "shortText", "label": "Note"}]},
            {"title": "Extras", "showWhen": page_condition, "fields": [
                {"key": "garden", "type": "shortText", "label": "Garden", "required": True,
                 "showWhen": field_condition},
                {"key": "extra", "type": "shortText", "label": "Extra", "required": True}]},
        ]}],
    }  # fmt: skip


PAGE = {"any": [{"field": "rent", "gte": 2000}, {"field": "items.price", "gt": 100}]}
FIELD = {"all": [{"field": "kind", "equals": "house"}, {"field": "rent", "lt": 5000}]}


def test_a_definition_keeps_each_kind_of_condition_through_its_json() -> None:
    definition = parse_definition(lease(PAGE, FIELD))
    extras = definition.to_json()["webforms"][0]["pages"][2]

    assert extras["showWhen"] == PAGE
    assert extras["fields"][0]["showWhen"] == FIELD
    assert parse_definition(definition.to_json()) == definition
    # The one condition there was is kept as it always was: the key alone.
    old = parse_definition(lease({"field": "rent", "hasValue": True}, None))
    assert old.webforms[0].pages[2].show_when == "rent"


@pytest.mark.parametrize(
    ("page_condition", "field_condition", "path", "message"),
    [
        ({"all": [{"field": "rent", "gt": 1}, {"field": "later", "gt": 1}]}, None,
         "webforms.0.pages.2.showWhen.field", "No field on an earlier page has the key 'later'."),
        ({"field": "items.colour", "equals": "red"}, None,
         "webforms.0.pages.2.showWhen.field",
         "No field on an earlier page has the key 'items.colour'."),
        (None, {"field": "note", "gtt": 1}, "webforms.0.pages.2.fields.0.showWhen",
         "Give the field and one of: hasValue, equals, notEquals, oneOf, lt, lte, gt, gte."),
        (None, {"field": "extra", "hasValue": True}, "webforms.0.pages.2.fields.0.showWhen.field",
         "No earlier field has the key 'extra'."),
        ({"field": "rent", "between": [1, 2]}, None, "webforms.0.pages.2.showWhen",
         "Give the field and one of: hasValue, equals, notEquals, oneOf, lt, lte, gt, gte."),
    ],
)  # fmt: skip
def test_a_condition_names_earlier_fields_only(
    page_condition: Any, field_condition: Any, path: str, message: str
) -> None:
    raw = lease(page_condition, field_condition)
    with pytest.raises(InvalidInput) as refused:
        parse_definition(raw)

    assert [(p.path, p.message) for p in refused.value.problems] == [(path, message)]


@pytest.mark.parametrize(
    ("payload", "hidden"),
    [
        ({"kind": "flat", "rent": 900}, {2}),
        ({"kind": "flat", "rent": 2500}, set()),
        ({"kind": "flat", "rent": 900, "items": [{"price": 50}, {"price": 150}]}, set()),
        ({"kind": "flat", "items": [{"price": 50}]}, {2}),
    ],
)
def test_a_page_shows_as_its_condition_says(payload: dict[str, Any], hidden: set[int]) -> None:
    webform = parse_definition(lease(PAGE, FIELD)).webforms[0]

    assert hidden_pages(webform, payload) == hidden


def test_a_field_hidden_by_its_rules_is_not_required_and_its_value_is_dropped() -> None:
    webform = parse_definition(lease(None, FIELD)).webforms[0]
    fields = webform.pages[2].fields

    flat = check_fields(fields, {"garden": "big", "extra": "x"}, known={"kind": "flat"})
    house = check_fields(fields, {"garden": "", "extra": "x"}, known={"kind": "house", "rent": 1})
    dear = check_fields(fields, {"garden": "", "extra": "x"}, known={"kind": "house", "rent": 9e3})

    assert (flat.values, flat.errors) == ({"garden": EMPTY, "extra": "x"}, {})
    assert {k: str(m) for k, m in house.errors.items()} == {"garden": "This field is required."}
    assert (dear.values, dear.errors) == ({"garden": EMPTY, "extra": "x"}, {})
    payload = {"kind": "flat", "rent": 1, "garden": "big"}
    assert drop_hidden(webform, payload) == {"kind": "flat", "rent": 1}


# --- a value compared with a field's options -------------------------------------------------


@pytest.mark.parametrize(
    ("page_condition", "field_condition", "path", "value"),
    [
        ({"field": "kind", "equals": "House"}, None, "webforms.0.pages.2.showWhen.equals",
         "'House'"),
        ({"field": "kind", "notEquals": "barn"}, None, "webforms.0.pages.2.showWhen.notEquals",
         "'barn'"),
        ({"any": [{"field": "rent", "gt": 1}, {"field": "kind", "oneOf": ["flat", "Yes"]}]},
         None, "webforms.0.pages.2.showWhen.any.1.oneOf", "'Yes'"),
        (None, {"field": "kind", "equals": 1}, "webforms.0.pages.2.fields.0.showWhen.equals",
         "1"),
    ],
)  # fmt: skip
def test_a_value_no_option_of_the_field_has_is_refused(
    page_condition: Any, field_condition: Any, path: str, value: str
) -> None:
    with pytest.raises(InvalidInput) as refused:
        parse_definition(lease(page_condition, field_condition))

    message = f"No option of 'kind' has the value {value}; its values: 'flat', 'house'."
    assert [(p.path, p.message) for p in refused.value.problems] == [(path, message)]


def test_values_an_option_has_pass_and_a_kept_definition_is_read_as_it_was() -> None:
    for condition in [
        {"field": "kind", "equals": "house"},
        {"field": "kind", "equals": " house "},
        {"field": "kind", "oneOf": ["flat", "house"]},
        {"field": "kind", "notEquals": "flat"},
        {"field": "kind", "hasValue": True},
    ]:
        parse_definition(lease(condition, None))
    # Kept (a published version, a submission's) before options were checked: still read.
    kept = parse_definition(lease({"field": "kind", "equals": "House"}, None), kept=True)
    assert kept.webforms[0].pages[2].show_when == '{"field":"kind","equals":"House"}'
