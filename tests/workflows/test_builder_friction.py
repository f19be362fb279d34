"""From "Add workflow" to the builder: the organization chosen already when the user manages
one, a first webform made so that saving goes straight to its builder (two page loads), slugs
following names (Django's prepopulate, declared), Publish in the builder, and the builder's
palette of field types (every type in one category)."""

from __future__ import annotations

import html
import re

import pytest

from accounts.models import Organization
from accounts.services import member_add
from core.engine.field_types import TYPES
from tests.templates_app.conftest import logged_in
from tests.workflows.test_admin import staff
from workflows.builder.catalogue import TYPE_CATEGORIES, catalogue_json
from workflows.definitions.versions import workflow_import
from workflows.models import Webform, WebformPage, Workflow

pytestmark = pytest.mark.django_db

ADD = "/admin/workflows/workflow/add/"


def selected_organization(html: str) -> list[str]:
    select = re.search(r'<select name="organization".*?</select>', html, re.S)
    assert select is not None
    return re.findall(r'<option value="(\d+)" selected>', select.group(0))


def test_the_organization_is_chosen_when_the_user_manages_one(
    organization: Organization, other_organization: Organization
) -> None:
    editor = logged_in(staff("builder", organization))
    assert selected_organization(editor.get(ADD).content.decode()) == [str(organization.pk)]

    # Managing two, the user chooses.
    user = staff("two", organization)
    member_add(organization=other_organization, user=user, role="admin")
    assert selected_organization(logged_in(user).get(ADD).content.decode()) == []


def test_the_slug_follows_the_name_on_the_add_form(organization: Organization) -> None:
    page = html.unescape(logged_in(staff("builder", organization)).get(ADD).content.decode())

    assert '"id": "#id_slug"' in page
    assert '"dependency_ids": ["#id_name"]' in page


def test_saving_a_new_workflow_opens_the_builder_of_its_first_webform(
    organization: Organization,
) -> None:
    editor = logged_in(staff("builder", organization))

    added = editor.post(ADD, {"organization": organization.pk, "name": "Lease", "slug": "lease"})

    webform = Webform.objects.get(workflow__slug="lease")
    assert (webform.name, webform.slug) == ("Lease", "lease")
    assert [p.title for p in WebformPage.objects.filter(webform=webform)] == ["Page 1"]
    assert added.status_code == 302
    assert added["Location"] == f"/admin/workflows/webform/{webform.pk}/builder/"
    assert editor.get(added["Location"]).status_code == 200


def test_save_and_continue_keeps_the_admins_way(organization: Organization) -> None:
    editor = logged_in(staff("builder", organization))

    added = editor.post(
        ADD, {"organization": organization.pk, "name": "Lease", "slug": "lease", "_continue": "1"}
    )

    workflow = Workflow.objects.get(slug="lease")
    assert added["Location"] == f"/admin/workflows/workflow/{workflow.pk}/change/"


def publish_url(webform: Webform) -> str:
    return f"/admin/workflows/webform/{webform.pk}/builder/publish/"


def test_the_builder_publishes_the_workflow(organization: Organization) -> None:
    workflow, _created = workflow_import(
        organization=organization,
        data={
            "slug": "w",
            "name": "W",
            "webforms": [
                {
                    "slug": "f",
                    "name": "F",
                    "pages": [{"title": "P", "fields": [
                        {"key": "a", "type": "shortText", "label": "A"}]}],
                }
            ],
        },
    )  # fmt: skip
    webform = workflow.webforms.get()
    editor = logged_in(staff("builder", organization))

    first = editor.post(publish_url(webform), "{}", content_type="application/json")
    second = editor.post(publish_url(webform), "{}", content_type="application/json")

    assert (first.status_code, first.json()) == (200, {"version": 1})
    assert second.json() == {"version": 2}
    assert list(workflow.versions.values_list("number", flat=True).order_by("number")) == [1, 2]
    assert editor.get(publish_url(webform)).status_code == 405


def test_the_builder_says_why_it_cannot_publish_and_publishes_nothing(
    organization: Organization,
) -> None:
    editor = logged_in(staff("builder", organization))
    editor.post(ADD, {"organization": organization.pk, "name": "Lease", "slug": "lease"})
    webform = Webform.objects.get(workflow__slug="lease")  # one page, no field yet

    refused = editor.post(publish_url(webform), "{}", content_type="application/json")

    assert refused.status_code == 400
    assert refused.json()["name"] == "ValidationError"
    assert not webform.workflow.versions.exists()


def test_a_member_who_does_not_manage_cannot_publish(organization: Organization) -> None:
    editor = logged_in(staff("builder", organization))
    editor.post(ADD, {"organization": organization.pk, "name": "Lease", "slug": "lease"})
    webform = Webform.objects.get(workflow__slug="lease")
    member = logged_in(staff("mia", organization, role="member"))

    response = member.post(publish_url(webform), "{}", content_type="application/json")

    assert response.status_code == 403
    assert not webform.workflow.versions.exists()


def test_the_palette_puts_every_type_in_one_category() -> None:
    placed = [name for _label, names in TYPE_CATEGORIES for name in names]

    assert sorted(placed) == sorted(TYPES)
    assert len(placed) == len(set(placed))
    assert catalogue_json()["typeCategories"][0] == {
        "label": "Text",
        "types": ["shortText", "longText", "textWrap", "charList"],
    }
