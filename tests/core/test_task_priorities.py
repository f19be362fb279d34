"""The order in which workers take tasks (issue 52, items 3 and 4): a signer's email and a webhook
delivery before seals, seals before background work (renewals, bulk sends), by the tasks'
priorities (core.background) and the worker's claim order (core.worker); and a worker that
serves the webhooks queue beside others takes deliveries in a lane of its own too, so that a
delivery never waits for a seal to end (tests/core/test_task_lanes.py runs one)."""

from __future__ import annotations

import pytest
from django.db import connection
from django_tasks_db.models import DBTaskResult, get_date_max

from core.background import enqueue_in_transaction
from core.worker import Worker
from esign.tasks import (
    bulk_batch_send_task,
    packet_seal_task,
    sealed_file_renew_task,
    signer_email_task,
)
from webhooks.tasks import webhook_deliver


def worker(queue_name: str, *, batch: bool = True, excluded: str = "") -> Worker:
    return Worker(
        queue_names=queue_name.split(","),
        interval=1,
        batch=batch,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="test",
        excluded_queue_names=excluded.split(",") if excluded else [],
        sweep_every=0,
    )


def claimed_in_order(worker: Worker) -> list[str]:
    paths = []
    while (result := worker.claim_next()) is not None:
        paths.append(result.task_path.rsplit(".", 1)[1])
    return paths


@pytest.mark.django_db
def test_a_delivery_enqueued_behind_100_seals_is_claimed_first() -> None:
    for n in range(100):
        enqueue_in_transaction(packet_seal_task, packet_id=n + 1)
    enqueue_in_transaction(webhook_deliver, delivery_id=1)

    claimed = worker("*").claim_next()

    assert claimed is not None
    assert claimed.task_path.endswith(".webhook_deliver")
    assert (
        DBTaskResult.objects.ready().filter(task_path__endswith="packet_seal_task").count() == 100
    )


@pytest.mark.django_db
def test_tasks_are_claimed_next_step_first_then_seals_then_background_work() -> None:
    enqueue_in_transaction(sealed_file_renew_task, version_id=1)
    enqueue_in_transaction(bulk_batch_send_task, batch_id=1)
    for n in range(20):
        enqueue_in_transaction(packet_seal_task, packet_id=n + 1)
    enqueue_in_transaction(webhook_deliver, delivery_id=1)
    enqueue_in_transaction(signer_email_task, email_id=1)
    enqueue_in_transaction(webhook_deliver, delivery_id=2)

    claimed = claimed_in_order(worker("*"))

    # The next step's work in its order of arrival, the seals in theirs, the background last.
    assert claimed == (
        ["webhook_deliver", "signer_email_task", "webhook_deliver"]
        + ["packet_seal_task"] * 20
        + ["sealed_file_renew_task", "bulk_batch_send_task"]
    )


@pytest.mark.django_db
def test_a_worker_of_the_default_queue_never_takes_a_delivery() -> None:
    for n in range(3):
        enqueue_in_transaction(webhook_deliver, delivery_id=n + 1)
    enqueue_in_transaction(packet_seal_task, packet_id=1)

    assert claimed_in_order(worker("default")) == ["packet_seal_task"]
    assert DBTaskResult.objects.ready().filter(queue_name="webhooks").count() == 3


@pytest.mark.parametrize(
    ("queues", "excluded", "batch", "lane"),
    [
        ("*", "", False, ["webhooks"]),  # what scripts/run.sh starts beside a default worker
        ("default,webhooks", "", False, ["webhooks"]),
        ("default", "", False, []),  # takes no delivery
        ("webhooks", "", False, []),  # a lane already
        ("*", "webhooks", False, []),
        ("*", "", True, []),  # batch mode: runs what is there, then stops
    ],
)
def test_a_worker_has_a_delivery_lane_when_it_serves_deliveries_beside_other_work(
    queues: str, excluded: str, batch: bool, lane: list[str]
) -> None:
    assert worker(queues, batch=batch, excluded=excluded).lane_queues() == lane


@pytest.mark.django_db
def test_the_lane_takes_the_delivery_and_leaves_the_seals_to_the_main_loop() -> None:
    for n in range(100):
        enqueue_in_transaction(packet_seal_task, packet_id=n + 1)
    enqueue_in_transaction(webhook_deliver, delivery_id=1)
    main = worker("*", batch=False)
    lane = main.lane_worker()
    assert lane is not None

    assert claimed_in_order(lane) == ["webhook_deliver"]
    assert lane.worker_id == "test-lane"
    main.stopped.set()  # the lane stops with its worker
    assert not lane.going()


@pytest.mark.django_db
@pytest.mark.parametrize("queues", ["*", "default", "webhooks"])
def test_a_claim_reads_an_index_in_its_order_whatever_the_backlog(queues: str) -> None:
    """On PostgreSQL, with 1,000 seals and 3,000 deliveries ready: the claim walks an index in the
    claim's order (no sort of the whole queue, which grew with the backlog for a worker of one
    queue: core's migration 0004)."""
    if connection.vendor != "postgresql":
        pytest.skip("the plan of PostgreSQL (DATABASE_URL=postgres://...)")
    for count, task, name in ((1000, packet_seal_task, "packet_id"), (3000, webhook_deliver, "n")):
        DBTaskResult.objects.bulk_create(
            DBTaskResult(
                args_kwargs={"args": [], "kwargs": {name: n}},
                priority=task.priority,
                task_path=task.module_path,
                queue_name=task.queue_name,
                backend_name="default",
                run_after=get_date_max(),
            )
            for n in range(count)
        )
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {DBTaskResult._meta.db_table}")
    sql, params = (
        worker(queues).claimable()[:1].select_for_update(skip_locked=True).query.sql_with_params()
    )
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())

    assert "Sort" not in plan, plan
    index = "tasks_db_new_ordering_idx" if queues == "*" else "core_task_ready_queue_order_idx"
    assert f"Index Scan using {index}" in plan, plan
