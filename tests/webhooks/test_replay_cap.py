"""How often an organization may replay its webhook events (issue 46): at most
WEBHOOK_REPLAYS_PER_HOUR replays in any hour, the API's and the admin's together; one more is a
429 RateLimitError (the admin shows its message) and queues nothing. The clock the service reads
(``timezone.now``) is held and moved, never waited for."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from accounts.models import ApiKey, Organization, User
from accounts.services import member_add
from core.errors import RateLimited
from tests.accounts.test_admin_tenancy import client_of
from tests.conftest import basic_auth
from tests.esign.test_races import in_threads
from tests.webhooks.test_replay import REPLAY, emit, staff_of
from webhooks.models import WebhookDelivery, WebhookReplay
from webhooks.services import replay as replay_service

START = datetime(2030, 3, 4, 9, 0, tzinfo=UTC)
# Wide enough to hold the test's events whatever the held clock says.
RANGE = {"since": "2000-01-01T00:00:00Z", "until": "2100-01-01T00:00:00Z"}


class Clock:
    """The service's clock, held at ``START`` and moved by the test."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.now = START
        monkeypatch.setattr(timezone, "now", lambda: self.now)

    def at(self, **delta: float) -> None:
        self.now = START + timedelta(**delta)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    return Clock(monkeypatch)


