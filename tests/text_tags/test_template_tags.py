"""A PDF or Word document uploaded as a template places its fields by its text tags
(templates_app.services.template_import): the tags' fields join the form's, their text is gone
from the stored PDF, and a tag that does not read refuses the upload, naming it and its page,
with nothing stored."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from reportlab.pdfgen import canvas

from core.blobs import blob_read
from core.errors import ValidationFailed
from templates_app import services
from templates_app.models import PdfTemplate
from tests.office.documents import docx, paragraph, pdf_text
from tests.templates_app.conftest import member, member_client  # noqa: F401 - fixtures

pytestmark = pytest.mark.django_db


def tagged_pdf(*lines: str) -> bytes:
    buffer = io.BytesIO()
    page = canvas.Canvas(buffer, pagesize=(612, 792), invariant=1)
    page.setFont("Helvetica", 12)
    for number, line in enumerate(lines):
        page.drawString(72, 700 - 40 * number, line)
    page.showPage()
    page.save()
    return buffer.getvalue()


LEASE = (
    "Residential lease between the landlord and the tenant.",
    "Start date: {{Start date;type=date}}",
    "I agree to the house rules {{agree;type=checkbox}}",
    "Tenant: {{Tenant signature;type=signature;role=Tenant}}",
)


def fields_of(template: PdfTemplate) -> dict[str, dict]:
    version = template.versions.get(number__isnull=True)
    return {field["alias"]: field for field in version.spec["fields"]}


def test_a_tagged_pdf_becomes_a_template_with_the_tags_fields(organization) -> None:
    template = services.template_create_from_pdf(
        organization=organization, title="Lease", pdf=tagged_pdf(*LEASE)
    )

    fields = fields_of(template)
    assert {alias: field["type"] for alias, field in fields.items()} == {
        "startDate": "date",
        "agree": "checkbox",
        "tenantSignature": "signature",
    }  # the tags' names made aliases, as the editor makes them
    # Where the tag was: the signature's box starts after "Tenant: " on its line.
    rect = fields["tenantSignature"]["rect"]
    assert 100 < rect["x"] < 130
    baseline = 700 - 3 * 40  # PDF points from the page's foot, as the spec's rects are
    assert rect["y"] < baseline < rect["y"] + rect["height"]
    version = template.versions.get(number__isnull=True)
    stored = pdf_text(blob_read(version.pdf_path, version.pdf_sha256))
    assert "{{" not in stored
    assert "Residential lease between the landlord and the tenant." in stored


def test_a_malformed_tag_refuses_the_upload_by_name_and_page(organization) -> None:
    pdf = tagged_pdf("Name: {{Name}}", "Colour: {{Colour;type=zzz}}")

    with pytest.raises(ValidationFailed) as refused:
        services.template_create_from_pdf(organization=organization, title="Bad", pdf=pdf)

    [problem] = refused.value.fields
    assert problem.property == "file"
    assert problem.message.startswith("Text tag {{Colour;type=zzz}} on page 1:")
    assert "zzz" in problem.message
    assert PdfTemplate.objects.count() == 0


def test_the_admin_names_a_malformed_tag(
    member_client: Client,  # noqa: F811
    organization,
) -> None:
    response = member_client.post(
        reverse("admin:templates_app_pdftemplate_add"),
        {
            "organization": organization.pk,
            "title": "",
            "is_template": "on",
            "pdf": SimpleUploadedFile(
                "bad.pdf", tagged_pdf("{{Colour;type=zzz}}"), "application/pdf"
            ),
        },
    )

    assert response.status_code == 200  # the form again, with its error
    assert "Text tag {{Colour;type=zzz}} on page 1" in response.content.decode()
    assert PdfTemplate.objects.count() == 0


def test_a_pdf_without_tags_is_stored_as_imported(organization) -> None:
    pdf = tagged_pdf("No tags here, only { braces } and text.")
    template = services.template_create_from_pdf(organization=organization, title="P", pdf=pdf)

    assert fields_of(template) == {}
    version = template.versions.get(number__isnull=True)
    assert "{ braces }" in pdf_text(blob_read(version.pdf_path, version.pdf_sha256))


@pytest.mark.slow
def test_a_word_document_with_tags_becomes_a_template(organization) -> None:
    document = docx(
        paragraph("Residential Lease Agreement")
        + paragraph("Tenant signature: {{Tenant;type=signature}}")
        + paragraph("Date: {{Signed on;type=date}}")
    )

    template = services.template_create_from_pdf(
        organization=organization, title="", pdf=document, filename="lease.docx"
    )

    fields = fields_of(template)
    assert {alias: field["type"] for alias, field in fields.items()} == {
        "tenant": "signature",
        "signedOn": "date",
    }
    version = template.versions.get(number__isnull=True)
    stored = pdf_text(blob_read(version.pdf_path, version.pdf_sha256))
    assert "Residential Lease Agreement" in stored
    assert "{{" not in stored
    assert version.source_name == "lease.docx"
