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
from django.utils import timezone

from core.background import enqueue_in_transaction
from core.engine.fetch import PostResponse
from core.sweeps import task_results_lost_fail, task_unfinished
from core.tasks_registry import task_path
from webhooks.engine.signing import retry_after_seconds
from webhooks.models import DELIVERIES, WebhookAttempt, WebhookDelivery

logger = logging.getLogger(__name__)

TASK = "webhooks.deliver"  # webhooks.tasks.webhook_deliver, by its registered name
RETRY_AFTER_MAX_SECONDS = 86_400.0

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
        task=TASK,
        kwargs={"delivery_id": delivery.pk},
        attempt=number,
        delays=delays,
        jitter=jitter,
        now=now,
    )


# --- recovery ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Recovered:
    abandoned: int  # attempts claimed by a worker that died, retried
    requeued: int  # due deliveries whose task was lost, enqueued again
    tasks_failed: int  # task results left RUNNING by a dead worker, marked failed


def deliveries_recover(*, now: datetime | None = None) -> Recovered:
    """Retry what a dead worker or web process left behind (core.outbox's recovery: attempts
    whose lease ran out, deliveries due for longer than the lease that no worker took). Safe to
    run at any time, in any number of processes at once: each row is re-checked under its
    lock."""
    now = now or timezone.now()
    lease = timedelta(seconds=settings.WEBHOOK_LEASE_SECONDS)

    def recover(delivery: WebhookDelivery, abandoned: bool) -> bool:
        if abandoned:
            WebhookAttempt.objects.filter(
                delivery=delivery, number=delivery.attempt_count, outcome=Outcome.IN_PROGRESS
            ).update(
                outcome=Outcome.ABANDONED,
                finished_at=now,
                error="The worker stopped during this attempt; it is retried.",
            )
            delivery.last_error = "The worker stopped during an attempt."
            if delivery.attempt_count > len(retry_delays()):
                DELIVERIES.fail(delivery, now=now)
            else:
                delivery.next_attempt_at = now
                enqueue_in_transaction(
                    TASK, delivery_id=delivery.pk, attempt=delivery.attempt_count + 1
                )
            delivery.save()
            return True
        # Due again from now: the next sweep leaves it alone while this task waits its turn.
        delivery.next_attempt_at = now
        delivery.save(update_fields=["next_attempt_at", "updated_at"])
        if task_unfinished(task_path=task_path(TASK), delivery_id=delivery.pk):
            return False  # not lost: waiting in a long queue
        enqueue_in_transaction(TASK, delivery_id=delivery.pk, attempt=delivery.attempt_count + 1)
        return True

    recovered = DELIVERIES.recover(now=now, grace=lease, handle=recover)
    tasks_failed = task_results_lost_fail(task_path=task_path(TASK), started_before=now - lease)
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
