"""GraphQL: webhookTest and retryWebhookLog, scoped to the caller's organization."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from pytest_django.fixtures import Settings

from accounts.models import Organization
from tests.webhooks.conftest import Receiver, run_tasks
from webhooks.models import WebhookDelivery
from webhooks.services import event_emit

pytestmark = pytest.mark.django_db(transaction=True)

LOG = "eid action eventEid webhookId url status attemptCount lastStatusCode attempts { number outcome statusCode }"
TEST = f"mutation($url: String) {{ webhookTest(url: $url) {{ {LOG} }} }}"
RETRY = f"mutation($eid: String!) {{ retryWebhookLog(eid: $eid) {{ {LOG} }} }}"


def graphql(client: Client, query: str, **variables: Any) -> dict[str, Any]:
    response = client.post(
        "/graphql", {"query": query, "variables": variables}, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    return response.json()


def settled() -> bool:
    return not WebhookDelivery.objects.filter(status="pending").exists()


def test_webhook_test_sends_a_test_event_to_the_organizations_url(
    endpoint_org: Organization, receiver: Receiver, api_client: Client
) -> None:
    body = graphql(api_client, TEST)

    log = body["data"]["webhookTest"]
    assert "errors" not in body
    assert (log["action"], log["status"], log["url"], log["attemptCount"]) == (
        "webhookTest",
        "pending",
        receiver.url,
        0,
    )
    assert log["webhookId"] == f"msg_{log['eventEid']}"
    run_tasks(settled)
    (request,) = receiver.requests
    assert request.json["action"] == "webhookTest"
    assert request.json["data"]["organizationEid"] == endpoint_org.eid
    assert request.headers["webhook-id"] == log["webhookId"]


def test_webhook_test_to_a_given_url(
    organization: Organization, receiver: Receiver, api_client: Client
) -> None:
    log = graphql(api_client, TEST, url=receiver.url + "?t=1")["data"]["webhookTest"]

    run_tasks(settled)
    assert log["url"] == receiver.url + "?t=1"
    assert [r.path for r in receiver.requests] == ["/hook?t=1"]


def test_webhook_test_refuses_a_url_that_is_not_http(
    organization: Organization, api_client: Client
) -> None:
    body = graphql(api_client, TEST, url="file:///etc/passwd")

    assert body["data"]["webhookTest"] is None
    assert body["errors"][0]["extensions"]["fields"] == [
        {"message": "Enter an http or https URL.", "property": "url"}
    ]
    assert WebhookDelivery.objects.count() == 0


def test_retry_webhook_log_sends_the_event_again_with_the_same_webhook_id(
    endpoint_org: Organization, receiver: Receiver, api_client: Client, settings: Settings
) -> None:
    settings.WEBHOOK_RETRY_DELAYS = [0.05]
    receiver.answers = [(500, {}), (500, {})]
    event = event_emit(organization=endpoint_org, action="weldCreate", data={"eid": "w"})
    run_tasks(settled)
    failed = WebhookDelivery.objects.get()
    assert (failed.status, failed.attempt_count) == ("failed", 2)

    log = graphql(api_client, RETRY, eid=failed.eid)["data"]["retryWebhookLog"]
    run_tasks(settled)

    assert log["eid"] != failed.eid
    assert log["webhookId"] == event.message_id
    assert [r.headers["webhook-id"] for r in receiver.requests] == [event.message_id] * 3
    resent = WebhookDelivery.objects.get(eid=log["eid"])
    assert (resent.status, resent.attempt_count) == ("delivered", 1)
    assert resent.requested_by.startswith("API key dev_")


def test_retry_webhook_log_of_another_organization_is_not_found(
    other_organization: Organization,
    organization: Organization,
    api_client: Client,
    client_for: Callable[[str], Client],
    other_api_key: str,
) -> None:
    event_emit(organization=other_organization, action="weldCreate", data={})
    theirs = WebhookDelivery.objects.get()

    body = graphql(api_client, RETRY, eid=theirs.eid)

    assert body["data"]["retryWebhookLog"] is None
    assert body["errors"][0]["extensions"]["code"] == "NotFoundError"
    assert WebhookDelivery.objects.count() == 1
    # Its own organization's key may.
    mine = graphql(client_for(other_api_key), RETRY, eid=theirs.eid)["data"]["retryWebhookLog"]
    assert mine["status"] == "skipped"


def test_the_mutations_need_an_api_key(organization: Organization) -> None:
    response = Client().post("/graphql", {"query": TEST}, content_type="application/json")

    assert response.status_code == 401
    assert WebhookDelivery.objects.count() == 0
