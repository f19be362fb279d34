"""A webform page's post with NUL or another control character in a value (PostgreSQL stores no
NUL: it was a 500 there) is the page again with the field's message, and nothing is stored; a
line break in multi-line text is text. forgeSubmit's payload is refused as its JSON is read; a
definition's text (the admin's import, the builder) is checked as it is parsed."""

from __future__ import annotations

import html
import io
import json
from typing import Any

import pytest
from django.test import Client

from accounts.models import Organization
from core.engine.input_checks import CONTROL_MESSAGE
from tests.templates_app.conftest import logged_in
from tests.workflows.conftest import FORGE_SUBMIT, forges
from tests.workflows.test_admin import staff
from workflows.demo import demo_definition
from workflows.engine.definition import DefinitionInvalid, parse_definition
from workflows.engine.messages import MESSAGES
from workflows.models import Submission, Workflow

pytestmark = pytest.mark.django_db

START = "/form/acme/demo-onboarding"
CONTACT = {"name.firstName": "Ada", "name.lastName": "Lovelace", "email": "ada@example.com"}


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("name.firstName", "Ada\x00"),
        ("name.lastName", "Love\x1blace"),
        ("email", "ada\x00@example.com"),
        ("phone.num", "415\x00555\x000132"),
    ],
)
def test_a_control_character_in_a_posted_value_is_the_fields_message(
    demo_workflow: Workflow, name: str, value: str
) -> None:
    post = {"forge": forges(demo_workflow)["about-you"], "page": "0", "action": "next"}
    response = Client().post(START, {**post, **CONTACT, name: value})

    assert response.status_code == 400
    assert MESSAGES["controlCharacters"] in response.content.decode()
    assert Submission.objects.count() == 0


def test_multi_line_text_keeps_its_line_breaks(demo_workflow: Workflow, graphql: Any) -> None:
    payload = {"comments": "Back door.\r\n\tRing twice.", "amount": "5", "agree": True}
    result = graphql(FORGE_SUBMIT, forgeEid=forges(demo_workflow)["order"], payload=payload)

    assert "errors" not in result, result
    assert result["data"]["forgeSubmit"]["payloadValue"]["comments"] == payload["comments"]


def test_nul_in_a_forge_submit_payload_is_refused_naming_it(
    demo_workflow: Workflow, api_client: Client
) -> None:
    variables = {"forgeEid": forges(demo_workflow)["about-you"], "payload": {"email": "a\x00@b.co"}}
    body = json.dumps({"query": FORGE_SUBMIT, "variables": variables})

    response = api_client.post("/graphql", data=body, content_type="application/json")

    assert response.status_code == 400, response.content
    fields = response.json()["fields"]
    assert [f["property"] for f in fields] == ["variables.payload.email"]
    assert Submission.objects.count() == 0


# --- a workflow's definition: staff's text, imported or built --------------------------------


def test_a_control_character_in_a_definitions_text_is_a_problem_on_its_path(
    demo_template: Any,
) -> None:
    definition = demo_definition(demo_template)
    definition["webforms"][0]["pages"][0]["fields"][0]["label"] = "Full\x00name"
    definition["name"] = "Demo\x1b"

    with pytest.raises(DefinitionInvalid) as refused:
        parse_definition(definition)

    assert {(p.path, p.message) for p in refused.value.problems} == {
        ("name", CONTROL_MESSAGE),
        ("webforms.0.pages.0.fields.0.label", CONTROL_MESSAGE),
    }


def test_an_import_with_nul_anywhere_is_refused_and_stores_nothing(
    organization: Organization, demo_template: Any
) -> None:
    definition = demo_definition(demo_template)
    definition["slug"], definition["unknown"] = "copy", {"note": "a\x00b"}
    upload = io.BytesIO(json.dumps(definition).encode())
    upload.name = "copy.json"

    response = logged_in(staff("builder", organization)).post(
        "/admin/workflows/workflow/import/", {"organization": organization.pk, "file": upload}
    )

    assert response.status_code == 200
    assert "unknown.note: " + CONTROL_MESSAGE in html.unescape(response.content.decode())
    assert not Workflow.objects.filter(slug="copy").exists()
