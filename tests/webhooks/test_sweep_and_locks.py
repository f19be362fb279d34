"""The webhook sweep and the delivery locks under load (issue 52, item 6).

- Recovering deliveries claims each kind as a set: a sweep over deliveries that wait behind a
  long queue costs the same few queries for 5 or 50 (it cost about five per delivery, one
  transaction each with its own JSON look at the task table: half of every worker's time once
  1,000 waited).
- A receiver's success is written before the batch's finish: a finish that is lost afterwards
  (its transaction failed, as the deadlock below made it fail) leaves a delivery that the
  recovery, or the next claim, finishes as delivered; it is never sent a second time.
- Deliveries lock only delivery rows, in one order: a claim and a finish that want the same
  delivery at once on PostgreSQL wait for each other, never deadlock (a claim that also locked
  the organization did, and its batch was sent again).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import OperationalError, connection, connections, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from pytest_django.fixtures import Settings

from accounts.models import Organization
from tests.webhooks.conftest import Receiver, run_tasks
from webhooks.models import WebhookAttempt, WebhookDelivery
from webhooks.services import deliveries_recover, event_emit
from webhooks.services import delivery as delivery_service

Status = WebhookDelivery.Status


def emit(organization: Organization, count: int) -> list[WebhookDelivery]:
    for n in range(count):
        with transaction.atomic():
            event_emit(organization=organization, action="documentGroupCreate", data={"n": n})
    return list(WebhookDelivery.objects.order_by("pk"))


def later(settings: Settings, seconds: float = 0.0) -> Any:
    """The clock of a sweep once a lease (and ``seconds`` more) has passed."""
    return timezone.now() + timedelta(seconds=settings.WEBHOOK_LEASE_SECONDS + 1 + seconds)


@pytest.mark.django_db
def test_a_sweep_over_5_or_50_overdue_deliveries_costs_the_same_few_queries(
    organization: Organization, settings: Settings
) -> None:
    from webhooks.services import endpoint_url_set

    endpoint_url_set(organization=organization, url="https://hooks.example.com/x")
    counts = []
    for size in (5, 50):
        WebhookDelivery.objects.all().delete()
        DBTaskResult.objects.all().delete()
        emit(organization, size)  # each task waits in the queue, behind (say) seals
        now = later(settings, seconds=size)
        with CaptureQueriesContext(connection) as queries:
            recovered = deliveries_recover(now=now)
        counts.append(len(queries))
        # None was lost: each is due again from now, and its waiting task was not duplicated.
        assert (recovered.abandoned, recovered.requeued) == (0, 0)
        assert set(WebhookDelivery.objects.values_list("next_attempt_at", flat=True)) == {now}
        assert DBTaskResult.objects.count() == size
        # Looked at again only a lease later.
        assert deliveries_recover(now=now + timedelta(seconds=1)).requeued == 0

    assert counts[0] == counts[1] <= 12, counts


@pytest.mark.django_db
def test_a_sweep_over_abandoned_attempts_claims_them_at_once(
    organization: Organization, settings: Settings
) -> None:
    """Only the enqueues grow with the set: one task row each (and its NOTIFY on PostgreSQL),
    the work itself."""
    from webhooks.services import endpoint_url_set

    endpoint_url_set(organization=organization, url="https://hooks.example.com/x")
    counts = []
    for size in (3, 30):
        WebhookDelivery.objects.all().delete()
        DBTaskResult.objects.all().delete()
        deliveries = emit(organization, size)
        DBTaskResult.objects.all().delete()
        now = timezone.now()
        WebhookDelivery.objects.update(attempt_count=1, claimed_until=now - timedelta(seconds=1))
        WebhookAttempt.objects.bulk_create(
            WebhookAttempt(delivery=d, number=1, started_at=now) for d in deliveries
        )
        with CaptureQueriesContext(connection) as queries:
            recovered = deliveries_recover(now=now)
        inserts = [q for q in queries if q["sql"].startswith("INSERT")]
        enqueues = [q for q in queries if q["sql"].startswith(("INSERT", "NOTIFY"))]
        counts.append(len(queries) - len(enqueues))
        assert recovered.abandoned == size
        assert len(inserts) == size
        assert set(WebhookAttempt.objects.values_list("outcome", flat=True)) == {"abandoned"}
        assert not WebhookDelivery.objects.filter(claimed_until__isnull=False).exists()

    assert counts[0] == counts[1] <= 12, counts


@pytest.mark.django_db(transaction=True)
def test_a_success_whose_finish_was_lost_is_not_sent_again(
    endpoint_org: Organization, receiver: Receiver, settings: Settings, monkeypatch: Any
) -> None:
    emit(endpoint_org, 3)

    def lost(sent: list[Any]) -> list[str]:
        raise OperationalError("deadlock detected")  # as the finish's transaction once did

    with monkeypatch.context() as patch:
        patch.setattr(delivery_service, "_finish", lost)
        with pytest.raises(OperationalError):
            run_tasks(lambda: len(receiver.requests) == 3)
    assert len(receiver.requests) == 3
    assert WebhookDelivery.objects.filter(status=Status.PENDING).count() == 3

    batch_lease = 2 * settings.WEBHOOK_TIMEOUT_SECONDS  # a batch of 3 is leased for 3 POSTs
    recovered = deliveries_recover(now=later(settings, seconds=batch_lease))
    run_tasks(lambda: not DBTaskResult.objects.ready().exists())

    assert recovered.abandoned == 3
    assert len(receiver.requests) == 3  # each event once: 4-6 before
    assert set(WebhookDelivery.objects.values_list("status", "last_status_code")) == {
        (Status.DELIVERED, 200)
    }
    assert set(WebhookAttempt.objects.values_list("number", "outcome")) == {(1, "delivered")}


@pytest.mark.django_db(transaction=True)
def test_a_retry_claimed_after_a_slow_success_is_not_sent(
    endpoint_org: Organization, receiver: Receiver, settings: Settings
) -> None:
    settings.WEBHOOK_DELIVERY_BATCH = 1
    [pending] = emit(endpoint_org, 1)
    DBTaskResult.objects.all().delete()
    now = timezone.now()
    batch = delivery_service._claim(delivery_id=pending.pk, attempt=1, now=now)
    assert isinstance(batch, list)
    sent = [delivery_service._send(claimed) for claimed in batch]  # a slow POST, then:
    # the lease ran out meanwhile: the sweep took the attempt for abandoned, and retries it
    assert deliveries_recover(now=later(settings)).abandoned == 1
    delivery_service._successes_record(sent)  # the receiver's 200 arrived; the finish is lost

    assert delivery_service.delivery_attempt(delivery_id=pending.pk, attempt=2) == (
        "delivered already"
    )

    assert len(receiver.requests) == 1
    pending.refresh_from_db()
    assert (pending.status, pending.attempt_count, pending.claimed_until) == (
        Status.DELIVERED,
        1,
        None,
    )


def _lock_waiters() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE wait_event_type = 'Lock' AND datname = current_database()"
        )
        return cursor.fetchone()[0]


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, f"waited too long for {what}"
        time.sleep(0.01)  # polling for a state of the database, not waiting for time


def _in_thread(results: dict[str, Any], name: str, work: Callable[[], Any]) -> threading.Thread:
    def run() -> None:
        try:
            results[name] = work()
        except Exception as error:  # noqa: BLE001 - the test looks at it
            results[name] = error
        finally:
            connections.close_all()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


@pytest.mark.django_db(transaction=True)
def test_a_claim_and_a_finish_of_the_same_delivery_do_not_deadlock(
    endpoint_org: Organization, receiver: Receiver, settings: Settings
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks: PostgreSQL (DATABASE_URL=postgres://...)")
    settings.WEBHOOK_DELIVERY_BATCH = 2
    first, second = emit(endpoint_org, 2)
    DBTaskResult.objects.all().delete()
    now = timezone.now()
    # One worker's batch took both; it has sent them and is about to finish.
    batch = delivery_service._claim(delivery_id=first.pk, attempt=1, now=now)
    assert isinstance(batch, list)
    sent = [delivery_service._send(claimed) for claimed in batch]
    held, release = threading.Event(), threading.Event()

    def hold_second() -> None:  # a third transaction holds the second delivery for a moment
        with transaction.atomic():
            list(WebhookDelivery.objects.select_for_update().filter(pk=second.pk))
            held.set()
            release.wait(30)

    results: dict[str, Any] = {}
    holder = _in_thread(results, "holder", hold_second)
    assert held.wait(30)
    # The second delivery's own task starts its claim (it waits for the row), then the finish
    # of the batch (it locks the first, and waits for the second).
    claim = _in_thread(
        results,
        "claim",
        lambda: delivery_service._claim(delivery_id=second.pk, attempt=1, now=now),
    )
    _wait_for(lambda: _lock_waiters() == 1, "the claim to wait")
    finish = _in_thread(results, "finish", lambda: delivery_service._finish(sent))
    _wait_for(lambda: _lock_waiters() == 2, "the finish to wait")
    release.set()
    for thread in (holder, claim, finish):
        thread.join(60)

    assert results["claim"] == "attempt started already", results
    assert results["finish"] == ["delivered", "delivered"], results
    assert set(WebhookDelivery.objects.values_list("status", flat=True)) == {Status.DELIVERED}
    assert len(receiver.requests) == 2


@pytest.mark.django_db
def test_a_batch_claim_looks_for_its_tasks_in_the_webhooks_queue_only(
    organization: Organization, settings: Settings
) -> None:
    """Retiring the tasks of the deliveries a batch took reads the webhooks queue's ready tasks
    only, by core's index of the unfinished tasks by queue, not every ready task (10,000 seals
    waiting made each claim read all of them for their JSON)."""
    if connection.vendor != "postgresql":
        pytest.skip("the plan of PostgreSQL (DATABASE_URL=postgres://...)")
    from esign.tasks import packet_seal_task
    from webhooks.services import endpoint_url_set

    endpoint_url_set(organization=organization, url="https://hooks.example.com/x")
    first, *others = emit(organization, 3)
    DBTaskResult.objects.bulk_create(
        DBTaskResult(
            args_kwargs={"args": [], "kwargs": {"packet_id": n}},
            priority=packet_seal_task.priority,
            task_path=packet_seal_task.module_path,
            queue_name=packet_seal_task.queue_name,
            backend_name="default",
            run_after=timezone.now(),
        )
        for n in range(2000)
    )
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {DBTaskResult._meta.db_table}")
    with CaptureQueriesContext(connection) as queries:
        batch = delivery_service._claim(delivery_id=first.pk, attempt=1, now=timezone.now())
    assert isinstance(batch, list)
    assert len(batch) == 3
    [retire] = [
        q["sql"] for q in queries if q["sql"].startswith("UPDATE") and "dbtaskresult" in q["sql"]
    ]
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN {retire}")
        plan = "\n".join(row[0] for row in cursor.fetchall())

    assert "queue_name)::text = 'webhooks'" in plan.split("Filter")[0], plan
    ready = DBTaskResult.objects.ready().filter(queue_name="webhooks")
    assert ready.count() == 1  # the first delivery's own task; the others' were retired
