"""The end of an asynchronous generate job is announced by the ``generatePdfJobFinished`` webhook
event (issue 38): to the job's own ``webhookURL`` or the organization's, signed and delivered as
every event is, once, with the job's status (never the request's content)."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from accounts.models import Organization
from generate.jobs import generate_jobs_lost_recover
from generate.models import GenerateJob
from tests.generate.test_jobs import PAYLOAD, post_async, post_generate, run_queued_jobs
from tests.webhooks.conftest import Receiver, receiver, run_tasks  # noqa: F401 - a fixture
from webhooks.models import WebhookDelivery, WebhookEvent
from webhooks.services import endpoint_url_set

pytestmark = pytest.mark.django_db(transaction=True)


def finished_events() -> list[WebhookEvent]:
    return list(WebhookEvent.objects.filter(action="generatePdfJobFinished"))


def test_a_done_job_is_announced_to_its_own_webhook_url(
    production_client,
    receiver: Receiver,  # noqa: F811 - the fixture
) -> None:
    accepted = post_generate(production_client, PAYLOAD, f"async=true&webhookURL={receiver.url}")
    assert accepted.status_code == 202
    assert finished_events() == []  # nothing announced before it ends

    assert run_queued_jobs() == ["done"]
    run_tasks(lambda: len(receiver.requests) == 1)

    body = receiver.requests[0].json
    assert body["action"] == "generatePdfJobFinished"
    job = body["data"]["generatePdfJob"]
    assert (job["id"], job["status"], job["pages"], job["error"]) == (
        accepted.json()["id"],
        "done",
        1,
        None,
    )
    assert job["statusURL"] == accepted.json()["statusURL"]
    assert "Quarterly" not in receiver.requests[0].body.decode()  # the request's content stays
    assert production_client.get(job["statusURL"]).status_code == 200


def test_a_failed_job_is_announced_to_the_organizations_url_with_its_error(
    production_client,
    receiver: Receiver,  # noqa: F811 - the fixture
    organization: Organization,
    settings,
) -> None:
    endpoint_url_set(organization=organization, url=receiver.url)
    settings.GENERATE_MAX_PAGES = 1
    two_pages = {"type": "html", "data": {"html": '<p style="break-after: page">1</p><p>2</p>'}}
    post_async(production_client, two_pages)

    assert run_queued_jobs() == ["failed"]
    run_tasks(lambda: len(receiver.requests) == 1)

    job = receiver.requests[0].json["data"]["generatePdfJob"]
    assert job["status"] == "failed"
    assert job["error"]["name"] == "UnprocessableDocumentError"
    assert WebhookDelivery.objects.get().url == receiver.url


def test_a_job_ended_by_the_sweep_is_announced_once(production_client, settings) -> None:
    post_async(production_client, PAYLOAD)
    job = GenerateJob.objects.get()
    GenerateJob.objects.filter(pk=job.pk).update(status=GenerateJob.Status.RUNNING)
    DBTaskResult.objects.all().delete()  # its worker died with the task

    assert generate_jobs_lost_recover(now=timezone.now()) == 1
    assert generate_jobs_lost_recover(now=timezone.now()) == 0

    (event,) = finished_events()
    assert event.data["generatePdfJob"]["status"] == "failed"
    assert event.data["generatePdfJob"]["error"]["name"] == "InternalServerError"


def test_a_private_webhook_url_is_refused_and_nothing_is_stored(production_client) -> None:
    response = post_generate(
        production_client, PAYLOAD, "async=true&webhookURL=http://10.0.0.7/hook"
    )

    assert response.status_code == 400
    assert response.json()["name"] == "ValidationError"
    assert "webhookURL" in json.dumps(response.json())
    assert GenerateJob.objects.count() == 0


def test_a_webhook_url_without_async_is_refused(production_client) -> None:
    response = post_generate(production_client, PAYLOAD, "webhookURL=https://hooks.example.com/x")

    assert response.status_code == 400
    assert "async=true" in json.dumps(response.json())
