"""Anonymous webform submissions are limited per client address and webform (issue 32, item 6).

A public webform's first page starts a submission, which emits ``weldCreate`` to the
organization's webhook. One address may start WEBFORM_NEW_SUBMISSIONS_PER_ADDRESS of them per
WEBFORM_NEW_SUBMISSIONS_WINDOW_SECONDS on a webform; one more is the same page again with what
was typed, a message in the person's language, 429 and Retry-After, and stores nothing: no
submission, no event, no delivery. Continuing a submission is not limited by it.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from tests.workflows.order_workflow import order_workflow
from webhooks.models import WebhookDelivery, WebhookEvent
from webhooks.services import endpoint_url_set
from workflows.models import Submission, Workflow
from workflows.submissions.links import continue_token

START = "/form/acme/order"
NAMES = {"name.firstName": "Ada", "name.lastName": "Lovelace", "deliver": "on"}


@pytest.fixture
def workflow(organization, demo_template, settings) -> Workflow:
    settings.RATE_LIMIT_ENABLED = True
    settings.WEBFORM_NEW_SUBMISSIONS_PER_ADDRESS = 3
    settings.WEBFORM_NEW_SUBMISSIONS_WINDOW_SECONDS = 600
    endpoint_url_set(organization=organization, url="https://acme.example/hook")
    return order_workflow(organization, demo_template)


def start(workflow: Workflow, address: str = "203.0.113.5", **headers: str):
    forge = workflow.webforms.get().eid
    return Client(REMOTE_ADDR=address, **headers).post(
        START, {"forge": forge, "page": "0", "action": "next", **NAMES}
    )


def stored() -> tuple[int, int, int]:
    return (
        Submission.objects.count(),
        WebhookEvent.objects.filter(action="weldCreate").count(),
        WebhookDelivery.objects.count(),
    )


def test_one_address_starts_so_many_then_nothing_is_stored(workflow) -> None:
    answers = [start(workflow).status_code for _ in range(3)]
    assert answers == [200, 200, 200]
    before = stored()
    assert before[:2] == (3, 3)

    refused = start(workflow)

    assert refused.status_code == 429
    wait = int(refused["Retry-After"])
    assert 0 < wait <= 600
    html = refused.content.decode()
    assert "Too many forms were started from your address" in html
    assert 'value="Lovelace"' in html  # what was typed is still there
    assert stored() == before


def test_other_addresses_and_continuing_are_not_limited(workflow) -> None:
    for _ in range(3):
        start(workflow)
    first = Submission.objects.order_by("pk").first()
    assert start(workflow).status_code == 429

    assert start(workflow, address="198.51.100.7").status_code == 200
    forge = workflow.webforms.get().eid
    resume = f"{START}/{first.eid}?token={continue_token(first)}"
    back = Client(REMOTE_ADDR="203.0.113.5").post(
        resume, {"forge": forge, "page": "1", "action": "back"}
    )
    assert back.status_code == 200


def test_the_limit_page_is_in_the_persons_language(workflow) -> None:
    for _ in range(3):
        start(workflow)

    refused = start(workflow, HTTP_ACCEPT_LANGUAGE="es-MX,es;q=0.9")

    assert refused.status_code == 429
    assert "Se iniciaron demasiados formularios desde su dirección" in refused.content.decode()


def test_the_window_ends(workflow, monkeypatch) -> None:
    for _ in range(3):
        start(workflow)
    assert start(workflow).status_code == 429

    later = timezone.now() + timedelta(seconds=600)
    monkeypatch.setattr(timezone, "now", lambda: later)

    assert start(workflow).status_code == 200
    assert Submission.objects.count() == 4
