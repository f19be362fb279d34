"""Conditions beyond "has a value": what a ``showWhen`` may say, and whether it holds.

A condition is one rule, or several under ``all`` / ``any``::

    {"field": "pet", "hasValue": true}                  # the one condition there was
    {"field": "pet", "equals": "dog"}
    {"field": "pet", "notEquals": "cat"}
    {"field": "pet", "oneOf": ["cat", "dog"]}
    {"field": "rent", "gt": 1000}                        # lt, lte, gt, gte: numbers
    {"field": "items.price", "gte": 100}                 # a field of a repeating group
    {"all": [rule, ...]}  /  {"any": [rule, ...]}        # several rules

How a rule reads a value (the browser's ``conditionHolds`` in static/workflows/checks.js reads
it the same way, and tests hold the two to the same table):

- ``hasValue`` is ``rules.has_value``: anything but blank, a checkbox only when ticked.
- Any other rule on a blank value does not hold (``notEquals`` included: nothing answered is not
  "not cat" yet). An unticked checkbox is ``false``, not blank.
- ``equals`` / ``notEquals`` / ``oneOf`` compare with the kind of what is expected: a number as a
  number (``"1,200"`` typed equals ``1200``), ``true`` / ``false`` as a checkbox, text as text
  (spaces around it ignored). A name, address or phone (an object) equals nothing.
- ``lt`` ``lte`` ``gt`` ``gte`` hold only for a value that reads as a number (``$``, ``%``,
  commas and spaces ignored).
- ``<group>.<field>`` holds when the rule holds for that field of at least one entry.

Pure Python: no Django.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from workflows.engine.rules import has_value

COMPARISONS = ("lt", "lte", "gt", "gte")
OPERATORS = ("hasValue", "equals", "notEquals", "oneOf", *COMPARISONS)
MAX_RULES = 10
MAX_CHOICES = 50
MAX_TEXT = 2000  # characters of a condition as kept (condition_text): the rows' column
_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}(\.[A-Za-z][A-Za-z0-9_]{0,63})?$")
_NUMBER = re.compile(r"^-?(\d+\.?\d*|\.\d+)$")
_NOT_IN_NUMBER = re.compile(r"[\s,$%]")


class ConditionInvalid(ValueError):
    """What is wrong with a condition, at ``path`` (relative to the condition)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


@dataclass(frozen=True)
class Rule:
    field: str  # a key, or <group key>.<field key>
    op: str
    value: Any = True

    def to_json(self) -> dict[str, Any]:
        return {"field": self.field, self.op: self.value}


@dataclass(frozen=True)
class Condition:
    rules: tuple[Rule, ...]
    match: str = "all"  # "all" or "any"

    @property
    def keys(self) -> tuple[str, ...]:
        """The keys the rules name, in order (``items.price`` for a group's field)."""
        return tuple(rule.field for rule in self.rules)

    def to_json(self) -> dict[str, Any]:
        if len(self.rules) == 1 and self.match == "all":
            return self.rules[0].to_json()
        return {self.match: [rule.to_json() for rule in self.rules]}

    def holds(self, values: Mapping[str, Any]) -> bool:
        """Whether the condition holds for ``values`` (a payload: key -> value, a group's key
        -> its entries)."""
        met = (rule_holds(rule, values) for rule in self.rules)
        return all(met) if self.match == "all" else any(met)


def parse_condition(raw: Any) -> Condition:
    """The condition of a ``showWhen``'s JSON; ConditionInvalid says what is wrong."""
    if not isinstance(raw, Mapping):
        raise ConditionInvalid("", "Must be an object.")
    several = [name for name in ("all", "any") if name in raw]
    if not several:
        return Condition((_rule(raw, ""),))
    if len(several) > 1 or len(raw) > 1:
        raise ConditionInvalid("", "Use either all or any, alone.")
    match = several[0]
    listed = raw[match]
    if not isinstance(listed, list) or not 1 <= len(listed) <= MAX_RULES:
        raise ConditionInvalid(match, f"Must be a list of 1 to {MAX_RULES} rules.")
    return Condition(tuple(_rule(r, f"{match}.{n}") for n, r in enumerate(listed)), match)


