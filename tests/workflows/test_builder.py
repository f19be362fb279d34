"""The webform builder's endpoints (workflows/builder/admin.py, workflows/builder/state.py): what it
loads, the save (rows kept, mappings kept, nothing written on a refusal), the draft preview,
who may use it, and its catalogue against the definition."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from accounts.models import Organization
from core.engine.field_types import TYPES
from tests.admin_walk import snapshot
from tests.templates_app.conftest import logged_in
from tests.workflows.test_admin import staff
from workflows.builder.catalogue import LOOKS, all_settings, catalogue_json, settings_of
from workflows.definitions.versions import workflow_export, workflow_publish
from workflows.models import FieldMapping, Webform, WebformField, Workflow, WorkflowSigner


@pytest.fixture
def editor(organization: Organization) -> Client:
    return logged_in(staff("builder", organization))


def url(webform: Webform, suffix: str = "") -> str:
    return f"/admin/workflows/webform/{webform.pk}/builder/{suffix}"


def state(client: Client, webform: Webform) -> dict[str, Any]:
    response = client.get(url(webform, "definition/"))
    assert response.status_code == 200
    return response.json()


def post(client: Client, path: str, body: dict[str, Any]) -> Any:
    return client.post(path, json.dumps(body), content_type="application/json")


def keys(webform: Webform) -> list[list[str]]:
    return [
        list(page.fields.order_by("position").values_list("key", flat=True))
        for page in webform.pages.order_by("position")
    ]


def test_the_builder_page_and_its_state(editor: Client, demo_workflow: Workflow) -> None:
    webform = demo_workflow.webforms.get(slug="order")
    page = editor.get(url(webform))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="wfb-config"' in html
    assert "workflows/builder/builder.js" in html
    config = page.context["builder_config"]
    assert config["urls"]["definition"] == url(webform, "definition/")

    loaded = state(editor, webform)
    assert loaded["name"] == "Your order"
    fields = loaded["pages"][0]["fields"]
    rows = dict(webform.fields.values_list("key", "pk"))
    assert [(f["key"], f["row"]) for f in fields] == [(f["key"], rows[f["key"]]) for f in fields]
    assert fields[0] == {
        "key": "amount",
        "type": "dollar",
        "label": "Amount",
        "required": True,
        "validation": {"min": 1, "max": 100000},
        "row": rows["amount"],
    }
    assert loaded["uses"]["amount"] == ["fills amount of Demo form"]

    # Its name and address are on the webform's own page, which leads back to the builder.
    change = f"/admin/workflows/webform/{webform.pk}/change/"
    assert url(webform) in editor.get(change).content.decode()
    renamed = editor.post(change, {"name": "Order", "slug": "the-order"})
    assert renamed.status_code == 302
    assert renamed["Location"] == url(webform)
    webform.refresh_from_db()
    assert (webform.name, webform.slug) == ("Order", "the-order")


def test_the_panel_offers_each_type_its_own_settings() -> None:
    catalogue = catalogue_json()
    by_type = {t["name"]: t["settings"] for t in catalogue["types"]}
    assert [t["name"] for t in catalogue["types"]] == list(TYPES)
    assert by_type["dollar"] == [*settings_of("dollar")]
    assert "baseRegion" not in by_type["dollar"]
    assert {"min", "max"} <= set(by_type["dollar"])
    assert "baseRegion" in by_type["phone"]
    assert "min" not in by_type["phone"]
    assert "options" in by_type["radioGroup"]
    assert "options" not in by_type["shortText"]
    assert {"minLength", "maxLength"} <= set(by_type["longText"])
    assert catalogue["looks"]["min"]["path"] == "validation.min"
    assert catalogue["looks"]["showWhen"]["input"] == "condition"
    regions = [c["value"] for c in catalogue["looks"]["baseRegion"]["choices"]]
    assert "US" in regions
    assert "GB" in regions


def test_every_setting_of_the_definitions_catalogue_has_a_look() -> None:
    """A setting the definition's catalogue gains is shown as JSON under its name until it has
    a label and an input in workflows/builder/catalogue.py: this fails until then."""
    assert all_settings() - set(LOOKS) == set()
    looks = catalogue_json()["looks"]
    assert {looks[name]["input"] for name in all_settings()} <= {
        "text", "key", "textarea", "checkbox", "number", "count", "select", "options",
        "condition", "default",
    }  # fmt: skip


def order_state(editor: Client, workflow: Workflow) -> tuple[Any, dict[str, int], Any, Any]:
    """The order webform, its field rows by key, the builder's state of it and that state's
    first page's fields by key."""
    webform = workflow.webforms.get(slug="order")
    rows = dict(webform.fields.values_list("key", "pk"))
    body = state(editor, webform)
    return webform, rows, body, {f["key"]: f for f in body["pages"][0]["fields"]}


