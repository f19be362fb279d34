"""The webform builder's work: the state it loads, the draft it previews and the save.

A webform travels as its definition's JSON (``WebformDef.to_json``: name and pages of fields and
repeating groups), each field and group with ``row``, the id of its WebformField or
WebformGroup (null for a new one), so that a field renamed or moved keeps its row and with it
the document mappings and signers that name it.
A save is checked whole by the definition's parser (the paths of its problems are those of
the posted JSON: ``pages.0.fields.2.key``), then written in one transaction.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import CharField, Value
from django.db.models.functions import Cast, Concat
from django.utils import timezone

from core.engine.field_types import FIELD_TYPES
from core.engine.problems import Problem
from core.errors import ValidationFailed
from workflows.definitions.rows import definition_of, field_columns, group_columns, page_columns
from workflows.engine.definition import (
    FORMAT,
    KEY,
    DefinitionInvalid,
    FieldDef,
    GroupDef,
    PageDef,
    WebformDef,
    WorkflowDef,
    parse_definition,
    parse_field,
)
from workflows.models import (
    FieldMapping,
    Webform,
    WebformField,
    WebformGroup,
    WebformPage,
    Workflow,
)

ROW = "row"


def builder_state(webform: Webform) -> dict[str, Any]:
    """The webform as the builder edits it, with what uses each field."""
    definition = definition_of(webform.workflow)
    form = definition.webform(eid=webform.eid)
    fields = dict(webform.fields.values_list("key", "pk"))
    groups = dict(webform.groups.values_list("key", "pk"))

    def with_rows(items: list[dict[str, Any]], rows: dict[str, int]) -> list[dict[str, Any]]:
        return [{**item, ROW: rows.get(item["key"])} for item in items]

    pages = []
    for page in form.pages if form else ():
        raw = page.to_json()
        raw["fields"] = with_rows(raw["fields"], fields)
        if "groups" in raw:
            raw["groups"] = [
                {**group, "fields": with_rows(group["fields"], fields)}
                for group in with_rows(raw["groups"], groups)
            ]
        pages.append(raw)
    uses: dict[str, list[str]] = {}
    for mapping in FieldMapping.objects.filter(field__webform=webform).select_related(
        "document__template", "field"
    ):
        what = f"fills {mapping.alias} of {mapping.document}"
        uses.setdefault(mapping.field.key, []).append(what)
    for signer in webform.workflow.signers.select_related("name_field", "email_field"):
        for field, what in ((signer.name_field, "name"), (signer.email_field, "email")):
            if field is not None and field.webform_id == webform.pk:
                uses.setdefault(field.key, []).append(f"the {what} of signer {signer.alias_id}")
    return {"name": webform.name, "slug": webform.slug, "pages": pages, "uses": uses}


# --- checking ---------------------------------------------------------------------------------


def _without_rows(raw: Any) -> Any:
    """The posted JSON as the definition has it: no ``row`` in fields and groups."""
    if isinstance(raw, list):
        return [_without_rows(item) for item in raw]
    if isinstance(raw, Mapping):
        return {k: _without_rows(v) for k, v in raw.items() if k != ROW}
    return raw


def _one_webform(webform: Webform, data: Mapping[str, Any]) -> dict[str, Any]:
    """A definition of the workflow with this webform alone: what the parser checks."""
    workflow = webform.workflow
    return {
        "format": FORMAT,
        "slug": workflow.slug,
        "name": workflow.name,
        "webforms": [
            {
                "eid": webform.eid,
                "slug": webform.slug,
                "name": data.get("name"),
                "pages": _without_rows(data.get("pages")),
            }
        ],
    }


def _parsed(webform: Webform, data: Any) -> WebformDef:
    if not isinstance(data, Mapping):
        raise ValidationFailed.single("", "The webform must be a JSON object.")
    prefix = "webforms.0."
    try:
        definition = parse_definition(_one_webform(webform, data))
    except DefinitionInvalid as invalid:
        raise ValidationFailed.from_problems(
            Problem(p.path.removeprefix(prefix), p.message) for p in invalid.problems
        ) from None
    return definition.webforms[0]


@dataclass
class _Rows:
    """The row of each posted field and group, in the order they were posted."""

    fields: dict[tuple[int, int, int], int | None]  # (page, group or -1, field) -> row
    groups: dict[tuple[int, int], int | None]  # (page, group) -> row


def _rows(data: Mapping[str, Any], fields: Mapping[int, Any], groups: Mapping[int, Any]) -> _Rows:
    """The rows the posted fields and groups come with; a row that is not one of the webform's
    (removed meanwhile, or another's) or is given twice is a problem."""
    problems: list[Problem] = []
    out = _Rows(fields={}, groups={})
    seen: set[tuple[str, int]] = set()

    def row_of(item: Mapping[str, Any], kind: str, known: Mapping[int, Any], at: str) -> Any:
        row = item.get(ROW)
        if isinstance(row, int) and not isinstance(row, bool) and row in known:
            if (kind, row) in seen:
                problems.append(Problem(at, f"This {kind} is no longer in the webform: reload."))
            seen.add((kind, row))
            return row
        if row is not None:
            problems.append(Problem(at, f"This {kind} is no longer in the webform: reload."))
        return None

    for p, page in enumerate(data["pages"]):
        for n, field in enumerate(page.get("fields") or []):
            out.fields[(p, -1, n)] = row_of(field, "field", fields, f"pages.{p}.fields.{n}")
        for g, group in enumerate(page.get("groups") or []):
            at = f"pages.{p}.groups.{g}"
            out.groups[(p, g)] = row_of(group, "group", groups, at)
            for n, field in enumerate(group.get("fields") or []):
                out.fields[(p, g, n)] = row_of(field, "field", fields, f"{at}.fields.{n}")
    if problems:
        raise ValidationFailed.from_problems(problems)
    return out


def _refuse_removing_signers_fields(webform: Webform, removed: set[int]) -> None:
    """A signer's name or email field may not go: the signer would go with it."""
    problems = []
    for signer in webform.workflow.signers.select_related("name_field", "email_field"):
        for field, what in ((signer.name_field, "name"), (signer.email_field, "email")):
            if field is not None and field.pk in removed:
                problems.append(
                    Problem(f"removed.{field.key}", f"“{field.label}” gives the {what} of signer "
                            f"{signer.alias_id}: choose another field for the signer first.")
                )  # fmt: skip
    if problems:
        raise ValidationFailed.from_problems(problems)


# --- saving -----------------------------------------------------------------------------------


def _step_aside(model: Any, pks: set[int]) -> None:
    """Keys are unique in a webform: kept rows take a key no one types first, so that two may
    swap keys."""
    model.objects.filter(pk__in=pks).update(
        key=Concat(Value("~"), Cast("id", output_field=CharField()))
    )


def _save_field(webform: Webform, field: FieldDef, row: int | None, place: dict[str, Any]) -> None:
    columns = {**field_columns(field), **place}
    if row is None:
        WebformField.objects.create(webform=webform, **columns)
    else:
        WebformField.objects.filter(pk=row).update(**columns)


@transaction.atomic
def webform_build(*, webform: Webform, data: Any) -> None:
    """Replace the webform's name, pages, fields and groups with ``data`` (the builder's JSON),
    checked whole first; ValidationFailed names each problem by its path in ``data``. Fields,
    groups and pages keep their rows (and so their mappings) when they come with them; the
    others go."""
    webform = Webform.objects.select_for_update().select_related("workflow").get(pk=webform.pk)
    form = _parsed(webform, data)
    fields = {f.pk: f for f in webform.fields.all()}
    groups = {g.pk: g for g in webform.groups.all()}
    rows = _rows(data, fields, groups)
    kept = {row for row in rows.fields.values() if row is not None}
    _refuse_removing_signers_fields(webform, set(fields) - kept)

    webform.name = form.name
    webform.save(update_fields=["name"])
    WebformField.objects.filter(pk__in=set(fields) - kept).delete()
    _step_aside(WebformField, kept)
    _step_aside(WebformGroup, {row for row in rows.groups.values() if row is not None})
    pages = {page.eid: page for page in webform.pages.all()}
    used_pages, used_groups = set(), set()
    for p, page in enumerate(form.pages):
        page_row = pages.get(page.id) or WebformPage(webform=webform)
        for name, value in {**page_columns(page), "position": p}.items():
            setattr(page_row, name, value)
        page_row.save()
        used_pages.add(page_row.pk)
        for n, field in enumerate(page.fields):
            place: dict[str, Any] = {"page": page_row, "group": None, "position": n}
            _save_field(webform, field, rows.fields[(p, -1, n)], place)
        for g, group in enumerate(page.groups):
            group_row = groups.get(rows.groups[(p, g)] or 0) or WebformGroup(webform=webform)
            columns = {**group_columns(group), "page": page_row, "position": g}
            for name, value in columns.items():
                setattr(group_row, name, value)
            group_row.save()
            used_groups.add(group_row.pk)
            for n, field in enumerate(group.fields):
                place = {"page": page_row, "group": group_row, "position": n}
                _save_field(webform, field, rows.fields[(p, g, n)], place)
    webform.groups.exclude(pk__in=used_groups).delete()
    webform.pages.exclude(pk__in=used_pages).delete()
    Workflow.objects.filter(pk=webform.workflow_id).update(updated_at=timezone.now())


# --- preview ----------------------------------------------------------------------------------


def _loose_field(raw: Any, fallback_key: str) -> FieldDef:
    """A field of a draft as the preview shows it: as parsed when it passes, else its label
    and type alone (a field being typed is shown before it is complete)."""
    field = parse_field(raw, "", [])
    if field is not None:
        return field
    raw = raw if isinstance(raw, Mapping) else {}
    key, kind, label = raw.get("key"), raw.get("type"), raw.get("label")
    return FieldDef(
        key=key if isinstance(key, str) and KEY.match(key) else fallback_key,
        type=kind if kind in FIELD_TYPES else "shortText",
        label=label if isinstance(label, str) and label.strip() else "(no label yet)",
    )


def _list_of(raw: Mapping[str, Any], name: str, limit: int) -> list[Any]:
    value = raw.get(name)
    return value[:limit] if isinstance(value, list) else []


def _text_of(raw: Mapping[str, Any], name: str, fallback: str) -> str:
    value = raw.get(name)
    return value if isinstance(value, str) and value.strip() else fallback


def _loose_group(raw: Any, at: str) -> GroupDef:
    """A repeating group of a draft as the preview shows it (its label and fields)."""
    raw = raw if isinstance(raw, Mapping) else {}
    most = raw.get("maxEntries")
    return GroupDef(
        key=_text_of(raw, "key", at),
        label=_text_of(raw, "label", "(no label yet)"),
        help_text=_text_of(raw, "helpText", ""),
        max_entries=most if isinstance(most, int) and 1 <= most <= 50 else 10,
        fields=tuple(
            _loose_field(f, f"{at}_{n}") for n, f in enumerate(_list_of(raw, "fields", 200))
        ),
    )


def _loose_webform(webform: Webform, draft: Any) -> WebformDef:
    """The draft as parsed when it passes; else each page with what can be shown of its fields
    and groups (conditions left out: a draft being typed is previewed before it is complete)."""
    try:
        return _parsed(webform, draft)
    except ValidationFailed:
        pass
    draft = draft if isinstance(draft, Mapping) else {}
    pages = []
    for p, page in enumerate(_list_of(draft, "pages", 50)):
        page = page if isinstance(page, Mapping) else {}
        fields = _list_of(page, "fields", 200)
        pages.append(
            PageDef(
                id=f"page{p + 1}",
                title=_text_of(page, "title", f"Page {p + 1}"),
                description=_text_of(page, "description", ""),
                fields=tuple(_loose_field(f, f"field_{p}_{n}") for n, f in enumerate(fields)),
                groups=tuple(
                    _loose_group(g, f"group_{p}_{n}")
                    for n, g in enumerate(_list_of(page, "groups", 10))
                ),
            )
        )
    return WebformDef(
        eid=webform.eid,
        slug=webform.slug,
        name=_text_of(draft, "name", webform.name),
        pages=tuple(pages) or (PageDef(id="page1", title="Page 1", fields=()),),
    )


def preview_definition(webform: Webform, draft: Any) -> WorkflowDef:
    """The workflow's working version with this webform as drafted in the builder."""
    definition = definition_of(webform.workflow)
    drafted = _loose_webform(webform, draft)
    return dataclasses.replace(
        definition,
        webforms=tuple(drafted if w.eid == webform.eid else w for w in definition.webforms),
    )
