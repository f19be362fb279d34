"""Seals and signer emails are never queued behind webhook deliveries (issue 38): the tasks'
priorities (core.background) and the worker's claim order (core.worker)."""

from __future__ import annotations

import pytest
from django_tasks_db.models import DBTaskResult

from core.background import enqueue_in_transaction
from core.worker import Worker
from esign.tasks import packet_seal_task, sealed_file_renew_task, signer_email_task
from webhooks.tasks import webhook_deliver


def worker(queue_name: str) -> Worker:
    return Worker(
        queue_names=queue_name.split(","),
        interval=1,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="test",
        excluded_queue_names=[],
        sweep_every=0,
    )


def claimed_in_order(worker: Worker) -> list[str]:
    paths = []
    while (result := worker.claim_next()) is not None:
        paths.append(result.task_path.rsplit(".", 1)[1])
    return paths


@pytest.mark.django_db
def test_a_seal_and_an_email_enqueued_after_50_deliveries_are_claimed_first() -> None:
    enqueue_in_transaction(sealed_file_renew_task, version_id=1)
    for n in range(50):
        enqueue_in_transaction(webhook_deliver, delivery_id=n + 1)
    enqueue_in_transaction(signer_email_task, email_id=1)
    enqueue_in_transaction(packet_seal_task, packet_id=1)

    claimed = claimed_in_order(worker("*"))

    # The two waited for first (in their order of arrival), then the deliveries in theirs, the
    # renewal (background upkeep) last.
    assert claimed == (
        ["signer_email_task", "packet_seal_task"]
        + ["webhook_deliver"] * 50
        + ["sealed_file_renew_task"]
    )


@pytest.mark.django_db
def test_a_worker_of_the_default_queue_never_takes_a_delivery() -> None:
    for n in range(3):
        enqueue_in_transaction(webhook_deliver, delivery_id=n + 1)
    enqueue_in_transaction(packet_seal_task, packet_id=1)

    assert claimed_in_order(worker("default")) == ["packet_seal_task"]
    assert DBTaskResult.objects.ready().filter(queue_name="webhooks").count() == 3
