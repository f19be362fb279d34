"""The page plan: which template pages appear, how often, and which value goes where.

- Whole-PDF repeat is done by the caller: one plan per document, numbered by the caller too
  (page numbers count in the whole output, which no single plan knows).
- Explicit repeat: a page holding a non-array field that received an array appears once per
  element; non-array values appear on every copy.
- Overflow: a page holding array fields appears as often as its longest array needs; copy k
  shows elements k*rows .. k*rows+rows-1, so the first surplus value lands in the first row of
  the next copy.
- Combined: an array of arrays for an array field repeats the page per outer element, and each
  inner array overflows within its own page set.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.engine.template_spec import ArraySpec, FieldSpec, Style, TemplateSpec
from fill.engine.errors import FillLimitExceeded
from fill.engine.payload import Entry, Repeat, RepeatedRows, Rows, Value


@dataclass(frozen=True)
class Placement:
    """One field on one output page with the value it shows."""

    field: FieldSpec
    entry: Entry
    # The array-level payload style and readOnly ({value: [...], fontSize}); empty otherwise.
    group_style: Style
    group_read_only: bool | None
    # Distinguishes the interactive field of this placement: alias, array row, page copy.
    name: str


@dataclass(frozen=True)
class PagePlan:
    template_page: int
    # The n-th appearance of this template page in the document (0 for the first).
    occurrence: int
    # (number, total) within the page's own repeat loop; None when its data repeats nothing,
    # so the caller picks the loop (the document of a whole-PDF repeat, else 1 of 1).
    loop: tuple[int, int] | None
    placements: tuple[Placement, ...]


class _PageFields:
    def __init__(self, page: int, spec: TemplateSpec) -> None:
        self.loose = [f for f in spec.fields if f.page == page]
        self.arrays: list[tuple[ArraySpec, list[FieldSpec]]] = []
        by_id = {f.id: f for f in spec.fields}
        members: set[str] = set()
        for array in spec.arrays:
            rows = [by_id[i] for i in array.field_ids]
            if rows and rows[0].page == page:
                self.arrays.append((array, rows))
                members.update(array.field_ids)
        self.loose = [f for f in self.loose if f.id not in members]


def _rows_for(value: Value | None, group: int) -> Rows | None:
    if isinstance(value, Rows):
        return value
    if isinstance(value, RepeatedRows):
        return value.groups[group] if group < len(value.groups) else None
    return None


def plan_document(
    spec: TemplateSpec, values: dict[str, Value], *, max_pages: int
) -> list[PagePlan]:
    plans: list[PagePlan] = []
    for page in range(len(spec.pages)):
        fields = _PageFields(page, spec)
        # The page repeats explicitly when one of its fields received an array meant to
        # repeat it (even of one element: the loop follows the data's shape, not its length).
        explicit, repeats = 1, False
        for field in fields.loose:
            value = values.get(field.alias)
            if isinstance(value, Repeat):
                explicit, repeats = max(explicit, len(value.entries)), True
        for array, _ in fields.arrays:
            value = values.get(array.alias)
            if isinstance(value, RepeatedRows):
                explicit, repeats = max(explicit, len(value.groups)), True
        occurrence = 0
        for group in range(explicit):
            overflow, has_rows = 1, False
            for array, rows in fields.arrays:
                found = _rows_for(values.get(array.alias), group)
                if found is not None and rows:
                    has_rows = True
                    overflow = max(overflow, math.ceil(len(found.entries) / len(rows)))
            for copy in range(overflow):
                # The repeat loop of a page with arrays is its overflow set (for an array of
                # arrays: the set of one outer element); otherwise the explicit repeat.
                loop: tuple[int, int] | None = None
                if has_rows:
                    loop = (copy + 1, overflow)
                elif repeats:
                    loop = (group + 1, explicit)
                placements = _placements(fields, values, group, copy, occurrence)
                plans.append(PagePlan(page, occurrence, loop, placements))
                occurrence += 1
                if len(plans) > max_pages:
                    raise FillLimitExceeded(
                        "data", f"The filled document would have more than {max_pages} pages."
                    )
    return plans


def _placements(
    fields: _PageFields, values: dict[str, Value], group: int, copy: int, occurrence: int
) -> tuple[Placement, ...]:
    out: list[Placement] = []
    suffix = f"~{occurrence}" if occurrence else ""
    for field in fields.loose:
        value = values.get(field.alias)
        entry = None
        if isinstance(value, Entry):
            entry = value
        elif isinstance(value, Repeat) and group < len(value.entries):
            entry = value.entries[group]
        if entry is not None:
            out.append(Placement(field, entry, Style(), None, f"{field.alias}{suffix}"))
    for array, rows in fields.arrays:
        found = _rows_for(values.get(array.alias), group)
        if found is None:
            continue
        for row, field in enumerate(rows):
            index = copy * len(rows) + row
            entry = found.entries[index] if index < len(found.entries) else None
            if entry is not None:
                name = f"{array.alias}[{index}]" + (f"~{group}" if group else "")
                out.append(Placement(field, entry, found.style, found.read_only, name))
    return tuple(out)