def _rule(raw: Any, path: str) -> Rule:
    at = f"{path}." if path else ""
    if not isinstance(raw, Mapping):
        raise ConditionInvalid(path, "Must be an object.")
    key = raw.get("field")
    if not isinstance(key, str) or not _KEY.match(key):
        raise ConditionInvalid(f"{at}field", "Must be the key of an earlier field.")
    ops = [name for name in raw if name != "field"]
    if len(ops) != 1 or ops[0] not in OPERATORS:
        raise ConditionInvalid(path, f"Give the field and one of: {', '.join(OPERATORS)}.")
    op = ops[0]
    value = raw[op]
    if op == "hasValue" and value is not True:
        raise ConditionInvalid(f"{at}hasValue", "Must be true.")
    if op in ("equals", "notEquals") and not _scalar(value):
        raise ConditionInvalid(f"{at}{op}", "Must be a text, a number, true or false.")
    if op == "oneOf" and (
        not isinstance(value, list)
        or not 1 <= len(value) <= MAX_CHOICES
        or not all(_scalar(v) for v in value)
    ):
        raise ConditionInvalid(f"{at}oneOf", f"Must be a list of 1 to {MAX_CHOICES} values.")
    if op in COMPARISONS and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise ConditionInvalid(f"{at}{op}", "Must be a number.")
    return Rule(key, op, list(value) if op == "oneOf" else value)


def condition_text(condition: Condition) -> str:
    """How a definition keeps a condition (``show_when``, a row's column): the key alone for
    the one condition there was, ``{field, hasValue: true}`` (as stored before), else its JSON."""
    rule = condition.rules[0]
    if len(condition.rules) == 1 and rule.op == "hasValue" and "." not in rule.field:
        return rule.field
    return json.dumps(condition.to_json(), separators=(",", ":"), ensure_ascii=False)


def kept_condition(raw: Any) -> str:
    """A showWhen's JSON as a definition keeps it (``condition_text``), or ConditionInvalid."""
    text = condition_text(parse_condition(raw))
    if len(text) > MAX_TEXT:
        raise ConditionInvalid("", f"Too long: at most {MAX_TEXT} characters as JSON.")
    return text


def condition_of(text: str) -> Condition | None:
    """The condition ``condition_text`` made (None for "": always shown)."""
    if not text:
        return None
    if text.startswith("{"):
        return parse_condition(json.loads(text))
    return Condition((Rule(text, "hasValue", True),))


def condition_holds(text: str, values: Mapping[str, Any]) -> bool:
    """Whether the condition kept as ``text`` holds for ``values`` ("" always does)."""
    condition = condition_of(text)
    return condition is None or condition.holds(values)


def condition_keys(text: str) -> tuple[str, ...]:
    condition = condition_of(text)
    return condition.keys if condition else ()


def _scalar(value: Any) -> bool:
    return isinstance(value, str | bool | int | float)


def rule_holds(rule: Rule, values: Mapping[str, Any]) -> bool:
    group, _, member = rule.field.partition(".")
    if not member:
        return _value_holds(rule, values.get(rule.field))
    entries = values.get(group)
    if not isinstance(entries, list):
        return False
    return any(isinstance(e, Mapping) and _value_holds(rule, e.get(member)) for e in entries)


def _value_holds(rule: Rule, value: Any) -> bool:
    if rule.op == "hasValue":
        return has_value(value)
    if not has_value(value) and value is not False:
        return False
    if rule.op == "equals":
        return same(value, rule.value)
    if rule.op == "notEquals":
        return not same(value, rule.value)
    if rule.op == "oneOf":
        return any(same(value, choice) for choice in rule.value)
    number = number_of(value)
    if number is None:
        return False
    limit = float(rule.value)
    return {
        "lt": number < limit,
        "lte": number <= limit,
        "gt": number > limit,
        "gte": number >= limit,
    }[rule.op]


def same(value: Any, expected: Any) -> bool:
    """Whether a given value is the expected one, compared as the expected kind."""
    if isinstance(expected, bool):
        typed = isinstance(value, str) and value.strip() == str(expected).lower()
        return value is expected or typed
    if isinstance(expected, int | float):
        number = number_of(value)
        return number is not None and number == float(expected)
    if isinstance(value, str):
        return value.strip() == expected.strip()
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        return False
    return number_of(expected) == float(value)


def number_of(value: Any) -> float | None:
    """A value as a number: a number, or a text that reads as one once ``$``, ``%``, commas
    and spaces are taken out; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float | Decimal):
        return float(value)
    if not isinstance(value, str):
        return None
    text = _NOT_IN_NUMBER.sub("", value)
    return float(text) if _NUMBER.match(text) else None
