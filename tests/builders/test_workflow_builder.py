"""The embedded webform builder (edit-workflow): one workflow's webform of the caller's
organization, saved with edit, published with publish, its preview's draft kept by the link."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from accounts.models import Organization
from builders.models import EmbedToken
from templates_app.models import PdfTemplate
from tests.builders.conftest import GENERATE
from workflows.demo import demo_workflow_create
from workflows.models import Workflow

pytestmark = pytest.mark.django_db

WORKFLOW = "edit-workflow"


@pytest.fixture
def workflow(organization: Organization, demo_template: PdfTemplate) -> Workflow:
    return demo_workflow_create(organization=organization, template=demo_template)


def post_json(client: Client, url: str, body: dict[str, Any]) -> Any:
    return client.post(url, data=json.dumps(body), content_type="application/json")


def test_edit_saves_the_webform_and_publish_is_refused_without_its_permission(
    embed_url: Callable[..., str], workflow: Workflow, organization: Organization
) -> None:
    organization.embed_origins = ["https://app.example.com"]
    organization.save()
    path = embed_url(eid=workflow.eid, type=WORKFLOW, permissions=["edit"])
    browser = Client(enforce_csrf_checks=True)

    page = browser.get(path)
    state = browser.get(f"{path}definition/").json()
    state["name"] = "Tenant application"
    saved = post_json(browser, f"{path}definition/", {"webform": state})
    published = post_json(browser, f"{path}publish/", {})

    assert page.status_code == 200
    assert page["Content-Security-Policy"].startswith(
        "frame-ancestors 'self' https://app.example.com;"
    )
    html = page.content.decode()
    assert 'id="wfb"' in html
    assert "/admin/" not in html
    assert 'id="wfb-publish"' not in html
    assert saved.status_code == 200, saved.content
    assert saved.json()["name"] == "Tenant application"
    assert workflow.webforms.first().name == "Tenant application"
    assert published.status_code == 403
    assert published.json()["name"] == "ForbiddenError"
    assert workflow.versions.count() == 1


def test_publish_only_cannot_save_and_publishes_the_next_version(
    embed_url: Callable[..., str], workflow: Workflow
) -> None:
    path = embed_url(eid=workflow.eid, type=WORKFLOW, permissions=["publish"])
    browser = Client()
    state = browser.get(f"{path}definition/").json()

    refused = post_json(browser, f"{path}definition/", {"webform": {**state, "name": "No"}})
    drafted = post_json(browser, f"{path}draft/", {"webform": state})
    published = post_json(browser, f"{path}publish/", {})

    assert (refused.status_code, drafted.status_code) == (403, 403)
    assert published.json() == {"version": 2}
    assert workflow.webforms.first().name != "No"


def test_the_preview_shows_the_draft_without_a_session_and_is_framed_like_the_page(
    embed_url: Callable[..., str], workflow: Workflow, organization: Organization
) -> None:
    organization.embed_origins = ["https://app.example.com"]
    organization.save()
    path = embed_url(eid=workflow.eid, type=WORKFLOW)
    browser = Client()
    state = browser.get(f"{path}definition/").json()
    state["pages"][0]["title"] = "Drafted page title"

    assert post_json(browser, f"{path}draft/", {"webform": state}).status_code == 204
    # Kept in the database (every web process reads it), not in one process's memory.
    assert EmbedToken.objects.get().draft["pages"][0]["title"] == "Drafted page title"
    # Another browser (no cookie at all): the draft is the link's, not a session's.
    shown = Client().get(f"{path}preview/?page=0")

    assert shown.status_code == 200
    assert "Drafted page title" in shown.content.decode()
    assert shown["Content-Security-Policy"].startswith(
        "frame-ancestors 'self' https://app.example.com;"
    )


def test_another_organizations_workflow_and_an_unknown_webform_are_refused(
    graphql: Callable[..., dict[str, Any]],
    client_for: Callable[[str], Client],
    other_api_key: str,
    workflow: Workflow,
) -> None:
    stranger = graphql(GENERATE, {"eid": workflow.eid, "type": WORKFLOW}, client_for(other_api_key))
    unknown = graphql(
        GENERATE, {"eid": workflow.eid, "type": WORKFLOW, "options": {"forgeEid": "nope"}}
    )

    assert stranger["errors"][0]["message"] == f"No workflow with eid '{workflow.eid}'."
    assert stranger["errors"][0]["extensions"] == {"code": "NotFoundError", "status": 404}
    assert unknown["errors"][0]["message"] == "No webform with eid 'nope' in this workflow."
