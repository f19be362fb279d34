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
from django.db import transaction
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from core.background import enqueue_in_transaction, retry_later
from core.engine.fetch import PostResponse
from core.sweeps import task_results_lost_fail
from webhooks.engine.signing import retry_after_seconds
from webhooks.models import WebhookAttempt, WebhookDelivery
from webhooks.tasks import webhook_deliver

logger = logging.getLogger(__name__)

RETRY_AFTER_MAX_SECONDS = 86_400.0

Status = WebhookDelivery.Status
Outcome = WebhookAttempt.Outcome


def delivery_fail(delivery: WebhookDelivery) -> None:
    """Mark ``delivery`` failed for good (the caller saves it): no attempt is due any more."""
    delivery.status = Status.FAILED
    delivery.next_attempt_at = None
    delivery.claimed_until = None


def retry_delays() -> tuple[float, ...]:
    """Seconds before each retry (``WEBHOOK_RETRY_DELAYS``): read per call, tests shorten it."""
    return tuple(settings.WEBHOOK_RETRY_DELAYS)


def retry_schedule(
    delivery: WebhookDelivery, number: int, response: PostResponse | None, now: datetime
) -> datetime | None:
    """Enqueue the next attempt (on commit) and note when it is due; None once retries ran out."""
    delays: Sequence[float] = retry_delays()
    jitter = 0.1
    wait = retry_after_seconds(response.header("Retry-After") if response else None, now=now)
    if wait is not None and number <= len(delays) and wait > delays[number - 1]:
        # The receiver said when: wait that long (at most a day), not less.
        delays = list(delays)
        delays[number - 1] = min(wait, RETRY_AFTER_MAX_SECONDS)
        jitter = 0.0
    retry_at = retry_later(
        webhook_deliver,
        kwargs={"delivery_id": delivery.pk},
        attempt=number,
        delays=delays,
        jitter=jitter,
        now=now,
    )
    if retry_at is None:
        delivery_fail(delivery)
        return None
    delivery.next_attempt_at = retry_at
    delivery.claimed_until = None
    return retry_at


# --- recovery ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Recovered:
    abandoned: int  # attempts claimed by a worker that died, retried
    requeued: int  # due deliveries whose task was lost, enqueued again
    tasks_failed: int  # task results left RUNNING by a dead worker, marked failed


def deliveries_recover(*, now: datetime | None = None) -> Recovered:
    """Retry what a dead worker or web process left behind. Safe to run at any time, in any
    number of processes at once: each row is re-checked under its lock."""
    now = now or timezone.now()
    lease = timedelta(seconds=settings.WEBHOOK_LEASE_SECONDS)
    abandoned = requeued = 0
    claimed = WebhookDelivery.objects.filter(status=Status.PENDING, claimed_until__lt=now)
    for pk in list(claimed.values_list("pk", flat=True)[:1000]):
        with transaction.atomic():
            delivery = claimed.select_for_update(skip_locked=True).filter(pk=pk).first()
            if delivery is None:
                continue
            WebhookAttempt.objects.filter(
                delivery=delivery, number=delivery.attempt_count, outcome=Outcome.IN_PROGRESS
            ).update(
                outcome=Outcome.ABANDONED,
                finished_at=now,
                error="The worker stopped during this attempt; it is retried.",
            )
            delivery.claimed_until = None
            delivery.last_error = "The worker stopped during an attempt."
            if delivery.attempt_count > len(retry_delays()):
                delivery_fail(delivery)
            else:
                delivery.next_attempt_at = now
                enqueue_in_transaction(
                    webhook_deliver, delivery_id=pk, attempt=delivery.attempt_count + 1
                )
            delivery.save()
            abandoned += 1
    lost = WebhookDelivery.objects.filter(
        status=Status.PENDING, claimed_until__isnull=True, next_attempt_at__lt=now - lease
    )
    for pk in list(lost.values_list("pk", flat=True)[:1000]):
        with transaction.atomic():
            delivery = lost.select_for_update(skip_locked=True).filter(pk=pk).first()
            if delivery is None:
                continue
            # Due again from now: the next sweep leaves it alone while this task waits its turn.
            delivery.next_attempt_at = now
            delivery.save(update_fields=["next_attempt_at", "updated_at"])
            if _task_waiting(pk):
                continue  # not lost: waiting in a long queue
            enqueue_in_transaction(
                webhook_deliver, delivery_id=pk, attempt=delivery.attempt_count + 1
            )
            requeued += 1
    tasks_failed = task_results_lost_fail(
        task_path=webhook_deliver.module_path, started_before=now - lease
    )
    if abandoned or requeued or tasks_failed:
        logger.warning(
            "Webhook recovery: %d abandoned attempts retried, %d lost deliveries re-enqueued, "
            "%d task results marked failed",
            abandoned,
            requeued,
            tasks_failed,
        )
    return Recovered(abandoned=abandoned, requeued=requeued, tasks_failed=tasks_failed)


def _task_waiting(delivery_id: int) -> bool:
    """Whether a task for the delivery is still waiting to run (ready, not yet claimed)."""
    return DBTaskResult.objects.filter(
        status=TaskResultStatus.READY,
        task_path=webhook_deliver.module_path,
        args_kwargs__kwargs__delivery_id=delivery_id,
    ).exists()
