"""The admin's "Edit fields & style" page: the working version's document style and the fields of
one PDF page, each field a compact row (alias, type, label, box, read-only, delete) with its less
common settings under a "More settings" disclosure (forms in templates_app/field_forms.py).

Reached only through ``PdfTemplateAdmin`` (``admin.py``), which checks staff login, CSRF,
tenancy and the change permission and passes the template; nothing here looks at who asks.
The save goes through services.template_update_working, the one validator: its problems are
shown on the row and, where possible, on the input they concern, and nothing is saved.

A page with many fields is shown ROWS_PER_FORM fields at a time ("part"), so that one form stays
under Django's limit of inputs per request (DATA_UPLOAD_MAX_NUMBER_FIELDS, 1000): a row has
about 23 inputs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.forms import BaseFormSet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse

from core.engine.field_types import TEMPLATE_TYPES
from core.errors import ValidationFailed
from templates_app import services
from templates_app.field_forms import FieldRowForm, FieldRowFormSet, StyleForm
from templates_app.models import PdfTemplate

_FIELD_PATH = re.compile(r"^fields\.(\d+)(?:\.(.*))?$")
_STYLE_PATH = re.compile(r"^style\.(\w+)$")
ROWS_PER_FORM = 30


@dataclass(frozen=True)
class FieldRow:
    """One form of the formset with what the page shows about it beside its inputs."""

    form: FieldRowForm
    new: bool  # the blank row for a new field: its id is an input
    name: str  # the field's name in the PDF it was imported from
    parts: str  # the labels of the parts that have a box of their own

    @property
    def primary(self) -> list[Any]:
        return [self.form[name] for name in FieldRowForm.PRIMARY]

    @property
    def more_groups(self) -> list[tuple[str, list[Any]]]:
        return [
            (title, [self.form[name] for name in names])
            for title, names in FieldRowForm.MORE_GROUPS
        ]

    @property
    def more_open(self) -> bool:
        return self.form.more_has_errors()

    @property
    def more_summary(self) -> str:
        return ", ".join(self.form.more_set())


def _index_choice(raw: str | None, count: int) -> int:
    """A 0-based page or part number from the query string, clamped to ``count``."""
    try:
        index = int(raw or 0)
    except ValueError:
        index = 0
    return max(0, min(index, count - 1))


def _url(template: PdfTemplate, page: int, part: int) -> str:
    url = reverse("admin:templates_app_pdftemplate_fields", args=[template.pk])
    return f"{url}?page={page}" + (f"&part={part}" if part else "")


def fields_page(
    request: HttpRequest, template: PdfTemplate, *, admin_context: dict[str, Any]
) -> HttpResponse:
    version = services.working_version(template)
    spec = version.spec
    page_count = len(spec["pages"])
    page = _index_choice(request.GET.get("page"), page_count)
    on_page = [f for f in spec["fields"] if f.get("page", 0) == page]
    part_count = max(1, -(-len(on_page) // ROWS_PER_FORM))
    part = _index_choice(request.GET.get("part"), part_count)
    shown = on_page[part * ROWS_PER_FORM : (part + 1) * ROWS_PER_FORM]

    if request.method == "POST":
        style_form = StyleForm(request.POST, prefix="style")
        formset = FieldRowFormSet(request.POST, prefix="fields")
        if (
            style_form.is_valid()
            and formset.is_valid()
            and _save(request, template, spec, page, shown, style_form, formset)
        ):
            return HttpResponseRedirect(_url(template, page, part))
    else:
        style_form = StyleForm(initial=spec.get("style", {}), prefix="style")
        formset = FieldRowFormSet(
            initial=[FieldRowForm.initial_for(f) for f in shown], prefix="fields"
        )
    by_id = {f["id"]: f for f in spec["fields"]}
    context = {
        **admin_context,
        "opts": PdfTemplate._meta,
        "original": template,
        "title": f"Fields of {template.title}",
        "style_form": style_form,
        "formset": formset,
        "rows": _rows(formset, by_id),
        "columns": [FieldRowForm.base_fields[name].label for name in FieldRowForm.PRIMARY],
        "page": page,
        "pages": range(page_count),
        "part": part,
        "parts": [
            (index, index * ROWS_PER_FORM + 1, min((index + 1) * ROWS_PER_FORM, len(on_page)))
            for index in range(part_count)
        ]
        if part_count > 1
        else [],
        "field_count": len(on_page),
        "page_size": spec["pages"][page],
        "arrays": spec.get("arrays", []),
    }
    return render(request, "admin/templates_app/pdftemplate/fields.html", context)


def _rows(formset: BaseFormSet, by_id: dict[str, dict[str, Any]]) -> list[FieldRow]:
    rows = []
    existing = formset.initial_form_count()
    for index, form in enumerate(formset.forms):
        stored = by_id.get(str(form["id"].value() or ""), {}) if index < existing else {}
        kind = TEMPLATE_TYPES.get(stored.get("type", ""))
        parts = [
            part.label
            for row in (kind.part_rows if kind else ())
            for part in row
            if part.name in (stored.get("parts") or {})
        ]
        rows.append(
            FieldRow(
                form=form,
                new=index >= existing,
                name=stored.get("name", ""),
                parts=", ".join(parts),
            )
        )
    return rows


def _save(
    request: HttpRequest,
    template: PdfTemplate,
    spec: dict[str, Any],
    page: int,
    shown: list[dict[str, Any]],
    style_form: StyleForm,
    formset: BaseFormSet,
) -> bool:
    """Save the rows of ``shown`` (the fields the form showed) and the document style; the
    page's other fields, and the other pages', stay as they are."""
    kept_forms = [f for f in formset.forms if f.has_changed() or f.initial]
    kept_forms = [
        f for f in kept_forms if not (formset.can_delete and f.cleaned_data.get("DELETE"))
    ]
    kept_forms = [f for f in kept_forms if f.cleaned_data.get("id")]
    by_id = {f["id"]: f for f in spec["fields"]}
    rotate = int(spec["pages"][page].get("rotate", 0))
    edited = [
        form.field_json(page, stored=by_id.get(form.cleaned_data["id"]), rotate=rotate)
        for form in kept_forms
    ]
    # The name a field had in its imported PDF is not on this form: keep it.
    names = {f["id"]: f["name"] for f in spec["fields"] if f.get("name")}
    edited = [{**f, "name": names[f["id"]]} if f["id"] in names else f for f in edited]
    shown_ids = {f["id"] for f in shown}
    others = [f for f in spec["fields"] if f["id"] not in shown_ids]
    deleted = shown_ids - {f["id"] for f in edited}
    new_spec = services.spec_without_fields(
        {**spec, "fields": others + edited, "style": style_form.style_json()}, deleted
    )
    try:
        services.template_update_working(template=template, spec=new_spec)
    except ValidationFailed as failure:
        for problem in failure.fields:
            match = _FIELD_PATH.match(problem.property)
            index = int(match.group(1)) - len(others) if match else -1
            if match and 0 <= index < len(kept_forms):
                _add_field_error(kept_forms[index], match.group(2) or "", problem.message)
            elif style := _STYLE_PATH.match(problem.property):
                _add_error(style_form, style.group(1), problem.property, problem.message)
            else:
                style_form.add_error(None, f"{problem.property}: {problem.message}")
        messages.error(request, "Not saved: correct the errors below.")
        return False
    messages.success(request, f"Saved the fields of page {page + 1}.")
    return True


def _add_field_error(form: FieldRowForm, path: str, message: str) -> None:
    """Put the validator's problem at ``path`` inside a field (``rect``, ``style.fontSize``,
    ``boxes.3``) on the input it concerns, else on the row."""
    head, _, rest = path.partition(".")
    if head == "style":
        name = rest
    elif head == "format" and rest:
        name = f"format_{rest}"
    else:
        name = head  # boxes.3, options.0.rect, parts.city: the one input of them all
    _add_error(form, name, path or "field", message)


def _add_error(form: Any, name: str, path: str, message: str) -> None:
    if name in form.fields and not form.fields[name].widget.is_hidden:
        form.add_error(name, message)
    else:
        label = {"rect": "Box"}.get(path, path)
        form.add_error(None, f"{label}: {message}")
