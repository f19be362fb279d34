"""core.outbox, the outbox rows' primitive, on webhook deliveries (webhooks.models.DELIVERIES):
the table of moves, claiming a batch under a lease, recovering an expired lease, and retrying
with backoff until the last attempt."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.db import transaction
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from accounts.models import Organization
from core.outbox import MoveRefused, Outbox
from esign.packets.lifecycle import EMAIL_MOVES, SEAL_MOVES
from webhooks.models import DELIVERIES, WebhookDelivery
from webhooks.services import endpoint_url_set, event_emit

Status = WebhookDelivery.Status
LEASE = timedelta(seconds=60)


@pytest.fixture
def deliveries(organization: Organization) -> list[WebhookDelivery]:
    """Three pending deliveries, due now, their tasks dropped (the tests enqueue their own)."""
    endpoint_url_set(organization=organization, url="https://hooks.example.com/x")
    for _ in range(3):
        event_emit(organization=organization, action="webhookTest", data={})
    DBTaskResult.objects.all().delete()
    return list(WebhookDelivery.objects.order_by("pk"))


def _claim(outbox: Outbox, *, now: datetime, limit: int) -> list[WebhookDelivery]:
    with transaction.atomic():
        rows = list(outbox.due(now).select_for_update(skip_locked=True).order_by("pk")[:limit])
        outbox.claim(rows, now=now, lease=LEASE)
    return rows


@pytest.mark.django_db
def test_a_move_outside_the_table_is_refused_and_nothing_changes(
    deliveries: list[WebhookDelivery],
) -> None:
    delivery = deliveries[0]
    DELIVERIES.finish(delivery, Status.DELIVERED, now=timezone.now())
    delivery.save()

    with pytest.raises(MoveRefused, match="webhook delivery is delivered; it cannot become failed"):
        DELIVERIES.move(delivery, Status.FAILED)

    assert delivery.status == Status.DELIVERED
    delivery.refresh_from_db()
    assert delivery.status == Status.DELIVERED
    # As an UPDATE of many rows: the rows that may not move are left.
    moved = DELIVERIES.move_all(WebhookDelivery.objects.all(), Status.FAILED)
    assert moved == 2
    assert sorted(WebhookDelivery.objects.values_list("status", flat=True)) == [
        Status.DELIVERED,
        Status.FAILED,
        Status.FAILED,
    ]


def test_the_seal_and_email_tables_refuse_what_cannot_happen() -> None:
    with pytest.raises(MoveRefused, match="packet's seal is not started; it cannot become sealed"):
        SEAL_MOVES.check("", "sealed")
    with pytest.raises(MoveRefused):
        SEAL_MOVES.check("sealed", "pending")  # a sealed packet is never sealed again
    with pytest.raises(MoveRefused):
        EMAIL_MOVES.check("sent", "pending")
    assert SEAL_MOVES.sources("pending") == ["", "pending", "retrying", "failed"]


@pytest.mark.django_db
def test_a_claim_leases_a_batch_and_a_second_claim_does_not_take_the_same_rows(
    deliveries: list[WebhookDelivery],
) -> None:
    now = timezone.now()

    first = _claim(DELIVERIES, now=now, limit=2)
    second = _claim(DELIVERIES, now=now, limit=2)

    assert [d.pk for d in first] == [d.pk for d in deliveries[:2]]
    assert [d.pk for d in second] == [deliveries[2].pk]
    assert _claim(DELIVERIES, now=now, limit=2) == []
    rows = list(WebhookDelivery.objects.order_by("pk"))
    assert [(d.attempt_count, d.claimed_until) for d in rows] == [(1, now + LEASE)] * 3
    assert all(DELIVERIES.leased(d, now) for d in rows)


@pytest.mark.django_db
def test_an_expired_lease_is_recovered_and_a_live_one_is_not(
    deliveries: list[WebhookDelivery],
) -> None:
    now = timezone.now()
    expired, live, lost = deliveries
    _claim(DELIVERIES, now=now, limit=2)
    # The worker of the first died: its lease ended a second ago. The second's is live.
    WebhookDelivery.objects.filter(pk=expired.pk).update(claimed_until=now - timedelta(seconds=1))
    WebhookDelivery.objects.filter(pk=lost.pk).update(next_attempt_at=now - 3 * LEASE)
    handed: list[tuple[int, bool]] = []

    def handle(rows: list[WebhookDelivery], abandoned: bool) -> int:
        for delivery in rows:
            handed.append((delivery.pk, abandoned))
            delivery.next_attempt_at = now
            delivery.save()
        return len(rows)

    recovered = DELIVERIES.recover(now=now, grace=LEASE, handle_all=handle)

    assert handed == [(expired.pk, True), (lost.pk, False)]
    assert (recovered.abandoned, recovered.lost) == (1, 1)
    rows = {d.pk: d for d in WebhookDelivery.objects.all()}
    assert rows[expired.pk].claimed_until is None
    assert rows[live.pk].claimed_until == now + LEASE
    # Handed back once: nothing is left to recover.
    assert DELIVERIES.recover(now=now, grace=LEASE, handle_all=handle).abandoned == 0


@pytest.mark.django_db
def test_a_set_recovery_hands_each_kind_over_at_once_released_and_bounded(
    deliveries: list[WebhookDelivery],
) -> None:
    now = timezone.now()
    _claim(DELIVERIES, now=now, limit=2)
    WebhookDelivery.objects.filter(claimed_until__isnull=False).update(
        claimed_until=now - timedelta(seconds=1)
    )
    WebhookDelivery.objects.filter(claimed_until__isnull=True).update(
        next_attempt_at=now - 3 * LEASE
    )
    handed: list[tuple[list[int], bool, list[object]]] = []

    def handle_all(rows: list[WebhookDelivery], abandoned: bool) -> int:
        handed.append(([d.pk for d in rows], abandoned, [d.claimed_until for d in rows]))
        WebhookDelivery.objects.filter(pk__in=[d.pk for d in rows]).update(
            claimed_until=None, next_attempt_at=now
        )
        return len(rows)

    recovered = DELIVERIES.recover(now=now, grace=LEASE, handle_all=handle_all, limit=1)

    # At most ``limit`` of each kind, by ascending pk, their leases released for the handler.
    first, second, lost = (d.pk for d in deliveries)
    assert handed == [([first], True, [None]), ([lost], False, [None])]
    assert (recovered.abandoned, recovered.lost) == (1, 1)
    assert DELIVERIES.recover(now=now, grace=LEASE, handle_all=handle_all).abandoned == 1
    assert handed[-1][:2] == ([second], True)


@pytest.mark.django_db
def test_retry_or_fail_schedules_with_backoff_and_fails_after_the_last_attempt(
    deliveries: list[WebhookDelivery],
) -> None:
    now = timezone.now()
    [delivery] = _claim(DELIVERIES, now=now, limit=1)
    delays = (10.0, 60.0)
    due = []
    for attempt in (1, 2, 3):
        with transaction.atomic():
            due.append(
                DELIVERIES.retry_or_fail(
                    delivery,
                    error=f"HTTP 503 (attempt {attempt})",
                    task="webhooks.deliver",
                    kwargs={"delivery_id": delivery.pk},
                    attempt=attempt,
                    delays=delays,
                    jitter=0.0,
                    now=now,
                )
            )
            delivery.save()
        if attempt < 3:
            delivery.refresh_from_db()
            assert (delivery.status, delivery.claimed_until, delivery.next_attempt_at) == (
                Status.PENDING,
                None,
                due[-1],
            )

    assert due == [now + timedelta(seconds=10), now + timedelta(seconds=60), None]
    delivery.refresh_from_db()
    assert (delivery.status, delivery.next_attempt_at, delivery.last_error) == (
        Status.FAILED,
        None,
        "HTTP 503 (attempt 3)",
    )
    tasks = DBTaskResult.objects.order_by("enqueued_at")
    assert [(t.args_kwargs["kwargs"]["attempt"], t.run_after) for t in tasks] == [
        (2, now + timedelta(seconds=10)),
        (3, now + timedelta(seconds=60)),
    ]
