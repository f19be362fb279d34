"""The workflow admin: building a workflow (webforms, their pages and fields in the builder,
documents, the mapping picked from lists), preview, publish, export and import; who sees and
changes what."""

from __future__ import annotations

import io
import json
from html.parser import HTMLParser
from typing import Any

import pytest
from django.test import Client

from accounts.models import Organization, User
from templates_app.models import PdfTemplate
from tests.staff import staff_member
from tests.templates_app.conftest import PASSWORD, logged_in
from workflows.definitions.versions import workflow_export
from workflows.models import FieldMapping, Webform, WebformField, Workflow, WorkflowDocument


class _Form(HTMLParser):
    """The values a browser would send for the form with id ``form_id``."""

    def __init__(self, form_id: str) -> None:
        super().__init__()
        self.form_id, self.inside, self.data = form_id, False, {}
        self._select: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "form":
            self.inside = a.get("id") == self.form_id
        if not self.inside:
            return
        name = a.get("name")
        if tag == "input" and name and a.get("type") not in ("submit", "button", "file"):
            if a.get("type") in ("checkbox", "radio"):
                if "checked" in a:
                    self.data[name] = a.get("value") or "on"
            else:
                self.data[name] = a.get("value") or ""
        elif tag == "select" and name:
            self._select = name
            self.data.setdefault(name, "")
        elif tag == "option" and self._select and "selected" in a:
            self.data[self._select] = a.get("value") or ""
        elif tag == "textarea" and name:
            self._textarea = name
            self.data[name] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False
        elif tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data: str) -> None:
        if self._textarea:
            self.data[self._textarea] += (
                data.lstrip("\n") if not self.data[self._textarea] else data
            )


def form_data(response: Any, form_id: str) -> dict[str, str]:
    parser = _Form(form_id)
    parser.feed(response.content.decode())
    return parser.data


def staff(username: str, organization: Organization, role: str = "admin") -> User:
    return staff_member(organization, username, role, ["workflows", "templates_app"], PASSWORD)


@pytest.fixture
def editor(organization: Organization) -> Client:
    return logged_in(staff("builder", organization))


def change_url(workflow: Workflow) -> str:
    return f"/admin/workflows/workflow/{workflow.pk}/change/"


def test_a_workflow_is_built_in_the_admin(
    editor: Client, organization: Organization, demo_template: PdfTemplate
) -> None:
    added = editor.post(
        "/admin/workflows/workflow/add/",
        {"organization": organization.pk, "name": "Lease", "slug": "lease"},
    )
    assert added.status_code == 302
    workflow = Workflow.objects.get(slug="lease")

    # A webform and a document, on the workflow's page.
    page = editor.get(change_url(workflow))
    data = form_data(page, "workflow_form")
    data.update(
        {
            "webforms-TOTAL_FORMS": "1",
            "webforms-0-name": "Tenant",
            "webforms-0-slug": "tenant",
            "webforms-0-position": "0",
            "documents-TOTAL_FORMS": "1",
            "documents-0-template": str(demo_template.pk),
            "documents-0-title": "Lease",
            "documents-0-filename": "lease.pdf",
            "documents-0-position": "0",
        }
    )
    saved = editor.post(change_url(workflow), data)
    assert saved.status_code == 302, saved.content.decode()[:3000]
    webform = Webform.objects.get(workflow=workflow)

    # Its fields, in the webform's builder: a first page was made for them.
    builder = f"/admin/workflows/webform/{webform.pk}/builder/"
    assert builder in editor.get(change_url(workflow)).content.decode()
    assert editor.get(builder).status_code == 200
    state = editor.get(f"{builder}definition/").json()
    assert [p["title"] for p in state["pages"]] == ["Page 1"]
    assert state["pages"][0]["fields"] == []
    state["pages"][0]["fields"] = [
        {"key": "email", "type": "email", "label": "Email", "required": True},
        {"key": "ssn", "type": "ssn", "label": "SSN", "default": "123-45-678"},
        {"key": "colour", "type": "radioGroup", "label": "Colour",
         "options": [{"value": "red", "label": "Red"}, {"value": "green", "label": ""}]},
    ]  # fmt: skip
    refused = editor.post(
        f"{builder}definition/", json.dumps({"webform": state}), content_type="application/json"
    )
    assert refused.status_code == 400
    assert refused.json()["fields"] == [
        {
            "property": "pages.0.fields.1.default",
            "message": "Enter the 9 digits of a social security number, like 123-45-6789.",
        }
    ]
    assert not WebformField.objects.exists()

    state["pages"][0]["fields"][1]["default"] = "123-45-6789"
    saved = editor.post(
        f"{builder}definition/", json.dumps({"webform": state}), content_type="application/json"
    )
    assert saved.status_code == 200, saved.content.decode()[:3000]
    fields = list(webform.fields.order_by("position"))
    assert [f.key for f in fields] == ["email", "ssn", "colour"]
    assert fields[1].default == "123456789"
    assert fields[2].options == [
        {"value": "red", "label": "Red"},
        {"value": "green", "label": "green"},
    ]

    # The mapping: each alias offers the fields that can fill it.
    document = WorkflowDocument.objects.get(workflow=workflow)
    mapping_url = f"/admin/workflows/workflow/{workflow.pk}/documents/{document.pk}/mapping/"
    page = editor.get(mapping_url)
    html = page.content.decode()
    assert "(email, email)" in html
    data = form_data(page, "mapping-form")
    names = {label: name for name, label in _labels(html).items()}
    email_field = fields[0]
    data[names["email"]] = str(email_field.pk)
    data[names["ssn"]] = str(fields[1].pk)
    data[names["colour"]] = str(fields[2].pk)
    done = editor.post(mapping_url, data)
    assert done.status_code == 302
    assert {(m.alias, m.field.key) for m in FieldMapping.objects.all()} == {
        ("email", "email"),
        ("ssn", "ssn"),
        ("colour", "colour"),
    }
    # A field that cannot fill the alias is not among its choices.
    data[names["birthDate"]] = str(email_field.pk)
    wrong = editor.post(mapping_url, data)
    assert wrong.status_code == 200
    assert "Select a valid choice" in wrong.content.decode()

    # Preview: the page is checked as people's are, and nothing is saved.
    preview = editor.post(
        f"/admin/workflows/workflow/{workflow.pk}/preview/", {"email": "no", "ssn": ""}
    )
    assert "Enter an email address, like name@example.com." in preview.content.decode()
    ok = editor.post(
        f"/admin/workflows/workflow/{workflow.pk}/preview/", {"email": "a@b.co", "colour": "red"}
    )
    assert "Every field of this page passes its checks" in ok.content.decode()

    # Publish: version 1, and the public page serves it.
    published = editor.post(f"/admin/workflows/workflow/{workflow.pk}/publish/", follow=True)
    assert "published as version 1" in published.content.decode()
    assert Client().get("/form/acme/lease").status_code == 200


