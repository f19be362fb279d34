"""The editor's admin page and JSON endpoints, through Django's test client: what they answer,
what they save, and that staff of another organization, staff without the change permission
and anonymous visitors get nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from core.engine.field_types import TEMPLATE_TYPES
from core.engine.template_spec import FIELD_TYPES, PARTS, TEMPLATE_FIELD_TYPES
from templates_app import services
from templates_app.models import PdfTemplate
from tests.pdfcheck import page_text
from tests.templates_app.conftest import logged_in, make_staff


def url(name: str, template: PdfTemplate) -> str:
    return reverse(f"admin:templates_app_pdftemplate_{name}", args=[template.pk])


def post_json(client: Client, target: str, body: object) -> object:
    return client.post(target, data=json.dumps(body), content_type="application/json")


def call(client: Client, method: str, target: str) -> object:
    if method == "get":
        return client.get(target)
    return post_json(client, target, {})


def test_the_change_page_links_to_the_editor(member_client: Client, fw9_template) -> None:
    page = member_client.get(url("change", fw9_template)).content.decode()

    assert f'href="{url("editor", fw9_template)}"' in page
    assert "Open visual editor" in page


def test_the_editor_page_loads_pdfjs_and_names_its_endpoints(
    member_client: Client, fw9_template
) -> None:
    response = member_client.get(url("editor", fw9_template))

    assert response.status_code == 200
    html = response.content.decode()
    config = response.context["editor_config"]
    assert config["urls"]["spec"] == url("editor_spec", fw9_template)
    assert config["urls"]["pdf"] == url("editor_pdf", fw9_template)
    assert config["urls"]["pdfjs"] == "/static/vendor/pdfjs/pdf.min.mjs"
    assert config["fieldTypes"][0]["name"] == "shortText"
    assert 'id="editor-config"' in html
    assert '<script type="module" src="/static/editor/editor.js">' in html
    assert "csrfmiddlewaretoken" in html


def test_the_editor_page_carries_every_field_type_as_the_spec_module_declares_it(
    member_client: Client, fw9_template
) -> None:
    """The editor has no copy of the field types: what the page embeds is all it knows."""
    html = member_client.get(url("editor", fw9_template)).content.decode()
    embedded = re.search(r'<script id="editor-config" type="application/json">(.*?)</script>', html)
    sent = json.loads(embedded.group(1))["fieldTypes"]
    css = (
        Path(__file__).parents[2] / "templates_app" / "static" / "editor" / "editor.css"
    ).read_text()

    assert [t["name"] for t in sent] == list(TEMPLATE_FIELD_TYPES)
    for carried in sent:
        declared = TEMPLATE_TYPES[carried["name"]]
        assert carried == {
            "name": declared.name,
            "label": declared.label,
            "category": declared.category,
            "defaultSize": list(declared.default_size),
            "aliasStem": declared.alias_stem or declared.name,
            "partRows": [
                [{"name": p.name, "label": p.label, "weight": p.weight} for p in row]
                for row in declared.part_rows
            ],
            "signer": declared.signer,
        }
        parts = [part["name"] for row in carried["partRows"] for part in row]
        assert parts == list(PARTS.get(declared.name, ()))
        assert f".cat-{declared.category} {{" in css, declared.category
    assert sent[FIELD_TYPES.index("usAddress")]["partRows"][2][1] == {
        "name": "state",
        "label": "State",
        "weight": 1.2,
    }


def test_get_returns_the_working_version(member_client: Client, fw9_template) -> None:
    response = member_client.get(url("editor_spec", fw9_template))

    assert response.status_code == 200
    body = response.json()
    assert body["title"] == "W-9"
    assert len(body["spec"]["fields"]) == 22
    assert len(body["spec"]["pages"]) == 6
    assert body["summary"] == {
        "publishedNumber": None,
        "hasUnpublishedChanges": True,
        "publishedAt": None,
    }
    assert set(body["exampleData"]) == {f["alias"] for f in body["spec"]["fields"]}


def test_the_pdf_is_the_working_versions_base_pdf(member_client: Client, fw9_template) -> None:
    response = member_client.get(url("editor_pdf", fw9_template))

    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert "no-store" in response["Cache-Control"]
    assert response.content == services.version_pdf(services.working_version(fw9_template))


def test_post_saves_the_spec_and_title(member_client: Client, fw9_template) -> None:
    spec = services.working_version(fw9_template).spec
    first = {**spec["fields"][0], "alias": "legal_name"}
    body = {"spec": {**spec, "fields": [first], "style": {"fontSize": 9}}, "title": "W-9 2018"}

    response = post_json(member_client, url("editor_spec", fw9_template), body)

    assert response.status_code == 200, response.content
    saved = services.working_version(fw9_template).spec
    assert [f["alias"] for f in saved["fields"]] == ["legal_name"]
    assert saved["style"] == {"fontSize": 9.0}
    assert response.json()["spec"] == saved
    fw9_template.refresh_from_db()
    assert fw9_template.title == "W-9 2018"


def test_a_refused_save_names_the_field_and_changes_nothing(
    member_client: Client, fw9_template
) -> None:
    before = services.working_version(fw9_template).spec
    fields = [dict(f) for f in before["fields"]]
    fields[3] = {**fields[3], "rect": {**fields[3]["rect"], "x": 5000}}
    fields[5] = {**fields[5], "alias": ""}

    response = post_json(
        member_client, url("editor_spec", fw9_template), {"spec": {**before, "fields": fields}}
    )

    assert response.status_code == 400
    assert response.json() == {
        "name": "ValidationError",
        "fields": [
            {"message": "The box lies outside the page.", "property": "fields.3.rect"},
            {"message": "Must be a non-empty string.", "property": "fields.5.alias"},
        ],
    }
    assert services.working_version(fw9_template).spec == before


def test_an_array_of_mixed_types_is_refused(member_client: Client, demo_template) -> None:
    spec = services.working_version(demo_template).spec
    mixed = [spec["fields"][0]["id"], spec["fields"][1]["id"]]
    arrays = [*spec["arrays"], {"id": "mixed", "alias": "mixed", "fieldIds": mixed}]

    response = post_json(
        member_client, url("editor_spec", demo_template), {"spec": {**spec, "arrays": arrays}}
    )

    assert response.status_code == 400
    problems = response.json()["fields"]
    assert problems[0]["property"] == f"arrays.{len(arrays) - 1}.fieldIds"
    assert problems[0]["message"].startswith("Mixed types in one array")


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b"{not json", {"property": "body", "message": "The body is not valid JSON."}),
        (b"[1, 2]", {"property": "body", "message": "The body must be a JSON object."}),
        (b"{}", {"property": "spec", "message": "Required: the template spec object."}),
        (b'{"spec": {}, "title": 3}', {"property": "title", "message": "Must be a string."}),
    ],
)
def test_a_malformed_body_is_a_validation_error(
    member_client: Client, fw9_template, body: bytes, problem: dict
) -> None:
    response = member_client.post(
        url("editor_spec", fw9_template), data=body, content_type="application/json"
    )

    assert response.status_code == 400
    assert response.json() == {"name": "ValidationError", "fields": [problem]}


@pytest.mark.parametrize("depth", [300, 100_000])
def test_a_body_nested_too_deep_is_a_validation_error(
    member_client: Client, fw9_template, depth: int, settings
) -> None:
    body = b'{"spec": ' + b"[" * depth + b"]" * depth + b"}"

    response = member_client.post(
        url("editor_spec", fw9_template), data=body, content_type="application/json"
    )

    assert response.status_code == 400
    [problem] = response.json()["fields"]
    assert problem["property"].startswith("body")
    assert "nested too deeply" in problem["message"]
    assert services.working_version(fw9_template).spec["fields"]


def test_saving_needs_the_csrf_token(member, fw9_template) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(member)
    spec = services.working_version(fw9_template).spec
    target = url("editor_spec", fw9_template)

    refused = post_json(client, target, {"spec": spec})
    token = client.get(url("editor", fw9_template)).context["csrf_token"]
    accepted = client.post(
        target,
        data=json.dumps({"spec": spec}),
        content_type="application/json",
        headers={"X-CSRFToken": str(token)},
    )

    assert refused.status_code == 403
    assert accepted.status_code == 200


def test_publish_publishes_the_working_version(member_client: Client, fw9_template) -> None:
    first = member_client.post(url("editor_publish", fw9_template))
    second = member_client.post(url("editor_publish", fw9_template))

    assert first.status_code == 200
    assert first.json()["publishedNumber"] == 1
    assert first.json()["summary"]["hasUnpublishedChanges"] is False
    assert second.json()["publishedNumber"] == 2
    assert services.version_summary(fw9_template).published_number == 2
    assert member_client.get(url("editor_publish", fw9_template)).status_code == 405


def test_preview_fills_the_working_version_with_example_data(
    member_client: Client, fw9_template
) -> None:
    response = post_json(member_client, url("editor_preview", fw9_template), {})

    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert "Sample text" in page_text(response.content)
    assert services.version_summary(fw9_template).published_number is None


def test_preview_fills_the_data_it_is_given(member_client: Client, fw9_template) -> None:
    alias = services.working_version(fw9_template).spec["fields"][0]["alias"]

    response = post_json(
        member_client, url("editor_preview", fw9_template), {"data": {alias: "Ada Lovelace"}}
    )

    assert response.status_code == 200
    assert "Ada Lovelace" in page_text(response.content)
    assert "Sample text" not in page_text(response.content)


def test_preview_of_data_the_fill_refuses_is_a_validation_error(
    member_client: Client, fw9_template
) -> None:
    alias = services.working_version(fw9_template).spec["fields"][0]["alias"]

    response = post_json(
        member_client, url("editor_preview", fw9_template), {"data": {alias: {"not": "text"}}}
    )

    assert response.status_code == 400
    assert response.json()["name"] == "ValidationError"
    assert response.json()["fields"][0]["property"] == f"data.{alias}"


ENDPOINTS = [
    ("editor", "get"),
    ("editor_pdf", "get"),
    ("editor_spec", "get"),
    ("editor_spec", "post"),
    ("editor_publish", "post"),
    ("editor_preview", "post"),
    ("editor_detect", "post"),
]


@pytest.mark.parametrize(("name", "method"), ENDPOINTS)
def test_staff_of_another_organization_get_not_found(
    outsider_client: Client, fw9_template, name: str, method: str
) -> None:
    before = services.working_version(fw9_template).spec

    response = call(outsider_client, method, url(name, fw9_template))

    assert response.status_code == 404
    assert services.working_version(fw9_template).spec == before
    assert services.version_summary(fw9_template).published_number is None


@pytest.mark.parametrize(("name", "method"), ENDPOINTS)
def test_staff_who_may_only_view_templates_are_refused(
    organization, fw9_template, name: str, method: str
) -> None:
    viewer = logged_in(make_staff("viewer", organization, can_change=False))

    response = call(viewer, method, url(name, fw9_template))

    assert response.status_code == 403
    assert services.version_summary(fw9_template).published_number is None


@pytest.mark.parametrize(("name", "method"), ENDPOINTS)
def test_anonymous_visitors_are_sent_to_the_login_page(
    client: Client, fw9_template, name: str, method: str
) -> None:
    response = call(client, method, url(name, fw9_template))

    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")
