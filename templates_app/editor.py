"""The visual template editor: its admin page and the JSON endpoints its script calls.

The views are reached only through ``PdfTemplateAdmin`` (``admin.py``), which wraps them in the
admin's staff login, CSRF protection and ``_template_for_change`` (tenancy and change permission)
and passes the template it found. So nothing here looks at who is asking: every function below
receives a template the caller may change.

Endpoints (under ``admin/templates_app/pdftemplate/<id>/editor/``):

- ``""``: the editor page.
- ``pdf/``: the working version's base PDF, which the page renders with pdf.js.
- ``spec/``: GET the working version (spec, title, version summary, example data); POST
  ``{spec, title}`` saves it through ``template_update_working``. A refused save answers 400
  ``{"name": "ValidationError", "fields": [{"property": "fields.3.rect", "message"}]}``.
- ``publish/``: POST publishes the working version.
- ``detect/``: POST ``{pages?: [0-based page], onlyMissing?: bool}`` answers ``{fields}``: the
  fields found on those pages of the working version's PDF (``templates_app.detection``, in a
  detection worker), ids ``d1``... and aliases unique beside the template's. Nothing is saved:
  the editor shows them as a draft until the person accepts them and saves.
- ``preview/``: POST ``{data?}`` fills the working version (example data when ``data`` is
  absent) and answers the PDF. Filling is fill's work, above this app: ``fill/admin.py`` serves
  it (``register_template_view``).

The JSON endpoints go through ``core.json_views.json_view`` (methods, the body within the API's
JSON cap, errors in the wire shape); their body's errors are named under ``body``.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse

from core.engine.field_types import field_types_json
from core.engine.fonts import BUILTIN_FAMILIES
from core.engine.template_spec import ALIGNMENTS, FONT_WEIGHTS
from core.errors import ValidationFailed
from core.json_views import json_view
from core.responses import file_response
from templates_app import detection, services
from templates_app.engine.describe import example_data
from templates_app.models import PdfTemplate

# Families offered in the editor's font list besides the built-in ones; any catalog family typed
# by hand is accepted too (the fill checks it).
SUGGESTED_FAMILIES = ("Roboto", "Open Sans", "Lato", "Inter", "Source Serif 4", "Fira Mono")


def _url(name: str, template: PdfTemplate) -> str:
    return reverse(f"admin:templates_app_pdftemplate_{name}", args=[template.pk])


def _working_state(template: PdfTemplate) -> dict[str, Any]:
    """What the editor loads: the working version and where it stands against published ones."""
    version = services.working_version(template)
    summary = services.version_summary(template)
    return {
        "title": template.title,
        "spec": version.spec,
        "summary": {
            "publishedNumber": summary.published_number,
            "hasUnpublishedChanges": summary.has_unpublished_changes,
            "publishedAt": summary.published_at.isoformat() if summary.published_at else None,
        },
        "exampleData": example_data(services.version_spec(version)),
    }


def editor_config(template: PdfTemplate, urls: dict[str, str]) -> dict[str, Any]:
    """The page's ``editor-config``: where its endpoints are (``urls``: spec, pdf, publish,
    detect, preview, change) and what the editor offers. The admin's page and the embedded
    builder (builders/) differ only in their URLs and in ``embed``, which the builder adds."""
    return {
        "title": template.title,
        "eid": template.eid,
        "urls": {
            **urls,
            "pdfjs": static("vendor/pdfjs/pdf.min.mjs"),
            "pdfjsWorker": static("vendor/pdfjs/pdf.worker.min.mjs"),
        },
        # Names, labels, sizes and part layouts of the field types: the editor has no copy.
        "fieldTypes": field_types_json(),
        "alignments": list(ALIGNMENTS),
        "fontWeights": list(FONT_WEIGHTS),
        "fontFamilies": sorted(BUILTIN_FAMILIES) + list(SUGGESTED_FAMILIES),
    }


def editor_page(
    request: HttpRequest, template: PdfTemplate, *, admin_context: dict[str, Any]
) -> HttpResponse:
    names = ("spec", "pdf", "publish", "detect", "preview")
    urls = {name: _url(f"editor_{name}", template) for name in names}
    config = editor_config(template, {**urls, "change": _url("change", template)})
    context = {
        **admin_context,
        "opts": PdfTemplate._meta,
        "original": template,
        "title": f"Edit {template.title}",
        "editor_config": config,
        "back_url": _url("change", template),
        # The editor needs the whole width: no app list beside it.
        "is_nav_sidebar_enabled": False,
    }
    return render(request, "admin/templates_app/pdftemplate/editor.html", context)


def editor_pdf(request: HttpRequest, template: PdfTemplate) -> HttpResponse:
    if request.method != "GET":
        return HttpResponse(status=405)
    pdf = services.version_pdf(services.working_version(template))
    response = file_response(
        pdf, filename=f"{template.eid}.pdf", content_type="application/pdf", attachment=False
    )
    response["Cache-Control"] = "private, no-store"
    return response


@json_view(methods=("GET", "POST"), prefix="body")
def editor_spec(request: HttpRequest, template: PdfTemplate, body: dict[str, Any]) -> JsonResponse:
    if request.method == "POST":
        spec, title = body.get("spec"), body.get("title")
        if not isinstance(spec, dict):
            raise ValidationFailed.single("spec", "Required: the template spec object.")
        if title is not None and not isinstance(title, str):
            raise ValidationFailed.single("title", "Must be a string.")
        services.template_update_working(template=template, spec=spec, title=title)
        template.refresh_from_db()
    return JsonResponse(_working_state(template))


@json_view(prefix="body")
def editor_publish(request: HttpRequest, template: PdfTemplate) -> JsonResponse:
    version = services.template_publish(template=template)
    state = _working_state(template)
    return JsonResponse({**state, "publishedNumber": version.number})


@json_view(prefix="body")
def editor_detect(
    request: HttpRequest, template: PdfTemplate, body: dict[str, Any]
) -> JsonResponse:
    pages, only_missing = body.get("pages"), body.get("onlyMissing", False)
    if pages is not None and (
        not isinstance(pages, list)
        or not all(isinstance(page, int) and not isinstance(page, bool) for page in pages)
    ):
        raise ValidationFailed.single("pages", "A list of page numbers (from 0), or absent.")
    if not isinstance(only_missing, bool):
        raise ValidationFailed.single("onlyMissing", "Must be true or false.")
    fields = detection.template_detect_fields(
        template=template, pages=pages, only_missing=only_missing
    )
    return JsonResponse({"fields": fields})