def test_a_save_keeps_rows_and_mappings_and_writes_what_export_reads(
    editor: Client, demo_workflow: Workflow
) -> None:
    webform, rows, body, fields = order_state(editor, demo_workflow)
    # Rename a mapped field, move two fields to a new second page, add one, remove one.
    fields["amount"] = {**fields["amount"], "key": "total", "label": "Total"}
    body["name"] = "Order"
    body["pages"] = [
        {**body["pages"][0], "fields": [fields[k] for k in ("agree", "amount", "quantity")]},
        {
            "title": "More",
            "description": "Optional.",
            "fields": [
                fields["colour"],
                {"key": "note", "type": "shortText", "label": "Note", "required": False,
                 "showWhen": {"field": "colour", "hasValue": True}, "row": None},
            ],
        },
    ]  # fmt: skip
    saved = post(editor, url(webform, "definition/"), {"webform": body})

    assert saved.status_code == 200, saved.content
    webform.refresh_from_db()
    assert webform.name == "Order"
    assert keys(webform) == [["agree", "total", "quantity"], ["colour", "note"]]
    assert WebformField.objects.get(key="total", webform=webform).pk == rows["amount"]
    assert not WebformField.objects.filter(pk__in=[rows["discount"], rows["comments"]]).exists()
    mapped = dict(
        FieldMapping.objects.filter(field__webform=webform).values_list("alias", "field__key")
    )
    assert mapped == {"agree": "agree", "amount": "total", "quantity": "quantity",
                      "colour": "colour"}  # fmt: skip
    # The JSON export reads what was saved, and the answer is the saved state.
    exported = workflow_export(workflow=demo_workflow)["webforms"][1]
    assert exported["name"] == "Order"
    assert [p["title"] for p in exported["pages"]] == ["Order", "More"]
    assert exported["pages"][1]["description"] == "Optional."
    assert exported["pages"][1]["fields"][1] == {
        "key": "note",
        "type": "shortText",
        "label": "Note",
        "required": False,
        "showWhen": {"field": "colour", "hasValue": True},
    }
    assert saved.json()["pages"][1]["fields"][1]["row"] == webform.fields.get(key="note").pk
    # Still publishable, and the mapping page still opens.
    assert workflow_publish(workflow=demo_workflow).number == 2
    document = demo_workflow.documents.get()
    mapping = f"/admin/workflows/workflow/{demo_workflow.pk}/documents/{document.pk}/mapping/"
    assert "Total (total, dollar)" in editor.get(mapping).content.decode()


def test_two_fields_may_swap_keys(editor: Client, demo_workflow: Workflow) -> None:
    webform = demo_workflow.webforms.get(slug="order")
    rows = dict(webform.fields.values_list("key", "pk"))
    body = state(editor, webform)
    for field in body["pages"][0]["fields"]:
        if field["key"] in ("quantity", "discount"):
            field["key"] = "discount" if field["key"] == "quantity" else "quantity"
    saved = post(editor, url(webform, "definition/"), {"webform": body})
    assert saved.status_code == 200, saved.content
    assert WebformField.objects.get(pk=rows["quantity"]).key == "discount"
    assert WebformField.objects.get(pk=rows["discount"]).key == "quantity"


