"""A webform page's inputs and the values they hold: the names of a field's inputs, the wire
value of what a page posted, the strings to put back in the inputs, and which parts of a name,
address or phone a message is about."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from workflows.engine.numbers import ENGLISH, NumberFormat, written_number
from workflows.engine.rules import MAX_PART, PARTS

# The fields whose stored value is a number, shown back as the page's language writes it.
NUMBERS = frozenset({"number", "integer", "dollar", "percent"})


def input_names(field: Any) -> tuple[str, ...]:
    """The names of the page's inputs for ``field``: its key, or ``key.part`` for each part."""
    parts = PARTS.get(field.type)
    if parts is None:
        return (field.key,)
    return tuple(f"{field.key}.{part}" for part in parts)


def form_value(field: Any, get: Callable[[str], str | None]) -> Any:
    """The wire value of ``field`` from the strings a webform page posted (``get(name)``)."""
    kind = field.type
    if kind == "checkbox":
        return get(field.key) is not None
    parts = PARTS.get(kind)
    if parts is None:
        return get(field.key)
    values = {part: get(f"{field.key}.{part}") or "" for part in parts}
    if kind == "phone":
        return {"num": values["num"], "region": values["region"] or field.base_region}
    return values


def form_strings(field: Any, value: Any, number_format: NumberFormat = ENGLISH) -> dict[str, str]:
    """The strings to put back in the page's inputs for a stored or submitted ``value``; a
    number written as ``number_format`` says (15.5 is "15,5" on a German page), which the page
    reads back as the same number."""
    kind = field.type
    if value is None:
        return {}
    if kind == "checkbox":
        return {field.key: "on"} if value is True else {}
    if kind in NUMBERS and isinstance(value, int | float) and not isinstance(value, bool):
        # A price with cents has two digits of them ("1234,50"); a whole one has none.
        cents = kind == "dollar" and not float(value).is_integer()
        return {field.key: written_number(value, number_format, decimals=2 if cents else None)}
    parts = PARTS.get(kind)
    if parts is None:
        if isinstance(value, list):
            value = "\n".join(str(v) for v in value)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        return {field.key: value if isinstance(value, str) else str(value)}
    if isinstance(value, str) and kind == "phone":
        return {f"{field.key}.num": value}
    if not isinstance(value, Mapping):
        return {}
    return {
        f"{field.key}.{part}": str(value[part]) for part in parts if value.get(part) is not None
    }


def invalid_parts(field: Any, raw: Any, message: str) -> tuple[str, ...]:
    """The parts of a name, address or phone that ``message`` (a message's code) is about:
    only those are marked invalid (an optional middle initial or apartment never is, unless it
    is what is wrong). form.js's ``invalidParts`` is the same."""
    kind = field.type
    parts = PARTS.get(kind)
    if not parts or not message:
        return ()
    given = raw if isinstance(raw, Mapping) else {}

    def blank(part: str) -> bool:
        return not str(given.get(part) or "").strip()

    if message == "part":
        return tuple(p for p in parts if len(str(given.get(p) or "").strip()) > MAX_PART)
    needed: tuple[str, ...]
    if kind == "fullName":
        if message == "middleInitial":
            return ("mi",)
        needed = ("firstName", "lastName")
    elif kind == "usAddress":
        if message == "state":
            return ("state",)
        if message == "zip":
            return ("zip",)
        needed = ("street1", "city", "state", "zip")
    else:
        return ("region",) if message == "phoneRegion" else ("num",)
    return tuple(p for p in needed if blank(p)) or needed
