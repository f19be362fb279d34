"""The admin's "Rename fields" page: every field of the working version in one table (alias,
type, page, label or tooltip, name in the PDF), its aliases edited at once in a plain form.

Reached only through ``PdfTemplateAdmin`` (``admin.py``), which checks staff login, CSRF,
tenancy and the change permission and passes the template; nothing here looks at who asks.
A template with many fields is shown one PDF page at a time, so one form stays well under
Django's limit of fields per request (DATA_UPLOAD_MAX_NUMBER_FIELDS).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse

from core.engine.field_types import TEMPLATE_TYPES
from core.errors import ValidationFailed
from templates_app import services
from templates_app.models import PdfTemplate

# Above this many fields the table shows one PDF page at a time.
ALL_PAGES_MAX_FIELDS = 400
_FIELD_ALIAS = re.compile(r"^fields\.(\d+)\.alias$")
_ARRAY_ALIAS = re.compile(r"^arrays\.(\d+)\.alias$")


def _page_choice(raw: str | None, page_count: int, field_count: int) -> int | None:
    """The PDF page shown (0-based), or None for all of them."""
    if raw == "all" and field_count <= ALL_PAGES_MAX_FIELDS:
        return None
    try:
        return max(0, min(int(raw or ""), page_count - 1))
    except ValueError:
        return None if field_count <= ALL_PAGES_MAX_FIELDS else 0


def _url(template: PdfTemplate, page: int | None) -> str:
    url = reverse("admin:templates_app_pdftemplate_aliases", args=[template.pk])
    return f"{url}?page={'all' if page is None else page}"


def rename_page(
    request: HttpRequest, template: PdfTemplate, *, admin_context: dict[str, Any]
) -> HttpResponse:
    version = services.working_version(template)
    spec = version.spec
    fields: list[dict[str, Any]] = spec.get("fields", [])
    arrays: list[dict[str, Any]] = spec.get("arrays", [])
    page = _page_choice(
        request.GET.get("page") or request.POST.get("page"), len(spec["pages"]), len(fields)
    )
    shown = [f for f in fields if page is None or f.get("page", 0) == page]
    errors: dict[str, str] = {}
    submitted: dict[str, str] = {}

    if request.method == "POST":
        submitted = {
            key.removeprefix("alias-"): value
            for key, value in request.POST.items()
            if key.startswith("alias-")
        }
        array_aliases = {
            key.removeprefix("array-alias-"): value
            for key, value in request.POST.items()
            if key.startswith("array-alias-")
        }
        try:
            _, changed = services.template_rename_fields(
                template=template, field_aliases=submitted, array_aliases=array_aliases
            )
        except ValidationFailed as failure:
            errors = _errors_by_id(failure, fields, arrays)
            messages.error(request, "Nothing was renamed: correct the aliases marked below.")
            if "" in errors:
                messages.error(request, errors[""])
        else:
            if changed:
                messages.success(request, f"Renamed {changed} alias{'es' if changed != 1 else ''}.")
            else:
                messages.info(request, "No alias changed.")
            return HttpResponseRedirect(_url(template, page))

    counts = Counter(f.get("alias") or f["id"] for f in fields)
    rows = [
        {
            "id": field["id"],
            "alias": submitted.get(field["id"], field.get("alias") or field["id"]),
            "type": (
                TEMPLATE_TYPES[field["type"]].label
                if field["type"] in TEMPLATE_TYPES
                else field["type"]
            ),
            "page": field.get("page", 0) + 1,
            "label": field.get("label", ""),
            "name": field.get("name", ""),
            "shared": counts[field.get("alias") or field["id"]] > 1,
            "error": errors.get(field["id"], ""),
        }
        for field in shown
    ]
    page_count = len(spec["pages"])
    context = {
        **admin_context,
        "opts": PdfTemplate._meta,
        "original": template,
        "title": f"Rename the fields of {template.title}",
        "rows": rows,
        "arrays": [
            {
                "id": array["id"],
                "alias": array.get("alias") or array["id"],
                "size": len(array.get("fieldIds", [])),
                "error": errors.get(f"array:{array['id']}", ""),
            }
            for array in arrays
        ],
        "page": page,
        "page_value": "all" if page is None else page,
        "pages": [(index, index + 1) for index in range(page_count)],
        "can_show_all": len(fields) <= ALL_PAGES_MAX_FIELDS,
        "field_count": len(fields),
        "shared_count": sum(1 for row in rows if row["shared"]),
    }
    return render(request, "admin/templates_app/pdftemplate/rename.html", context)


def _errors_by_id(
    failure: ValidationFailed, fields: list[dict[str, Any]], arrays: list[dict[str, Any]]
) -> dict[str, str]:
    """The refused save's problems, keyed by field id (``array:<id>`` for arrays); problems of
    the spec as a whole are shown as messages by the caller's error note."""
    errors: dict[str, str] = {}
    for problem in failure.fields:
        if (match := _FIELD_ALIAS.match(problem.property)) and int(match[1]) < len(fields):
            errors[fields[int(match[1])]["id"]] = problem.message
        elif (match := _ARRAY_ALIAS.match(problem.property)) and int(match[1]) < len(arrays):
            errors[f"array:{arrays[int(match[1])]['id']}"] = problem.message
        else:
            errors.setdefault("", f"{problem.property}: {problem.message}")
    return errors
