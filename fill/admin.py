"""fill's pages in the template admin: the "Test fill" button and the visual editor's preview.

Both fill a template's working version, which is fill's work; templates_app sits below fill and
cannot import it. So fill registers these views with the template admin
(``templates_app.admin.register_template_view``), which serves them under its own URLs, names
and checks (staff login, CSRF, tenancy, change permission), and the change page and the editor
find them by URL name.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse

from core.errors import ServiceError
from core.json_views import json_view
from core.responses import file_response
from fill.services import fill_version, fill_with_example_data
from templates_app import services as templates
from templates_app.admin import register_template_view
from templates_app.engine.describe import example_data
from templates_app.models import PdfTemplate


def template_test_fill(request: HttpRequest, template: PdfTemplate) -> HttpResponse:
    """Fill the working version with generated example data and download the PDF."""
    try:
        pdf = fill_with_example_data(template=template)
    except ServiceError as error:
        messages.error(request, f"Test fill failed: {error.message}")
        return HttpResponseRedirect(
            reverse("admin:templates_app_pdftemplate_change", args=[template.pk])
        )
    return file_response(
        pdf, filename=f"test-fill-{template.eid}.pdf", content_type="application/pdf"
    )


@json_view(prefix="body")
def editor_preview(
    request: HttpRequest, template: PdfTemplate, body: dict[str, Any]
) -> HttpResponse:
    """The working version filled with ``data`` (or example data), as a PDF to look at."""
    version = templates.working_version(template)
    data = body.get("data")
    if data is None:
        data = example_data(templates.version_spec(version))
    pdf = fill_version(version=version, body={"data": data})
    name = f"preview-{template.eid}.pdf"
    response = file_response(pdf, filename=name, content_type="application/pdf", attachment=False)
    response["Cache-Control"] = "private, no-store"
    return response


register_template_view(
    route="test-fill", name="test_fill", view=template_test_fill, methods=("POST",)
)
register_template_view(route="editor/preview", name="editor_preview", view=editor_preview)
