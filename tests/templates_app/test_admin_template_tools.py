"""The template admin's tools around a template: the upload form's organization and kept PDF,
duplicating a template, and replacing its PDF."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from reportlab.pdfgen.canvas import Canvas

from accounts.models import Organization, User
from accounts.services import member_add
from templates_app import services
from templates_app.models import PdfTemplate
from templates_app.upload_stash import PREFIX
from tests.fixtures import PDFS
from tests.pdfcheck import page_text
from tests.templates_app.conftest import logged_in, make_staff, small_form

ADD = "admin:templates_app_pdftemplate_add"


def fw9_upload() -> SimpleUploadedFile:
    return SimpleUploadedFile(
        "fw9.pdf", (PDFS / "irs-fw9-2018.pdf").read_bytes(), "application/pdf"
    )


def upload_form(client: Client):
    return client.get(reverse(ADD)).context["adminform"].form


# --- the organization preselected -----------------------------------------------------------


def test_the_only_organization_of_a_member_is_preselected(member_client: Client) -> None:
    form = upload_form(member_client)

    assert form["organization"].value() == form.fields["organization"].queryset.get().pk


def test_with_two_organizations_none_is_preselected(
    member: User, member_client: Client, other_organization: Organization
) -> None:
    member_add(organization=other_organization, user=member, role="admin")

    assert upload_form(member_client)["organization"].value() is None


def test_a_superuser_in_one_organization_of_several_gets_that_one(
    organization: Organization, other_organization: Organization
) -> None:
    boss = User.objects.create_superuser(username="boss", password="pw-boss-123456789")
    member_add(organization=other_organization, user=boss, role="owner")

    assert upload_form(logged_in(boss))["organization"].value() == other_organization.pk


# --- the chosen PDF kept after a validation error -----------------------------------------------


def test_a_pdf_chosen_before_an_error_elsewhere_is_kept_and_used(
    member: User, organization: Organization, other_organization: Organization, settings
) -> None:
    member_add(organization=other_organization, user=member, role="admin")
    client = logged_in(member)
    first = client.post(reverse(ADD), {"title": "", "pdf": fw9_upload()})  # no organization

    assert first.status_code == 200
    form = first.context["adminform"].form
    assert list(form.errors) == ["organization"]
    token = form["kept_pdf"].value()
    assert token
    assert f'value="{token}"' in first.content.decode()
    assert "Kept: fw9.pdf" in first.content.decode()
    assert len(list((Path(settings.MEDIA_ROOT) / PREFIX).iterdir())) == 1

    second = client.post(reverse(ADD), {"organization": organization.pk, "kept_pdf": token})

    assert second.status_code == 302, second.content.decode()[:2000]
    template = PdfTemplate.objects.get()
    assert (template.title, template.organization) == ("fw9", organization)
    assert len(services.working_version(template).spec["fields"]) == 22
    assert list((Path(settings.MEDIA_ROOT) / PREFIX).iterdir()) == []  # the kept copy is gone


def test_without_a_file_or_a_kept_one_the_pdf_is_required(member_client: Client) -> None:
    response = member_client.post(reverse(ADD), {"title": "x"})

    assert response.context["adminform"].form.errors["pdf"] == ["Choose a PDF."]
    assert PdfTemplate.objects.count() == 0


def test_a_kept_pdf_is_only_its_uploaders(
    member: User, organization: Organization, other_organization: Organization
) -> None:
    member_add(organization=other_organization, user=member, role="admin")
    first = logged_in(member).post(reverse(ADD), {"pdf": fw9_upload()})
    token = first.context["adminform"].form["kept_pdf"].value()
    colleague = logged_in(make_staff("colleague", organization))

    stolen = colleague.post(reverse(ADD), {"organization": organization.pk, "kept_pdf": token})
    forged = colleague.post(
        reverse(ADD), {"organization": organization.pk, "kept_pdf": token[:-2] + "xx"}
    )

    for response in (stolen, forged):
        assert response.context["adminform"].form.errors["pdf"] == ["Choose a PDF."]
    assert PdfTemplate.objects.count() == 0


# --- duplicate ----------------------------------------------------------------------------------


def test_duplicate_copies_the_working_version_as_an_unpublished_template(
    member_client: Client, fw9_template: PdfTemplate
) -> None:
    services.template_rename_fields(
        template=fw9_template,
        field_aliases={services.working_version(fw9_template).spec["fields"][0]["id"]: "name"},
    )
    services.template_publish(template=fw9_template)

    response = member_client.post(
        reverse("admin:templates_app_pdftemplate_duplicate", args=[fw9_template.pk])
    )

    copy = PdfTemplate.objects.exclude(pk=fw9_template.pk).get()
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:templates_app_pdftemplate_change", args=[copy.pk])
    assert (copy.title, copy.organization_id) == ("W-9 (copy)", fw9_template.organization_id)
    original, copied = services.working_version(fw9_template), services.working_version(copy)
    assert copied.spec == original.spec
    assert copied.spec["fields"][0]["alias"] == "name"
    assert services.version_pdf(copied) == services.version_pdf(original)
    assert copied.pdf_path != original.pdf_path  # the copy owns its file
    assert services.version_summary(copy).published_number is None
    # The copy is independent: changing it leaves the original as it was.
    services.template_rename_fields(
        template=copy, field_aliases={copied.spec["fields"][0]["id"]: "other"}
    )
    assert services.working_version(fw9_template).spec["fields"][0]["alias"] == "name"


def test_duplicate_from_the_list_action(member_client: Client, fw9_template: PdfTemplate) -> None:
    member_client.post(
        reverse("admin:templates_app_pdftemplate_changelist"),
        {"action": "duplicate_templates", "_selected_action": [fw9_template.pk]},
    )

    assert sorted(PdfTemplate.objects.values_list("title", flat=True)) == ["W-9", "W-9 (copy)"]


def test_duplicate_is_a_post_of_someone_who_may_add_in_that_organization(
    member_client: Client, outsider_client: Client, organization, fw9_template: PdfTemplate
) -> None:
    url = reverse("admin:templates_app_pdftemplate_duplicate", args=[fw9_template.pk])
    viewer = logged_in(make_staff("viewer", organization, can_change=False))

    assert member_client.get(url).status_code == 405
    assert outsider_client.post(url).status_code == 404
    assert viewer.post(url).status_code == 403
    assert PdfTemplate.objects.count() == 1


def test_the_change_page_offers_duplicate_and_replace(
    member_client: Client, fw9_template: PdfTemplate
) -> None:
    page = member_client.get(
        reverse("admin:templates_app_pdftemplate_change", args=[fw9_template.pk])
    ).content.decode()

    for name in ("duplicate", "replace_pdf"):
        assert reverse(f"admin:templates_app_pdftemplate_{name}", args=[fw9_template.pk]) in page


# --- replace the PDF ----------------------------------------------------------------------------


def two_pages(size: tuple[float, float], text: str) -> bytes:
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=size)
    for page in (1, 2):
        canvas.drawString(20, 20, f"{text} page {page}")
        canvas.showPage()
    canvas.save()
    return buffer.getvalue()


@pytest.fixture
def laid_out(organization: Organization) -> PdfTemplate:
    """Two letter pages with four fields: two that fit a half-letter page and two that do not."""
    from core.engine.template_spec import TemplateSpec

    spec = {
        "pages": [],
        "fields": [
            {"id": "a", "alias": "small1", "type": "shortText", "page": 0,
             "rect": {"x": 50, "y": 50, "width": 100, "height": 20}},
            {"id": "b", "alias": "wide", "type": "shortText", "page": 0,
             "rect": {"x": 300, "y": 50, "width": 200, "height": 20}},
            {"id": "c", "alias": "small2", "type": "shortText", "page": 1,
             "rect": {"x": 50, "y": 100, "width": 100, "height": 20}},
            {"id": "d", "alias": "high", "type": "shortText", "page": 1,
             "rect": {"x": 50, "y": 700, "width": 100, "height": 20}},
        ],
        "arrays": [{"id": "rows", "alias": "rows", "fieldIds": ["a", "b"]}],
        "style": {"fontSize": 9},
    }  # fmt: skip
    pdf = two_pages((612, 792), "Letter")
    template = services.template_create_from_pdf(organization=organization, title="T", pdf=pdf)
    pages = services.working_version(template).spec["pages"]
    services.template_update_working(template=template, spec={**spec, "pages": pages})
    services.template_publish(template=template)
    assert TemplateSpec.from_json(services.working_version(template).spec).fields
    return template


def replace(client: Client, template: PdfTemplate, pdf: bytes, fields_from: str = "keep"):
    return client.post(
        reverse("admin:templates_app_pdftemplate_replace_pdf", args=[template.pk]),
        {"pdf": SimpleUploadedFile("new.pdf", pdf, "application/pdf"), "fields_from": fields_from},
    )


def test_replacing_keeps_the_fields_that_fit_and_names_the_others(
    member_client: Client, laid_out: PdfTemplate, api_client: Client
) -> None:
    response = replace(member_client, laid_out, two_pages((396, 612), "Half"))

    assert response.status_code == 302
    version = services.working_version(laid_out)
    assert [f["alias"] for f in version.spec["fields"]] == ["small1", "small2"]
    # The array lost its field that did not fit.
    assert version.spec["arrays"] == [{"id": "rows", "alias": "rows", "fieldIds": ["a"]}]
    assert version.spec["style"] == {"fontSize": 9}
    assert [(p["width"], p["height"]) for p in version.spec["pages"]] == [(396, 612)] * 2
    warning = [str(m) for m in response.wsgi_request._messages if m.level_tag == "warning"]
    assert warning == [
        "2 field(s) did not fit the new PDF's pages and were removed: wide (page 1),"
        " high (page 2). Add them again in the visual editor if they are still needed."
    ]
    # The working version fills on the new PDF; the published one keeps the old.
    filled = api_client.post(
        reverse("fill-pdf", args=[laid_out.eid]) + "?versionNumber=-1",
        {"data": {"small2": "kept value"}},
        content_type="application/json",
    )
    assert filled.status_code == 200
    assert "Half page 1" in page_text(filled.content)
    assert "kept value" in page_text(filled.content, page=1)
    published = api_client.post(
        reverse("fill-pdf", args=[laid_out.eid]),
        {"data": {"high": "old layout"}},
        content_type="application/json",
    )
    assert published.status_code == 200, published.content[:300]
    assert "Letter page 1" in page_text(published.content)
    assert "old layout" in page_text(published.content, page=1)


def test_a_shorter_pdf_drops_the_fields_of_the_missing_pages(
    member_client: Client, laid_out: PdfTemplate
) -> None:
    replace(member_client, laid_out, small_form())

    fields = services.working_version(laid_out).spec["fields"]
    assert [f["alias"] for f in fields] == ["small1", "wide"]


def test_replacing_with_the_new_pdfs_own_fields(
    member_client: Client, laid_out: PdfTemplate
) -> None:
    replace(member_client, laid_out, small_form(), fields_from="new")

    spec = services.working_version(laid_out).spec
    assert sorted(f["alias"] for f in spec["fields"]) == ["agree", "fullName"]
    assert spec["style"] == {"fontSize": 9}


def test_a_refused_pdf_changes_nothing(member_client: Client, laid_out: PdfTemplate) -> None:
    before = services.working_version(laid_out)

    response = replace(member_client, laid_out, b"%PDF-1.7 nonsense")

    assert response.status_code == 200
    assert "damaged" in response.content.decode()
    after = services.working_version(laid_out)
    assert (after.pdf_sha256, after.spec) == (before.pdf_sha256, before.spec)


def test_replace_is_for_those_who_may_change_the_template(
    outsider_client: Client, organization: Organization, laid_out: PdfTemplate
) -> None:
    url = reverse("admin:templates_app_pdftemplate_replace_pdf", args=[laid_out.pk])
    viewer = logged_in(make_staff("viewer", organization, can_change=False))

    assert outsider_client.get(url).status_code == 404
    assert viewer.get(url).status_code == 403
    assert replace(viewer, laid_out, small_form()).status_code == 403


# --- found in review --------------------------------------------------------------------------


def test_a_kept_file_name_is_shown_as_text_not_markup(
    member: User, organization: Organization, other_organization: Organization
) -> None:
    member_add(organization=other_organization, user=member, role="admin")
    pdf = (PDFS / "irs-fw9-2018.pdf").read_bytes()
    upload = SimpleUploadedFile("<img src=x onerror=alert(1)>.pdf", pdf, "application/pdf")

    html = logged_in(member).post(reverse(ADD), {"pdf": upload}).content.decode()

    assert "Kept: &lt;img src=x onerror=alert(1)&gt;.pdf" in html
    assert "<img src=x" not in html


def test_two_stashes_of_one_pdf_are_two_files(member: User, settings) -> None:
    from templates_app.upload_stash import discard, stash_pdf, stashed_pdf

    pdf = (PDFS / "irs-fw9-2018.pdf").read_bytes()
    first = stash_pdf(data=pdf, name="a.pdf", user_id=member.pk)
    second = stash_pdf(data=pdf, name="a.pdf", user_id=member.pk)  # another tab
    discard(first)

    kept = stashed_pdf(second.token, user_id=member.pk)
    assert kept is not None
    assert kept.data == pdf
    assert stashed_pdf(first.token, user_id=member.pk) is None


def test_replacing_keeps_a_field_whose_only_problem_is_not_its_place(
    member_client: Client, laid_out: PdfTemplate
) -> None:
    # Saved before a rule existed (maxLength is now checked on every type): not a misfit.
    version = services.working_version(laid_out)
    version.spec["fields"][0]["maxLength"] = 0
    version.save()

    response = replace(member_client, laid_out, two_pages((612, 792), "Same size"))

    assert response.status_code == 302
    aliases = [f["alias"] for f in services.working_version(laid_out).spec["fields"]]
    assert aliases == ["small1", "wide", "small2", "high"]


def test_the_copy_of_a_longest_title_still_says_copy(
    member_client: Client, fw9_template: PdfTemplate
) -> None:
    fw9_template.title = "T" * 255
    fw9_template.save()

    member_client.post(reverse("admin:templates_app_pdftemplate_duplicate", args=[fw9_template.pk]))

    copy = PdfTemplate.objects.exclude(pk=fw9_template.pk).get()
    assert len(copy.title) == 255
    assert copy.title.endswith("T (copy)")


def test_a_viewer_is_not_offered_the_tools_that_change_a_template(
    organization: Organization, fw9_template: PdfTemplate
) -> None:
    viewer = logged_in(make_staff("viewer", organization, can_change=False))

    page = viewer.get(
        reverse("admin:templates_app_pdftemplate_change", args=[fw9_template.pk])
    ).content.decode()

    for name in ("duplicate", "replace_pdf", "fields", "publish", "editor"):
        assert (
            reverse(f"admin:templates_app_pdftemplate_{name}", args=[fw9_template.pk]) not in page
        )
