"""Operators' replay of an organization's webhook events: GraphQL (replayWebhookEvents) and the
admin action; owners and admins only, the organization's events only, paced, with the events'
own webhook-id."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from accounts.models import ApiKey, Membership, Organization, User
from accounts.services import api_key_create, member_add
from tests.accounts.test_admin_tenancy import PASSWORD, client_of
from tests.conftest import basic_auth
from tests.staff import staff_member
from tests.webhooks.conftest import Receiver, run_tasks
from webhooks.models import WebhookDelivery, WebhookEvent
from webhooks.services import event_emit

REPLAY = """mutation($since: String!, $until: String!, $actions: [String!]) {
  replayWebhookEvents(since: $since, until: $until, actions: $actions) {
    count lastDueAt logs { eid action eventEid webhookId status url }
  }
}"""


def graphql(client: Client, **variables: Any) -> dict[str, Any]:
    response = client.post(
        "/graphql", {"query": REPLAY, "variables": variables}, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    return response.json()


def emit(organization: Organization, action: str, at_minutes_ago: int) -> WebhookEvent:
    event = event_emit(organization=organization, action=action, data={"n": at_minutes_ago})
    created = timezone.now() - timedelta(minutes=at_minutes_ago)
    WebhookEvent.objects.filter(pk=event.pk).update(created_at=created)
    event.refresh_from_db()
    return event


def window(minutes_from: int, minutes_to: int) -> dict[str, str]:
    now = timezone.now()
    return {
        "since": (now - timedelta(minutes=minutes_from)).isoformat(),
        "until": (now - timedelta(minutes=minutes_to)).isoformat(),
    }


def json_of(value: Any) -> str:
    return json.dumps(value)


def replays() -> list[WebhookDelivery]:
    return list(
        WebhookDelivery.objects.filter(requested_by__startswith="Replay by ").order_by(
            "next_attempt_at"
        )
    )


def key_for(organization: Organization, role: str | None) -> Client:
    user = None
    if role is not None:
        user = User.objects.create_user(username=f"u-{role}")
        member_add(organization=organization, user=user, role=role)
    _, raw = api_key_create(organization=organization, kind=ApiKey.Kind.DEVELOPMENT, user=user)
    client = Client(HTTP_AUTHORIZATION=basic_auth(raw))
    if user is None:  # api_key_create gives a key the owner when no member is named
        ApiKey.objects.filter(organization=organization).update(user=None)
    return client


@pytest.mark.django_db(transaction=True)
def test_an_owner_replays_a_range_of_one_action_paced_with_the_events_ids(
    endpoint_org: Organization,
    receiver: Receiver,
    api_client: Client,
    other_organization: Organization,
    settings: Any,
) -> None:
    settings.WEBHOOK_REPLAY_PER_SECOND = 4
    old = emit(endpoint_org, "weldComplete", 120)  # before the range
    first = emit(endpoint_org, "weldComplete", 50)
    other_action = emit(endpoint_org, "signerComplete", 40)
    second = emit(endpoint_org, "weldComplete", 30)
    emit(other_organization, "weldComplete", 35)  # another organization's, in the range
    run_tasks(lambda: len(receiver.requests) == 4)  # the events' own deliveries
    receiver.requests.clear()

    body = graphql(api_client, **window(60, 10), actions=["weldComplete"])

    assert "errors" not in body, body
    replay = body["data"]["replayWebhookEvents"]
    assert replay["count"] == 2
    assert [log["eventEid"] for log in replay["logs"]] == [first.eid, second.eid]
    assert [log["webhookId"] for log in replay["logs"]] == [first.message_id, second.message_id]
    assert {log["url"] for log in replay["logs"]} == {receiver.url}
    made = replays()
    assert [d.event_id for d in made] == [first.pk, second.pk]
    assert made[0].requested_by.startswith("Replay by API key ")
    # Paced: the second is due a quarter of a second after the first, and its task waits too.
    assert made[1].next_attempt_at - made[0].next_attempt_at == timedelta(seconds=0.25)
    tasks = DBTaskResult.objects.filter(args_kwargs__kwargs__delivery_id__in=[d.pk for d in made])
    # django-tasks-db writes "no run_after" as the year 9999.
    runs = sorted(t.run_after for t in tasks if t.run_after.year < 9999)
    assert runs == [made[1].next_attempt_at]

    run_tasks(lambda: len(receiver.requests) == 2)
    assert [r.headers["webhook-id"] for r in receiver.requests] == [
        first.message_id,
        second.message_id,
    ]
    assert old.deliveries.count() == other_action.deliveries.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("role", [Membership.Role.MEMBER, None])
def test_a_member_or_a_key_without_a_member_may_not(organization: Organization, role) -> None:
    emit(organization, "weldComplete", 5)
    before = WebhookDelivery.objects.count()

    body = graphql(key_for(organization, role), **window(60, 0))

    assert body["data"]["replayWebhookEvents"] is None
    assert body["errors"][0]["extensions"] == {"code": "ForbiddenError", "status": 403}
    assert "owner or admin" in body["errors"][0]["message"]
    assert WebhookDelivery.objects.count() == before


@pytest.mark.django_db
def test_an_admin_may(organization: Organization) -> None:
    emit(organization, "weldComplete", 5)

    body = graphql(key_for(organization, Membership.Role.ADMIN), **window(60, 0))

    assert body["data"]["replayWebhookEvents"]["count"] == 1


@pytest.mark.django_db
def test_another_organizations_events_are_never_replayed(
    organization: Organization, other_organization: Organization, other_api_key: str, owner
) -> None:
    emit(organization, "weldComplete", 5)
    globex_owner = User.objects.create_user(username="gus")
    member_add(organization=other_organization, user=globex_owner, role="owner")
    ApiKey.objects.filter(organization=other_organization).update(user=globex_owner)

    body = graphql(Client(HTTP_AUTHORIZATION=basic_auth(other_api_key)), **window(60, 0))

    assert body["data"]["replayWebhookEvents"]["count"] == 0
    assert replays() == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("variables", "prop"),
    [
        ({"since": "2026-01-02T00:00:00Z", "until": "2026-01-01T00:00:00Z"}, "until"),
        ({"since": "yesterday", "until": "2026-01-01T00:00:00Z"}, "since"),
        ({**window(60, 0), "actions": ["weldExploded"]}, "actions"),
    ],
)
def test_bad_arguments_are_refused_with_nothing_sent(
    organization: Organization, api_client: Client, variables, prop
) -> None:
    emit(organization, "weldComplete", 5)
    body = graphql(api_client, **variables)

    assert body["data"]["replayWebhookEvents"] is None
    assert body["errors"][0]["extensions"]["fields"][0]["property"] == prop
    assert replays() == []


@pytest.mark.django_db
def test_more_than_the_limit_is_refused(
    organization: Organization, api_client: Client, settings: Any
) -> None:
    settings.WEBHOOK_REPLAY_MAX_EVENTS = 2
    for minutes in (5, 6, 7):
        emit(organization, "weldComplete", minutes)

    body = graphql(api_client, **window(60, 0))

    assert "More than 2 events" in json_of(body["errors"])
    assert replays() == []


def staff_of(organization: Organization, role: str) -> User:
    return staff_member(organization, f"staff-{role}", role, ["webhooks"], PASSWORD)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("role", "allowed"), [(Membership.Role.OWNER, True), (Membership.Role.MEMBER, False)]
)
def test_the_admin_action_replays_the_selected_events(
    organization: Organization, other_organization: Organization, role, allowed
) -> None:
    events = [emit(organization, "weldComplete", m) for m in (3, 9)]
    foreign = emit(other_organization, "weldComplete", 4)
    client = client_of(staff_of(organization, role))
    url = reverse("admin:webhooks_webhookevent_changelist")

    listing = client.get(url, {"action__exact": "weldComplete"})
    response = client.post(
        url,
        {"action": "replay", "_selected_action": [e.pk for e in events] + [foreign.pk]},
        follow=True,
    )

    assert foreign.eid not in listing.content.decode()
    assert response.status_code == 200
    made = replays()
    if allowed:
        # Oldest first; the other organization's event was not among the admin's rows.
        assert [d.event_id for d in made] == [events[1].pk, events[0].pk]
        assert made[0].requested_by == f"Replay by staff-{role} (admin)"
        assert "Replaying 2 event(s)" in response.content.decode()
    else:
        assert made == []
        assert "Nothing was done" in response.content.decode()


@pytest.mark.django_db
def test_the_settings_log_shows_each_replay(
    organization: Organization, owner: User, api_client: Client
) -> None:
    event = emit(organization, "weldComplete", 5)
    graphql(api_client, **window(60, 0))
    (replayed,) = replays()
    client = Client()
    client.force_login(owner)

    html = client.get(reverse("settings:page", args=["acme"])).content.decode()

    row = re.search(rf'<tr data-delivery="{replayed.eid}">(.*?)</tr>', html, re.S).group(1)
    assert "Replay by API key " in row
    assert "Resent" not in row
    assert replayed.event_id == event.pk