def _labels(html: str) -> dict[str, str]:
    """select name -> the alias its label names, on the mapping page."""
    import re

    out = {}
    for match in re.finditer(r'<label for="id_(alias_\d+)">([^<]+)</label>', html):
        out[match.group(1)] = match.group(2)
    for match in re.finditer(
        r'<label for="id_(alias_\d+)">[^<]+</label> <code>([^<]+)</code>', html
    ):
        out[match.group(1)] = match.group(2)
    return out


def test_publishing_an_incomplete_workflow_says_why(editor: Client, organization) -> None:
    workflow = Workflow.objects.create(organization=organization, slug="empty", name="Empty")

    response = editor.post(f"/admin/workflows/workflow/{workflow.pk}/publish/", follow=True)

    assert "not published: webforms: A workflow needs at least one webform." in (
        response.content.decode()
    )
    assert not workflow.versions.exists()


def test_export_action_and_import_page(
    editor: Client, demo_workflow: Workflow, organization: Organization
) -> None:
    exported = editor.post(
        "/admin/workflows/workflow/",
        {"action": "export_json", "_selected_action": [demo_workflow.pk]},
    )
    assert exported["Content-Disposition"] == 'attachment; filename="demo-onboarding.json"'
    data = json.loads(exported.content)
    assert data == workflow_export(workflow=demo_workflow)

    data["slug"], data["name"] = "copy", "Copy"
    upload = io.BytesIO(json.dumps(data).encode())
    upload.name = "copy.json"
    response = editor.post(
        "/admin/workflows/workflow/import/",
        {"organization": organization.pk, "file": upload, "publish": "on"},
        follow=True,
    )
    assert "Created Copy." in response.content.decode()
    copy = Workflow.objects.get(slug="copy")
    assert copy.versions.count() == 1
    assert [w.slug for w in copy.webforms.all()] == ["about-you", "order"]
    # New webforms, new eids: the original's stay its own.
    assert not set(copy.webforms.values_list("eid", flat=True)) & set(
        demo_workflow.webforms.values_list("eid", flat=True)
    )


def test_staff_see_and_change_only_their_organizations_workflows(
    demo_workflow: Workflow, other_organization: Organization, organization: Organization
) -> None:
    outsider = logged_in(staff("outsider", other_organization))
    listing = outsider.get("/admin/workflows/workflow/")
    assert "Demo: onboarding" not in listing.content.decode()
    assert outsider.get(change_url(demo_workflow)).status_code == 302  # "does not exist"
    assert outsider.get(f"/admin/workflows/workflow/{demo_workflow.pk}/preview/").status_code == 404
    assert outsider.post(f"/admin/workflows/workflow/{demo_workflow.pk}/publish/").status_code == (
        404
    )
    webform = demo_workflow.webforms.first()
    assert outsider.get(f"/admin/workflows/webform/{webform.pk}/change/").status_code == 302
    assert outsider.get(f"/admin/workflows/webform/{webform.pk}/builder/").status_code == 404
    document = demo_workflow.documents.get()
    mapping = f"/admin/workflows/workflow/{demo_workflow.pk}/documents/{document.pk}/mapping/"
    assert outsider.get(mapping).status_code == 404

    # A plain member sees the workflow but may not change or publish it.
    member = logged_in(staff("reader", organization, role="member"))
    page = member.get(change_url(demo_workflow))
    assert page.status_code == 200
    assert 'name="name"' not in page.content.decode()
    assert member.post(f"/admin/workflows/workflow/{demo_workflow.pk}/publish/").status_code == 403
    assert member.get(mapping).status_code == 403
    assert demo_workflow.versions.count() == 1
