"""Conditions beyond "has a value" (workflows.engine.conditions): each operator, rules on a
repeating group's fields, several rules under all / any, the old ``{field, hasValue: true}``
read as before, and what a condition's JSON may not be. CASES is the table the browser's
``conditionHolds`` (static/workflows/checks.js) is held to as well
(test_condition_rules_browser.py)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from workflows.engine.conditions import ConditionInvalid, parse_condition

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
