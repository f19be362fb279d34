"""The editor's "Detect fields" endpoint: it answers the fields found on the working version's
pages (found in a detection worker), saves nothing, and with onlyMissing leaves out what the
template already has."""

from __future__ import annotations

import io
import json

from django.test import Client
from django.urls import reverse
from reportlab.pdfgen.canvas import Canvas

from accounts.models import Organization
from templates_app import services
from templates_app.models import PdfTemplate
from templates_app.services import template_create_from_pdf


def url(template: PdfTemplate) -> str:
    return reverse("admin:templates_app_pdftemplate_editor_detect", args=[template.pk])


def flat_form(pages: int = 1) -> bytes:
    """Flat pages, each with a labelled line and a checkbox."""
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(612, 792))
    for _ in range(pages):
        canvas.setFont("Helvetica", 11)
        canvas.drawString(72, 700, "Full name")
        canvas.line(130, 698, 400, 698)
        canvas.rect(72, 600, 10, 10)
        canvas.drawString(88, 601, "I agree")
        canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def with_fields(template: PdfTemplate, fields: list[dict]) -> None:
    """The template's working version given ``fields`` (spec dicts) as its only fields."""
    spec = services.working_version(template).spec
    spec["fields"] = fields
    services.template_update_working(template=template, spec=spec, title=None)


def post(client: Client, template: PdfTemplate, body: object) -> object:
    return client.post(url(template), data=json.dumps(body), content_type="application/json")


def test_detect_answers_draft_fields_and_saves_nothing(
    member_client: Client, organization: Organization
) -> None:
    template = template_create_from_pdf(organization=organization, title="Flat", pdf=flat_form())
    before = services.working_version(template).spec

    response = post(member_client, template, {"pages": [0]})

    assert response.status_code == 200
    fields = response.json()["fields"]
    assert [(f["id"], f["alias"], f["type"], f["page"]) for f in fields] == [
        ("d1", "fullName", "shortText", 0),
        ("d2", "iAgree", "checkbox", 0),
    ]
    assert services.working_version(template).spec == before


def test_only_missing_leaves_out_fields_the_template_has(
    member_client: Client, organization: Organization
) -> None:
    template = template_create_from_pdf(organization=organization, title="Flat", pdf=flat_form())
    with_fields(template, [
        {"id": "f1", "alias": "iAgree", "type": "checkbox", "page": 0,
         "rect": {"x": 72, "y": 600, "width": 10, "height": 10}},
    ])  # fmt: skip

    everything = post(member_client, template, {}).json()["fields"]
    missing = post(member_client, template, {"onlyMissing": True}).json()["fields"]

    # The alias the template already uses is not given again.
    assert [(f["alias"], f["type"]) for f in everything] == [
        ("fullName", "shortText"),
        ("iAgree2", "checkbox"),
    ]
    assert [(f["alias"], f["type"]) for f in missing] == [("fullName", "shortText")]


def test_a_bad_request_is_a_validation_error(member_client: Client, fw9_template) -> None:
    response = post(member_client, fw9_template, {"pages": "all"})
    assert response.status_code == 400
    assert response.json() == {
        "name": "ValidationError",
        "fields": [{"property": "pages", "message": "A list of page numbers (from 0), or absent."}],
    }

    response = post(member_client, fw9_template, {"pages": [9]})
    assert response.status_code == 400
    assert response.json()["fields"][0]["message"] == "The PDF has 6 pages."

    assert member_client.get(url(fw9_template)).status_code == 405


def test_a_detection_past_its_deadline_is_stopped_and_refused(
    member_client: Client, organization: Organization, settings
) -> None:
    """The worker is killed at DETECT_TIMEOUT_SECONDS: a 422 in the wire shape, and the next
    request is served by a new worker."""
    # Thirty pages: a detection that takes a second or more. The deadline is only read when
    # this process next runs, so a job quicker than a busy machine's pause between sending it
    # and looking for its answer (one page: about 50 ms) could be answered in time.
    template = template_create_from_pdf(
        organization=organization, title="Flat", pdf=flat_form(pages=30)
    )
    settings.DETECT_TIMEOUT_SECONDS = 0.001

    response = post(member_client, template, {})

    assert response.status_code == 422
    assert response.json() == {
        "name": "UnprocessableDocumentError",
        "message": "Looking for fields took longer than 0.001 s and was stopped.",
    }
    settings.DETECT_TIMEOUT_SECONDS = 60.0
    assert post(member_client, template, {}).status_code == 200
