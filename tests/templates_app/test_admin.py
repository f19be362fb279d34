"""The template admin: upload, field editing, publishing, the list, and tenant isolation for staff
(``member_client`` and ``outsider_client`` come from conftest.py)."""

import io
import json
from pathlib import Path

from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from pypdf import PdfReader

from templates_app import services
from templates_app.models import PdfTemplate
from tests.fixtures import PDFS
from tests.pdfcheck import blank_pdf, text_in_rect, words
from tests.templates_app.conftest import locked_form


def add_template(client: Client, organization, filename: str, pdf: bytes, **fields: str):  # noqa: ANN001, ANN201
    """The admin's "add template" form posted with ``pdf`` uploaded as ``filename``, the title
    "x" unless ``fields`` say otherwise."""
    upload = SimpleUploadedFile(filename, pdf, "application/pdf")
    return client.post(
        reverse("admin:templates_app_pdftemplate_add"),
        {"organization": organization.pk, "title": "x", "pdf": upload, **fields},
    )


def test_upload_runs_the_import(member_client: Client, organization) -> None:
    response = add_template(
        member_client,
        organization,
        "fw9.pdf",
        (PDFS / "irs-fw9-2018.pdf").read_bytes(),
        title="",
        is_template="on",
        publish="on",
    )

    assert response.status_code == 302, response.content.decode()[:2000]
    template = PdfTemplate.objects.get()
    assert template.title == "fw9"
    assert len(services.working_version(template).spec["fields"]) == 22
    assert services.version_summary(template).published_number == 1


def test_upload_of_a_broken_pdf_shows_the_error_and_stores_nothing(
    member_client: Client, organization
) -> None:
    response = add_template(member_client, organization, "broken.pdf", b"%PDF-1.7 nonsense")

    assert response.status_code == 200
    assert "damaged" in response.content.decode()
    assert PdfTemplate.objects.count() == 0


def stored_files(settings) -> list[Path]:
    return sorted(p for p in Path(settings.MEDIA_ROOT).rglob("*") if p.is_file())


