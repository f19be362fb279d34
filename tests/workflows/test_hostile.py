"""Whatever arrives, the webform pages and forgeSubmit answer with a page or a wire error, never
a 500, and store nothing they should not."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tests.workflows.conftest import FORGE_SUBMIT, forges
from workflows.models import Submission, Workflow
from workflows.submissions.links import continue_token

START = "/form/acme/demo-onboarding"
HOSTILE_POSTS: list[dict[str, Any]] = [
    {},
    {"page": "x", "forge": "nope"},
    {"page": "-1"},
    {"page": "99999999999999999999"},
    {"action": "sideways"},
    {"email": "\x00😀", "name.firstName": "\u202e"},
    {"name.firstName": "A" * 50_000, "email": "a@b.co"},
    {"phone.region": "ZZ", "phone.num": "555"},
    {"phone.region": "", "phone.num": "+" * 40},
    {"address.state": "<script>", "address.zip": "0" * 500},
    {"birthDate": "9999-99-99"},
    {"amount": "1e309", "quantity": "NaN", "discount": "Infinity"},
    {"colour": ["red", "blue"]},
]
HOSTILE_PAYLOADS: list[Any] = [
    {"email": {"nested": {"deep": [1, 2, 3]}}},
    {"name": "Ada Lovelace"},
    {"name": {"firstName": ["A"], "lastName": 5}},
    {"phone": {"num": 4155550132, "region": 44}},
    {"phone": True},
    {"birthDate": 20240101},
    {"ssn": 12345678901},
    {"address": "1 Main St"},
    {"email": "x" * 100_000},
    "not an object",
    None,
]


@pytest.mark.parametrize("body", HOSTILE_POSTS)
def test_hostile_posts_get_a_page(demo_workflow: Workflow, body: dict[str, Any]) -> None:
    client = Client()
    first = client.post(START, {"forge": forges(demo_workflow)["about-you"], "page": "0", **body})
    assert first.status_code == 400  # the page again, with its messages
    assert "wf-summary-title" in first.content.decode()
    assert Submission.objects.filter(status="completed").count() == 0

    # And on a submission under way.
    client.post(
        START,
        {
            "forge": forges(demo_workflow)["about-you"],
            "page": "0",
            "name.firstName": "Ada",
            "name.lastName": "Lovelace",
            "email": "ada@example.com",
        },
    )
    submission = Submission.objects.order_by("-id").first()
    assert submission is not None
    url = f"{START}/{submission.eid}?token={continue_token(submission)}"
    again = client.post(url, body)
    assert again.status_code == 200  # no such page of the webform: where the person is


def test_a_file_that_is_not_an_image_is_refused_by_the_rule(demo_workflow: Workflow) -> None:
    upload = SimpleUploadedFile("x.png", b"%PDF-1.4 not an image", content_type="application/pdf")
    response = Client().post(
        START, {"forge": forges(demo_workflow)["about-you"], "photo.file": upload}
    )
    assert response.status_code == 400


@pytest.mark.parametrize("payload", HOSTILE_PAYLOADS)
def test_hostile_payloads_get_a_validation_error(
    demo_workflow: Workflow, api_client: Client, payload: Any
) -> None:
    body = {
        "query": FORGE_SUBMIT,
        "variables": {"forgeEid": forges(demo_workflow)["about-you"], "payload": payload},
    }
    response = api_client.post("/graphql", data=json.dumps(body), content_type="application/json")

    assert response.status_code in (200, 400)
    [error] = response.json()["errors"]
    if payload is None:  # refused by GraphQL itself: payload is JSON!
        assert "payload" in error["message"]
    else:
        assert error["extensions"]["code"] == "ValidationError", error
    assert Submission.objects.count() == 0
