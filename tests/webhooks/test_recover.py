"""Recovery of what a dead worker or web process left behind, and the production schedule."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult
from pytest_django.fixtures import Settings

from accounts.models import Organization
from webhooks.models import WebhookAttempt, WebhookDelivery
from webhooks.services import deliveries_recover, endpoint_url_set, event_emit
from webhooks.tasks import webhook_deliver

Status = WebhookDelivery.Status


@pytest.fixture
def pending(
    organization: Organization, django_capture_on_commit_callbacks: Callable
) -> WebhookDelivery:
    endpoint_url_set(organization=organization, url="https://hooks.example.com/x")
    with django_capture_on_commit_callbacks(execute=True):
        event_emit(organization=organization, action="webhookTest", data={})
    DBTaskResult.objects.all().delete()  # as if the task was lost
    return WebhookDelivery.objects.get()


@pytest.mark.django_db
def test_an_attempt_whose_lease_ran_out_is_abandoned_and_retried(
    pending: WebhookDelivery, django_capture_on_commit_callbacks: Callable
) -> None:
    now = timezone.now()
    pending.attempt_count = 3
    pending.claimed_until = now - timedelta(seconds=1)
    pending.save()
    WebhookAttempt.objects.create(delivery=pending, number=3, started_at=now - timedelta(minutes=2))

    with django_capture_on_commit_callbacks(execute=True):
        recovered = deliveries_recover(now=now)

    assert (recovered.abandoned, recovered.requeued) == (1, 0)
    pending.refresh_from_db()
    assert (pending.status, pending.claimed_until, pending.next_attempt_at) == (
        Status.PENDING,
        None,
        now,
    )
    attempt = pending.attempts.get()
    assert (attempt.outcome, attempt.finished_at) == ("abandoned", now)
    (task,) = DBTaskResult.objects.all()
    assert task.args_kwargs["kwargs"] == {"delivery_id": pending.pk, "attempt": 4}
    assert task.queue_name == "webhooks"


@pytest.mark.django_db
def test_a_claim_still_within_its_lease_is_left_alone(pending: WebhookDelivery) -> None:
    pending.attempt_count = 1
    pending.claimed_until = timezone.now() + timedelta(seconds=30)
    pending.save()

    recovered = deliveries_recover()

    assert (recovered.abandoned, recovered.requeued) == (0, 0)
    assert DBTaskResult.objects.count() == 0


@pytest.mark.django_db
def test_the_last_abandoned_attempt_fails_the_delivery(
    pending: WebhookDelivery, settings: Settings
) -> None:
    settings.WEBHOOK_RETRY_DELAYS = [5]
    pending.attempt_count = 2
    pending.claimed_until = timezone.now() - timedelta(seconds=1)
    pending.save()

    deliveries_recover()

    pending.refresh_from_db()
    assert pending.status == Status.FAILED
    assert DBTaskResult.objects.count() == 0


@pytest.mark.django_db
def test_a_due_delivery_whose_task_was_lost_is_enqueued_again_once(
    pending: WebhookDelivery, settings: Settings, django_capture_on_commit_callbacks: Callable
) -> None:
    now = timezone.now() + timedelta(seconds=settings.WEBHOOK_LEASE_SECONDS + 1)

    with django_capture_on_commit_callbacks(execute=True):
        first = deliveries_recover(now=now)
        second = deliveries_recover(now=now + timedelta(seconds=1))

    assert (first.requeued, second.requeued) == (1, 0)
    (task,) = DBTaskResult.objects.all()
    assert task.args_kwargs["kwargs"] == {"delivery_id": pending.pk, "attempt": 1}


@pytest.mark.django_db
def test_a_task_result_left_running_by_a_dead_worker_is_marked_failed(
    pending: WebhookDelivery, settings: Settings
) -> None:
    result = webhook_deliver.enqueue(delivery_id=pending.pk)
    row = DBTaskResult.objects.get(pk=result.id)
    row.claim("dead-worker")
    DBTaskResult.objects.filter(pk=row.pk).update(
        started_at=timezone.now() - timedelta(seconds=settings.WEBHOOK_LEASE_SECONDS + 5)
    )

    call_command("webhooks_recover")

    row.refresh_from_db()
    assert row.status == TaskResultStatus.FAILED
    assert row.exception_class_path == "core.sweeps.WorkerLost"


@pytest.mark.django_db
def test_a_duplicate_task_for_an_attempt_already_started_does_nothing(
    pending: WebhookDelivery,
) -> None:
    pending.attempt_count = 1
    pending.save()

    assert webhook_deliver.call(delivery_id=pending.pk, attempt=1) == "attempt started already"
    assert WebhookAttempt.objects.count() == 0


def test_the_production_schedule_is_the_documented_one(settings: Settings) -> None:
    from config import settings as config_settings

    assert config_settings.WEBHOOK_RETRY_DELAYS == [5, 60, 300, 1800, 7200, 21600, 43200, 86400]
    assert config_settings.WEBHOOK_TIMEOUT_SECONDS == 10.0