def test_a_form_locked_only_by_permissions_uploads_and_fills(
    member_client: Client, organization, api_client: Client, settings
) -> None:
    response = add_template(
        member_client, organization, "permit.pdf", locked_form(), title="Permit", publish="on"
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    template = PdfTemplate.objects.get()
    fields = services.working_version(template).spec["fields"]
    assert [(f["alias"], f["type"]) for f in fields] == [
        ("fullName", "shortText"),
        ("agree", "checkbox"),
    ]
    [base] = stored_files(settings)
    assert "/Encrypt" not in PdfReader(base).trailer

    filled = api_client.post(
        f"/api/v1/fill/{template.eid}.pdf",
        data=json.dumps({"data": {"fullName": "Ada Lovelace", "agree": True}}),
        content_type="application/json",
    )

    assert filled.status_code == 200, filled.content[:500]
    assert not PdfReader(io.BytesIO(filled.content)).is_encrypted
    assert text_in_rect(words(filled.content)[0], fields[0]["rect"]) == "Ada Lovelace"


def test_upload_of_a_form_that_needs_a_password_is_refused_and_stores_nothing(
    member_client: Client, organization, settings
) -> None:
    response = add_template(
        member_client, organization, "secret.pdf", locked_form(user_password="secret")
    )

    assert response.status_code == 200
    assert "The PDF needs a password to open" in response.content.decode()
    assert PdfTemplate.objects.count() == 0
    assert stored_files(settings) == []


def test_fields_page_edits_aliases_and_style(member_client: Client, fw9_template) -> None:
    url = reverse("admin:templates_app_pdftemplate_fields", args=[fw9_template.pk])
    page = member_client.get(url + "?page=0")
    assert page.status_code == 200
    formset = page.context["formset"]
    data = {
        "style-fontFamily": "Helvetica",
        "style-fontSize": "11",
        "style-textColor": "#112233",
        "style-alignment": "",
        "style-fontWeight": "",
        "fields-TOTAL_FORMS": str(formset.total_form_count()),
        "fields-INITIAL_FORMS": str(formset.initial_form_count()),
    }
    for index, form in enumerate(formset.forms):
        for name, _field in form.fields.items():
            value = form.initial.get(name, "")
            if name == "readOnly" or name == "DELETE":
                if value:
                    data[f"fields-{index}-{name}"] = "on"
                continue
            data[f"fields-{index}-{name}"] = "" if value is None else value
    data["fields-0-alias"] = "legal_name"
    data["fields-1-DELETE"] = "on"

    response = member_client.post(url + "?page=0", data)

    assert response.status_code == 302, [f.errors for f in response.context["formset"].forms][:3]
    spec = services.working_version(fw9_template).spec
    assert spec["fields"][0]["alias"] == "legal_name"
    assert len(spec["fields"]) == 21
    assert spec["style"] == {"fontFamily": "Helvetica", "fontSize": 11.0, "textColor": "#112233"}


def test_a_field_outside_the_page_is_refused_with_the_row_marked(
    member_client: Client, fw9_template
) -> None:
    url = reverse("admin:templates_app_pdftemplate_fields", args=[fw9_template.pk])
    formset = member_client.get(url).context["formset"]
    data = {"fields-TOTAL_FORMS": "1", "fields-INITIAL_FORMS": "1"}
    first = formset.forms[0].initial
    for name in ("id", "alias", "type", "label", "x", "y", "width", "height", "extra"):
        data[f"fields-0-{name}"] = first.get(name, "")
    data["fields-0-x"] = "5000"
    before = services.working_version(fw9_template).spec

    response = member_client.post(url, data)

    assert response.status_code == 200
    assert "The box lies outside the page." in response.content.decode()
    assert services.working_version(fw9_template).spec == before


def test_publish_button(member_client: Client, fw9_template) -> None:
    response = member_client.post(
        reverse("admin:templates_app_pdftemplate_publish", args=[fw9_template.pk])
    )

    assert response.status_code == 302
    assert services.version_summary(fw9_template).published_number == 1


def test_staff_of_another_organization_cannot_see_the_template(
    outsider_client: Client, fw9_template
) -> None:
    listing = outsider_client.get(reverse("admin:templates_app_pdftemplate_changelist"))
    change = outsider_client.get(
        reverse("admin:templates_app_pdftemplate_change", args=[fw9_template.pk])
    )
    fields = outsider_client.get(
        reverse("admin:templates_app_pdftemplate_fields", args=[fw9_template.pk])
    )
    publish = outsider_client.post(
        reverse("admin:templates_app_pdftemplate_publish", args=[fw9_template.pk])
    )

    assert listing.status_code == 200
    assert fw9_template.eid not in listing.content.decode()
    assert change.status_code == 302  # the admin's "does not exist" redirect
    assert fields.status_code == 404
    assert publish.status_code == 404
    assert services.version_summary(fw9_template).published_number is None


def test_members_see_their_template_in_the_list(member_client: Client, fw9_template) -> None:
    listing = member_client.get(reverse("admin:templates_app_pdftemplate_changelist"))

    assert fw9_template.eid in listing.content.decode()


def listing_queries(client: Client) -> tuple[int, list[tuple[str, str, bool]]]:
    """How many queries the template list runs, and its rows: (title, published, changes)."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("admin:templates_app_pdftemplate_changelist"))
    assert response.status_code == 200
    admin = response.context["cl"].model_admin
    rows = [
        (t.title, admin.published(t), admin.unpublished_changes(t))
        for t in response.context["cl"].result_list
    ]
    return len(queries), sorted(rows)


def test_the_template_list_runs_as_many_queries_for_five_templates_as_for_one(
    member_client: Client, organization
) -> None:
    def add(title: str, *, publish: bool, edit: bool = False) -> None:
        template = services.template_create_from_pdf(
            organization=organization, title=title, pdf=blank_pdf()
        )
        if publish:
            services.template_publish(template=template)
        if edit:
            spec = {**services.working_version(template).spec, "style": {"fontSize": 9}}
            services.template_update_working(template=template, spec=spec)

    add("one", publish=True)
    one, one_row = listing_queries(member_client)
    add("two", publish=False)
    add("three", publish=True, edit=True)
    add("four", publish=True)
    add("five", publish=False)
    five, rows = listing_queries(member_client)

    assert one_row == [("one", "v1", False)]
    assert rows == [
        ("five", "never", True),
        ("four", "v1", False),
        ("one", "v1", False),
        ("three", "v1", True),
        ("two", "never", True),
    ]
    # Session, user, two of permissions, the organization filter, two counts, the templates and
    # their versions (one prefetch): none per row.
    assert one == five == 9


def test_upload_offers_only_the_staff_members_organizations(
    member_client: Client, organization, other_organization
) -> None:
    form = (
        member_client.get(reverse("admin:templates_app_pdftemplate_add")).context["adminform"].form
    )

    assert list(form.fields["organization"].queryset) == [organization]


def test_test_fill_downloads_the_working_version_filled_with_example_data(
    member_client: Client, fw9_template
) -> None:
    from tests.pdfcheck import page_text

    response = member_client.post(
        reverse("admin:templates_app_pdftemplate_test_fill", args=[fw9_template.pk])
    )

    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert (
        response["Content-Disposition"]
        == f'attachment; filename="test-fill-{fw9_template.eid}.pdf"'
    )
    assert "Sample text" in page_text(response.content)


def test_outsiders_cannot_test_fill(outsider_client: Client, fw9_template) -> None:
    response = outsider_client.post(
        reverse("admin:templates_app_pdftemplate_test_fill", args=[fw9_template.pk])
    )

    assert response.status_code == 404


def test_change_page_offers_fields_publish_and_test_fill(
    member_client: Client, fw9_template
) -> None:
    page = member_client.get(
        reverse("admin:templates_app_pdftemplate_change", args=[fw9_template.pk])
    ).content.decode()

    for name in ("fields", "publish", "test_fill"):
        assert reverse(f"admin:templates_app_pdftemplate_{name}", args=[fw9_template.pk]) in page
