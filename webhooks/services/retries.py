"""Retrying deliveries: the next attempt after a failure (honouring the receiver's
``Retry-After``), and recovering what a dead worker or web process left behind.

Task workers (``manage.py worker``) run :func:`deliveries_recover` every
``TASKS_SWEEP_SECONDS`` (``webhooks.sweeps``); ``manage.py webhooks_recover`` runs it once.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from core.background import enqueue_in_transaction
from core.engine.fetch import PostResponse
from core.row_writes import rows_update
from core.sweeps import task_results_lost_fail, tasks_unfinished_for
from core.tasks_registry import task_path
from webhooks.engine.signing import retry_after_seconds
from webhooks.models import DELIVERIES, WebhookAttempt, WebhookDelivery
from webhooks.task_names import WEBHOOK_DELIVER

logger = logging.getLogger(__name__)

RETRY_AFTER_MAX_SECONDS = 86_400.0
# Deliveries of each kind (abandoned, lost) a sweep takes at most; the rest wait for the next.
RECOVER_BATCH = 1000

Status = WebhookDelivery.Status
Outcome = WebhookAttempt.Outcome


def retry_delays() -> tuple[float, ...]:
    """Seconds before each retry (``WEBHOOK_RETRY_DELAYS``): read per call, tests shorten it."""
    return tuple(settings.WEBHOOK_RETRY_DELAYS)


def retry_schedule(
    delivery: WebhookDelivery, number: int, response: PostResponse | None, now: datetime
) -> datetime | None:
    """Enqueue the next attempt (in the transaction) and note when it is due; once retries ran
    out, fail the delivery and return None (the caller saves it)."""
    delays: Sequence[float] = retry_delays()
    jitter = 0.1
    wait = retry_after_seconds(response.header("Retry-After") if response else None, now=now)
    if wait is not None and number <= len(delays) and wait > delays[number - 1]:
        # The receiver said when: wait that long (at most a day), not less.
        delays = list(delays)
        delays[number - 1] = min(wait, RETRY_AFTER_MAX_SECONDS)
        jitter = 0.0
    return DELIVERIES.retry_or_fail(
        delivery,
        error=delivery.last_error,
        task=WEBHOOK_DELIVER,
        kwargs={"delivery_id": delivery.pk},
        attempt=number,
        delays=delays,
        jitter=jitter,
        now=now,
    )


def attempts_delivered(
    delivery_ids: Sequence[int],
) -> dict[int, tuple[datetime | None, int | None]]:
    """The deliveries among ``delivery_ids`` that an attempt already delivered, with when and
    the receiver's status code: the attempt's success is written as soon as the receiver
    answered (``webhooks.services.delivery``), before the transaction that finishes the batch.
    Such a delivery still pending lost its finish (a worker killed, a failed transaction): it
    is finished as delivered, never sent again. One query."""
    rows = WebhookAttempt.objects.filter(
        delivery_id__in=delivery_ids, outcome=Outcome.DELIVERED
    ).values_list("delivery_id", "finished_at", "status_code")
    return {delivery_id: (at, code) for delivery_id, at, code in rows}


# What finishing or recovering a delivery writes (``core.row_writes.rows_update``).
DELIVERY_FIELDS = [*DELIVERIES.fields, "last_status_code", "delivered_at"]


def delivered_finish(
    delivery: WebhookDelivery, at: datetime | None, status_code: int | None, *, now: datetime
) -> None:
    """Finish as delivered (saved by the caller: ``DELIVERY_FIELDS``) a pending delivery whose
    attempt was delivered at ``at`` and whose finish was lost (:func:`attempts_delivered`)."""
    DELIVERIES.finish(delivery, Status.DELIVERED, now=now)
    delivery.delivered_at = at or now
    delivery.last_status_code = status_code
    delivery.last_error = ""


# --- recovery ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Recovered:
    abandoned: int  # attempts claimed by a worker that died, retried
    requeued: int  # due deliveries whose task was lost, enqueued again
    tasks_failed: int  # task results left RUNNING by a dead worker, marked failed


def deliveries_recover(*, now: datetime | None = None) -> Recovered:
    """Retry what a dead worker or web process left behind (core.outbox's recovery: attempts
    whose lease ran out, deliveries due for longer than the lease that no worker took). Each
    kind is claimed as a set (``SELECT ... FOR UPDATE SKIP LOCKED``) and handled in a fixed
    number of queries, whatever its size. Safe to run at any time, in any number of processes at
    once: a row another process holds is skipped."""
    now = now or timezone.now()
    lease = timedelta(seconds=settings.WEBHOOK_LEASE_SECONDS)

    def recover(deliveries: list[WebhookDelivery], abandoned: bool) -> int:
        if abandoned:
            return _abandoned_recover(deliveries, now=now)
        return _lost_recover(deliveries, now=now)

    recovered = DELIVERIES.recover(now=now, grace=lease, handle_all=recover, limit=RECOVER_BATCH)
    tasks_failed = task_results_lost_fail(
        task_path=task_path(WEBHOOK_DELIVER), started_before=now - lease
    )
    abandoned, requeued = recovered.abandoned, recovered.lost
    if abandoned or requeued or tasks_failed:
        logger.warning(
            "Webhook recovery: %d abandoned attempts retried, %d lost deliveries re-enqueued, "
            "%d task results marked failed",
            abandoned,
            requeued,
            tasks_failed,
        )
    return Recovered(abandoned=abandoned, requeued=requeued, tasks_failed=tasks_failed)


def _abandoned_recover(deliveries: list[WebhookDelivery], *, now: datetime) -> int:
    """Attempts whose lease ran out (claimed, locked and released by the caller): delivered when
    the attempt's success was recorded before its finish was lost (:func:`attempts_delivered`:
    sending it again would be a second delivery), else abandoned and retried, or failed once the
    retries ran out. Returns how many."""
    ids = [delivery.pk for delivery in deliveries]
    delivered = attempts_delivered(ids)
    WebhookAttempt.objects.filter(
        delivery_id__in=[pk for pk in ids if pk not in delivered],
        number=F("delivery__attempt_count"),
        outcome=Outcome.IN_PROGRESS,
    ).update(
        outcome=Outcome.ABANDONED,
        finished_at=now,
        error="The worker stopped during this attempt; it is retried.",
    )
    for delivery in deliveries:
        delivery.updated_at = now
        if delivery.pk in delivered:
            delivered_finish(delivery, *delivered[delivery.pk], now=now)
            continue
        delivery.last_error = "The worker stopped during an attempt."
        if delivery.attempt_count > len(retry_delays()):
            DELIVERIES.fail(delivery, now=now)
        else:
            delivery.next_attempt_at = now
            enqueue_in_transaction(
                WEBHOOK_DELIVER, delivery_id=delivery.pk, attempt=delivery.attempt_count + 1
            )
    rows_update(deliveries, DELIVERY_FIELDS)
    return len(deliveries)


def _lost_recover(deliveries: list[WebhookDelivery], *, now: datetime) -> int:
    """Deliveries due for longer than a lease that no attempt holds: due again from now (the
    next sweeps leave them alone for a lease while their task waits its turn), and enqueued
    again unless a task of theirs still waits (one look at the task table for the set).
    Returns how many were enqueued."""
    ids = [delivery.pk for delivery in deliveries]
    WebhookDelivery.objects.filter(pk__in=ids).update(next_attempt_at=now, updated_at=now)
    waiting = tasks_unfinished_for(
        task_path=task_path(WEBHOOK_DELIVER), kwarg="delivery_id", among=ids
    )
    lost = [delivery for delivery in deliveries if delivery.pk not in waiting]
    for delivery in lost:  # rare: a task lost with its worker, or removed by hand
        enqueue_in_transaction(
            WEBHOOK_DELIVER, delivery_id=delivery.pk, attempt=delivery.attempt_count + 1
        )
    return len(lost)