def replay(client: Client) -> tuple[dict[str, Any], Any]:
    response = client.post(
        "/graphql", {"query": REPLAY, "variables": RANGE}, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    return response.json(), response


def queued() -> tuple[int, int, int]:
    """What a replay leaves behind: deliveries, their tasks, and the replays' own rows."""
    return (
        WebhookDelivery.objects.count(),
        DBTaskResult.objects.count(),
        WebhookReplay.objects.count(),
    )


def assert_refused(client: Client, retry_after: int) -> None:
    before = queued()
    body, response = replay(client)
    assert body["data"]["replayWebhookEvents"] is None
    [error] = body["errors"]
    assert error["extensions"] == {
        "code": "RateLimitError",
        "status": 429,
        "retryAfter": retry_after,
    }
    assert "WEBHOOK_REPLAYS_PER_HOUR (3)" in error["message"]
    assert "nothing was sent" in error["message"]
    assert response["Retry-After"] == str(retry_after)
    assert queued() == before


@pytest.mark.django_db
def test_replays_past_the_hours_cap_are_refused_until_one_leaves_the_hour(
    organization: Organization, api_client: Client, clock: Clock, settings: Any
) -> None:
    settings.WEBHOOK_REPLAYS_PER_HOUR = 3
    emit(organization, "weldComplete", 5)
    emit(organization, "signerComplete", 4)
    for minutes in (0, 10, 20):
        clock.at(minutes=minutes)
        body, _ = replay(api_client)
        assert body["data"]["replayWebhookEvents"]["count"] == 2, body
    assert WebhookDelivery.objects.count() == 2 + 3 * 2
    assert list(WebhookReplay.objects.values_list("events", flat=True)) == [2, 2, 2]

    clock.at(minutes=30)
    assert_refused(api_client, retry_after=30 * 60)  # when the replay at 9:00 leaves the hour
    clock.at(minutes=59, seconds=59)
    assert_refused(api_client, retry_after=1)

    clock.at(hours=1)  # the first replay is an hour old: out of the window
    body, _ = replay(api_client)
    assert body["data"]["replayWebhookEvents"]["count"] == 2
    clock.at(hours=1, seconds=1)  # now 9:10, 9:20 and 10:00 are in it
    assert_refused(api_client, retry_after=10 * 60 - 1)
    assert WebhookDelivery.objects.count() == 2 + 4 * 2


@pytest.mark.django_db
def test_the_cap_is_each_organizations_own(
    organization: Organization,
    other_organization: Organization,
    api_client: Client,
    other_api_key: str,
    clock: Clock,
    settings: Any,
) -> None:
    settings.WEBHOOK_REPLAYS_PER_HOUR = 3
    emit(organization, "weldComplete", 5)
    emit(other_organization, "weldComplete", 5)
    for _ in range(3):
        replay(api_client)
    globex_owner = User.objects.create_user(username="gus")
    member_add(organization=other_organization, user=globex_owner, role="owner")
    ApiKey.objects.filter(organization=other_organization).update(user=globex_owner)
    other = Client(HTTP_AUTHORIZATION=basic_auth(other_api_key))

    body, _ = replay(other)

    assert body["data"]["replayWebhookEvents"]["count"] == 1
    assert_refused(api_client, retry_after=3600)


@pytest.mark.django_db
def test_a_replay_of_no_event_does_not_count(
    organization: Organization, api_client: Client, clock: Clock, settings: Any
) -> None:
    settings.WEBHOOK_REPLAYS_PER_HOUR = 1
    empty = {"since": "2000-01-01T00:00:00Z", "until": "2000-01-02T00:00:00Z"}
    for _ in range(2):
        response = api_client.post(
            "/graphql", {"query": REPLAY, "variables": empty}, content_type="application/json"
        )
        assert response.json()["data"]["replayWebhookEvents"]["count"] == 0
    emit(organization, "weldComplete", 5)

    body, _ = replay(api_client)

    assert body["data"]["replayWebhookEvents"]["count"] == 1
    assert WebhookReplay.objects.count() == 1


@pytest.mark.django_db
def test_the_admins_replays_count_with_the_apis_and_are_refused_past_the_cap(
    organization: Organization, api_client: Client, clock: Clock, settings: Any
) -> None:
    settings.WEBHOOK_REPLAYS_PER_HOUR = 2
    event = emit(organization, "weldComplete", 5)
    replay(api_client)  # the API's replay takes one of the two
    client = client_of(staff_of(organization, "owner"))
    url = reverse("admin:webhooks_webhookevent_changelist")

    def run_action() -> str:
        response = client.post(
            url, {"action": "replay", "_selected_action": [event.pk]}, follow=True
        )
        assert response.status_code == 200
        return response.content.decode()

    assert "Replaying 1 event(s)" in run_action()
    before = queued()
    clock.at(minutes=15)

    page = run_action()

    assert "WEBHOOK_REPLAYS_PER_HOUR (2)" in page
    assert "The next replay may start at 2030-03-04 10:00:00 UTC (in 2700 seconds)" in page
    assert "Replaying" not in page
    assert queued() == before
    assert [r.requested_by for r in WebhookReplay.objects.order_by("pk")] == [
        "Replay by API key " + ApiKey.objects.get(organization=organization).prefix + "… (GraphQL)",
        "Replay by staff-owner (admin)",
    ]


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="row locks are PostgreSQL's (CI runs it)"
)
def test_two_replays_at_once_cannot_both_take_the_last_one(
    organization: Organization, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both replays are in their transactions before either counts: the organization's row lock
    makes the second count after the first commits, and refuses it."""
    settings.WEBHOOK_REPLAYS_PER_HOUR = 1
    events = [emit(organization, "weldComplete", 5)]
    together = threading.Barrier(2, timeout=30)
    capped = replay_service._replays_capped

    def count_together(**arguments: Any) -> None:
        together.wait()
        capped(**arguments)

    monkeypatch.setattr(replay_service, "_replays_capped", count_together)

    def one() -> Any:
        return replay_service.events_replay(events=events, requested_by="a race")

    results = in_threads(one, one)

    assert sorted(type(r).__name__ for r in results) == ["RateLimited", "Replayed"]
    assert WebhookReplay.objects.count() == 1
    assert WebhookDelivery.objects.filter(requested_by="Replay by a race").count() == 1


@pytest.mark.django_db
def test_a_replay_committed_first_with_a_later_clock_still_counts(
    organization: Organization, settings: Any
) -> None:
    """Two replays at once read the clock before either takes the lock: the one that read it
    later may commit first. The other, counting under the lock, must see it (the count once
    stopped at its own earlier "now", and both were sent: a full run at load 8 saw it)."""
    settings.WEBHOOK_REPLAYS_PER_HOUR = 1
    events = [emit(organization, "weldComplete", 5)]
    later = timezone.now()

    replay_service.events_replay(events=events, requested_by="second to read", now=later)

    with pytest.raises(RateLimited):
        replay_service.events_replay(
            events=events, requested_by="first to read", now=later - timedelta(seconds=1)
        )
    assert WebhookReplay.objects.count() == 1
