"""The admin's "Rename fields" page: every field's alias, type, page, label and PDF name in one
table; many aliases changed in one save; refusals change nothing; staff of other organizations
and view-only staff cannot use it."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from templates_app import services
from templates_app.models import PdfTemplate
from tests.fixtures import PDFS
from tests.templates_app.conftest import logged_in, make_staff


def url(template: PdfTemplate, page: str = "") -> str:
    base = reverse("admin:templates_app_pdftemplate_aliases", args=[template.pk])
    return f"{base}?page={page}" if page else base


def aliases(template: PdfTemplate) -> list[str]:
    return [f["alias"] for f in services.working_version(template).spec["fields"]]


def rows(html: str) -> list[tuple[str, str]]:
    """(field id, alias) of every row of the table."""
    return re.findall(
        r'<tr data-field-id="([^"]+)".*?name="alias-[^"]+" value="([^"]*)"', html, re.S
    )


def test_the_change_page_links_to_the_rename_page(member_client: Client, fw9_template) -> None:
    change = reverse("admin:templates_app_pdftemplate_change", args=[fw9_template.pk])

    html = member_client.get(change).content.decode()

    assert f'<a href="{url(fw9_template)}"' in html
    assert ">Rename fields</a>" in html


def test_the_table_shows_every_field(member_client: Client, fw9_template) -> None:
    response = member_client.get(url(fw9_template))

    assert response.status_code == 200
    html = response.content.decode()
    assert rows(html) == [(f"f{n}", alias) for n, alias in enumerate(aliases(fw9_template), 1)]
    table = html[html.index('<table class="rename-table" id="rename-fields">') :]
    assert [h.strip() for h in re.findall(r'<th scope="col">([^<]*)</th>', table)] == [
        "#", "Alias", "Type", "Page", "Label or tooltip", "Name in the PDF",
    ]  # fmt: skip
    first_row = html[html.index('data-field-id="f1"') : html.index('data-field-id="f2"')]
    for text in ("Short text", "Name", "topmostSubform[0].Page1[0].f1_1[0]"):
        assert text in first_row
    assert '<label class="visually-hidden" for="alias-f1">Alias of field 1: Name</label>' in html


def test_saving_renames_many_fields_at_once(member_client: Client, fw9_template) -> None:
    before = aliases(fw9_template)
    form = {
        f"alias-{fid}": alias
        for fid, alias in rows(member_client.get(url(fw9_template)).content.decode())
    }
    form.update({"alias-f1": "legalName", "alias-f18": "ssnFirst3", "page": "all"})

    response = member_client.post(url(fw9_template), form)

    assert response.status_code == 302
    assert response.url == url(fw9_template, "all")
    after = aliases(fw9_template)
    assert after[0] == "legalName"
    assert after[17] == "ssnFirst3"
    assert after[1:17] + after[18:] == before[1:17] + before[18:]
    follow = member_client.get(response.url).content.decode()
    assert "Renamed 2 aliases." in follow
    # The imported name is kept.
    spec = services.working_version(fw9_template).spec
    assert spec["fields"][0]["name"] == "topmostSubform[0].Page1[0].f1_1[0]"


def test_an_empty_alias_is_refused_and_nothing_changes(member_client: Client, fw9_template) -> None:
    before = aliases(fw9_template)

    response = member_client.post(
        url(fw9_template), {"alias-f1": "renamed", "alias-f2": "   ", "page": "all"}
    )

    assert response.status_code == 200
    html = response.content.decode()
    assert "Nothing was renamed" in html
    assert '<p class="errornote" id="error-f2">Must be a non-empty string.</p>' in html
    assert 'value="renamed"' in html  # what was typed stays in the form
    assert aliases(fw9_template) == before


def test_aliases_shared_by_several_fields_are_marked(member_client: Client, fw9_template) -> None:
    member_client.post(url(fw9_template), {"alias-f1": "same", "alias-f2": "same"})

    html = member_client.get(url(fw9_template)).content.decode()

    assert "2 of these fields share their alias" in html
    assert html.count('<span class="shared">shared</span>') == 2


def test_arrays_are_renamed_too(member_client: Client, demo_template) -> None:
    response = member_client.post(
        url(demo_template), {"array-alias-items": "lineItems", "page": "all"}
    )

    assert response.status_code == 302
    arrays = services.working_version(demo_template).spec["arrays"]
    assert [a["alias"] for a in arrays] == ["lineItems", "prices"]


def test_a_large_template_is_shown_one_page_at_a_time(member_client: Client, organization) -> None:
    cra = services.template_create_from_pdf(
        organization=organization,
        title="B300",
        pdf=(PDFS / "ca-cra-b300-cannabis-duty.pdf").read_bytes(),
    )
    fields = services.working_version(cra).spec["fields"]

    first = member_client.get(url(cra)).content.decode()
    third = member_client.get(url(cra, "2")).content.decode()

    assert [fid for fid, _ in rows(first)] == [f["id"] for f in fields if f["page"] == 0]
    assert [fid for fid, _ in rows(third)] == [f["id"] for f in fields if f["page"] == 2]
    assert '?page=all"' not in first  # too many fields for one form


@pytest.mark.parametrize("method", ["get", "post"])
def test_other_organizations_staff_gets_a_404(
    outsider_client: Client, fw9_template, method: str
) -> None:
    before = aliases(fw9_template)

    response = getattr(outsider_client, method)(url(fw9_template), {"alias-f1": "stolen"})

    assert response.status_code == 404
    assert aliases(fw9_template) == before


def test_view_only_staff_cannot_rename(organization, fw9_template) -> None:
    client = logged_in(make_staff("viewer", organization, can_change=False))

    response = client.post(url(fw9_template), {"alias-f1": "nope"})

    assert response.status_code == 403
    assert aliases(fw9_template)[0] == "name"


def test_the_fields_page_keeps_the_imported_names(member_client: Client, fw9_template) -> None:
    fields_url = reverse("admin:templates_app_pdftemplate_fields", args=[fw9_template.pk])
    page = member_client.get(fields_url + "?page=0")
    data = {}
    for form in page.context["formset"].forms:
        for name, field in form.fields.items():
            value = form.initial.get(name, field.initial)
            if value not in (None, False):
                data[f"{form.prefix}-{name}"] = value
    data.update(
        {
            "fields-TOTAL_FORMS": str(len(page.context["formset"].forms)),
            "fields-INITIAL_FORMS": str(len(page.context["formset"].initial_forms)),
        }
    )

    response = member_client.post(fields_url + "?page=0", data)

    assert response.status_code == 302, response.content.decode()[:1000]
    spec = services.working_version(fw9_template).spec
    assert spec["fields"][0]["name"] == "topmostSubform[0].Page1[0].f1_1[0]"