def test_a_refused_save_names_each_problem_and_changes_nothing(
    editor: Client, demo_workflow: Workflow
) -> None:
    webform = demo_workflow.webforms.get(slug="order")
    body = state(editor, webform)
    body["pages"][0]["fields"][0]["key"] = "2bad"
    body["pages"][0]["fields"][3]["options"] = []
    body["pages"][0]["fields"][4]["type"] = "dollar"
    body["pages"][0]["fields"][4]["validation"] = {"min": 5, "max": 1}
    body["pages"].append({"title": "", "fields": []})
    before = snapshot()

    refused = post(editor, url(webform, "definition/"), {"webform": body})

    assert refused.status_code == 400
    assert refused.json() == {
        "name": "ValidationError",
        "fields": [
            {"property": "pages.0.fields.0.key",
             "message": "Use a letter, then letters, digits or _ (at most 64)."},
            {"property": "pages.0.fields.3.options", "message": "A radio group needs options."},
            {"property": "pages.0.fields.4.validation.max",
             "message": "Must not be below the minimum."},
            {"property": "pages.1.title", "message": "Required"},
            {"property": "pages.1.fields", "message": "A page needs at least one field."},
        ],
    }  # fmt: skip
    assert snapshot() == before


def test_rows_of_another_webform_are_refused(editor: Client, demo_workflow: Workflow) -> None:
    webform = demo_workflow.webforms.get(slug="order")
    theirs = demo_workflow.webforms.get(slug="about-you").fields.get(key="email")
    body = state(editor, webform)
    body["pages"][0]["fields"][0]["row"] = theirs.pk
    before = snapshot()
    refused = post(editor, url(webform, "definition/"), {"webform": body})
    assert refused.status_code == 400
    assert refused.json()["fields"][0]["property"] == "pages.0.fields.0"
    assert snapshot() == before


def test_a_signers_field_stays(editor: Client, demo_workflow: Workflow) -> None:
    webform = demo_workflow.webforms.get(slug="about-you")
    WorkflowSigner.objects.create(
        workflow=demo_workflow,
        name_field=webform.fields.get(key="name"),
        email_field=webform.fields.get(key="email"),
        boxes=[],
    )
    body = state(editor, webform)
    body["pages"][0]["fields"] = body["pages"][0]["fields"][2:]  # name and email go
    before = snapshot()
    refused = post(editor, url(webform, "definition/"), {"webform": body})
    assert refused.status_code == 400
    assert [f["property"] for f in refused.json()["fields"]] == ["removed.name", "removed.email"]
    assert snapshot() == before


def test_the_preview_shows_the_draft_as_the_public_form_does(
    editor: Client, demo_workflow: Workflow
) -> None:
    webform = demo_workflow.webforms.get(slug="order")
    body = state(editor, webform)
    body["pages"][0]["fields"][0]["label"] = "How much, drafted"
    # A field being typed: no key yet, a radio group without options; still shown.
    body["pages"][0]["fields"].append({"key": "", "type": "radioGroup", "label": "Size"})
    body["pages"][0]["groups"] = [
        {"key": "items", "label": "Line items", "maxEntries": 3,
         "fields": [{"key": "sku", "type": "shortText", "label": "Article number"}]},
    ]  # fmt: skip
    drafted = post(editor, url(webform, "draft/"), {"webform": body})
    assert drafted.status_code == 204

    page = editor.get(url(webform, "preview/"), {"forge": "order", "page": 0})
    html = page.content.decode()
    assert page.status_code == 200
    assert "How much, drafted" in html
    assert "Size" in html
    assert "Line items" in html  # the page's groups too, while a field is incomplete
    assert "Article number" in html
    assert 'class="wf-field wf-type-dollar' in html  # drawn by workflows/field.html
    # "Check this page" checks the draft's fields as people's pages are checked.
    checked = editor.post(f"{url(webform, 'preview/')}?forge=order&page=0", {"amount": "0"})
    assert "How much, drafted" in checked.content.decode()
    assert "at least" in checked.content.decode().lower()
    # Nothing was saved.
    assert webform.fields.get(key="amount").label == "Amount"
    # A save ends the draft: the preview shows the saved webform again.
    assert post(editor, url(webform, "definition/"), {"webform": state(editor, webform)})
    assert "How much, drafted" not in editor.get(url(webform, "preview/")).content.decode()


