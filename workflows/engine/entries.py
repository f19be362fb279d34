"""Repeating groups: checking a group's entries, reading them from a webform page's inputs,
placing one entry given by forgeSubmit (``groupArrayId``, ``groupArrayIndex``), and the columns
they fill in a template's arrays.

A group's value is a list of entries, each an object keyed by the group's field keys with the
values that passed their fields' rules (``workflows.engine.rules``); blank values are left out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from workflows.engine.defs import FieldDef, GroupDef
from workflows.engine.form_inputs import form_strings, form_value
from workflows.engine.messages import FieldInvalid, Message
from workflows.engine.numbers import ENGLISH, NumberFormat
from workflows.engine.rules import EMPTY


class EntriesInvalid(ValueError):
    """What is wrong with a group's entries: messages keyed by ``<index>.<field key>``, or by
    "" for the group as a whole (too few or too many entries, not a list of objects)."""

    def __init__(self, errors: dict[str, Message]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{k}: {m}" for k, m in errors.items()))


def _optional(field: FieldDef) -> FieldDef:
    return FieldDef(**{**field.__dict__, "required": False})


def check_entries(
    group: GroupDef,
    raw: Any,
    *,
    enforce_required: bool,
    check: Callable[[FieldDef, Any], Any],
) -> list[dict[str, Any]] | None:
    """The group's entries normalized (EMPTY when there is none). With ``enforce_required`` a
    required field of every entry must have a value and there must be ``min_entries``; more
    than ``max_entries`` are always refused."""
    if raw is None:
        raw = []
    if not isinstance(raw, list) or not all(isinstance(entry, Mapping) for entry in raw):
        raise EntriesInvalid({"": Message("groupEntries")})
    if len(raw) > group.max_entries:
        raise EntriesInvalid({"": Message("groupMax", {"max": group.max_entries})})
    errors: dict[str, Message] = {}
    entries = []
    for index, entry in enumerate(raw):
        values = {}
        for field in group.fields:
            rule = field if enforce_required else _optional(field)
            try:
                value = check(rule, entry.get(field.key))
            except FieldInvalid as invalid:
                errors[f"{index}.{field.key}"] = invalid.message
                continue
            if value is not EMPTY:
                values[field.key] = value
        entries.append(values)
    if enforce_required and len(entries) < group.min_entries:
        errors[""] = Message("groupMin", {"min": group.min_entries})
    if errors:
        raise EntriesInvalid(errors)
    return entries or EMPTY


def entry_prefix(group: GroupDef, index: int) -> str:
    """What the inputs of entry ``index`` are named with: ``items.0.``."""
    return f"{group.key}.{index}."


def posted_count(group: GroupDef, get: Callable[[str], str | None]) -> int:
    """How many entries a page posted (its ``<group>.entries`` input), within the group's
    maximum: more are never read (a hostile post cannot make the server read thousands)."""
    try:
        count = int(get(f"{group.key}.entries") or 0)
    except ValueError:
        count = 0
    return min(max(count, 0), group.max_entries)


def form_entries(group: GroupDef, get: Callable[[str], str | None]) -> list[dict[str, Any]]:
    """The entries a webform page posted, in wire form (each field's ``form_value``)."""
    return [
        {
            field.key: form_value(field.within(entry_prefix(group, index)), get)
            for field in group.fields
        }
        for index in range(posted_count(group, get))
    ]


def entry_strings(
    group: GroupDef,
    index: int,
    entry: Mapping[str, Any],
    number_format: NumberFormat = ENGLISH,
) -> dict[str, str]:
    """The strings of one entry's inputs, for its values (stored or posted); numbers written
    as ``number_format`` says."""
    strings: dict[str, str] = {}
    for field in group.fields:
        within = field.within(entry_prefix(group, index))
        strings.update(form_strings(within, entry.get(field.key), number_format))
    return strings


def place_entry(
    group: GroupDef, stored: Any, index: int, values: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The group's entries with entry ``index`` updated by ``values`` (the keys given replace
    the entry's, as a partial forgeSubmit does); ``index`` may be the next one, to add it.
    ValueError says why an index cannot be."""
    entries = [dict(e) for e in stored] if isinstance(stored, list) else []
    if index < 0 or index > len(entries):
        raise ValueError(f"Must be an entry index from 0 to {len(entries)} (the next entry).")
    if index >= group.max_entries:
        raise ValueError(f"The group takes at most {group.max_entries} entries.")
    if index == len(entries):
        entries.append({})
    entries[index] = {**entries[index], **values}
    return entries


def column(entries: Any, key: str) -> list[Any] | None:
    """The values of field ``key`` in each entry, top first (None where an entry has none): the
    rows of the template array it fills. None when no entry has a value."""
    if not isinstance(entries, list):
        return None
    values = [entry.get(key) if isinstance(entry, Mapping) else None for entry in entries]
    return values if any(v is not None for v in values) else None