def test_other_organizations_and_members_are_refused(
    demo_workflow: Workflow, organization: Organization, other_organization: Organization
) -> None:
    webform = demo_workflow.webforms.get(slug="order")
    outsider = logged_in(staff("outsider", other_organization, role="owner"))
    member = logged_in(staff("reader", organization, role="member"))
    body = {"webform": {"name": "Taken", "pages": [{"title": "x", "fields": []}]}}
    before = snapshot()
    for suffix in ("", "definition/", "draft/", "preview/"):
        assert outsider.get(url(webform, suffix)).status_code == 404
        assert post(outsider, url(webform, suffix), body).status_code == 404
        assert member.get(url(webform, suffix)).status_code == 403
        assert post(member, url(webform, suffix), body).status_code == 403
    assert snapshot() == before


def test_a_save_needs_the_csrf_token(organization: Organization, demo_workflow: Workflow) -> None:
    webform = demo_workflow.webforms.get(slug="order")
    client = Client(enforce_csrf_checks=True)
    client.force_login(staff("builder", organization))
    body = {"webform": {"name": "Forged", "pages": []}}
    assert post(client, url(webform, "definition/"), body).status_code == 403
    webform.refresh_from_db()
    assert webform.name == "Your order"


def test_repeating_groups_and_conditional_pages_are_saved(
    editor: Client, demo_workflow: Workflow
) -> None:
    webform, rows, body, fields = order_state(editor, demo_workflow)
    body["pages"][0]["fields"] = [fields["agree"], fields["amount"]]
    body["pages"].append(
        {
            "title": "Items",
            "showWhen": {"field": "agree", "hasValue": True},
            "fields": [],
            "groups": [
                {"key": "items", "label": "Items", "minEntries": 1, "maxEntries": 5, "row": None,
                 "fields": [fields["quantity"], fields["comments"]]},
            ],
        }
    )  # fmt: skip
    saved = post(editor, url(webform, "definition/"), {"webform": body})
    assert saved.status_code == 200, saved.content

    group = webform.groups.get()
    assert (group.key, group.min_entries, group.max_entries, group.page.title) == (
        "items", 1, 5, "Items",
    )  # fmt: skip
    assert group.page.show_when == "agree"
    assert list(group.fields.order_by("position").values_list("pk", flat=True)) == [
        rows["quantity"],
        rows["comments"],
    ]
    exported = workflow_export(workflow=demo_workflow)["webforms"][1]["pages"][1]
    assert exported["showWhen"] == {"field": "agree", "hasValue": True}
    assert [f["key"] for f in exported["groups"][0]["fields"]] == ["quantity", "comments"]
    # The state the builder loads again has the group's row and its fields' rows.
    loaded = saved.json()["pages"][1]["groups"][0]
    assert loaded["row"] == group.pk
    assert [f["row"] for f in loaded["fields"]] == [rows["quantity"], rows["comments"]]

    # Out of the group again: the group goes, its fields stay (same rows) on the first page.
    body = saved.json()
    body["pages"][0]["fields"] += body["pages"][1]["groups"][0]["fields"]
    body["pages"] = body["pages"][:1]
    assert post(editor, url(webform, "definition/"), {"webform": body}).status_code == 200
    assert not webform.groups.exists()
    assert keys(webform) == [["agree", "amount", "quantity", "comments"]]
    assert webform.fields.get(key="quantity").pk == rows["quantity"]
