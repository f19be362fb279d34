"""Deliveries claimed in batches (issue 38): the task of one delivery claims, sends and finishes
the other due ones with it, in a fixed number of queries, and their own tasks are retired."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult
from pytest_django.fixtures import Settings

from accounts.models import Organization
from tests.webhooks.conftest import Receiver
from webhooks.models import WebhookAttempt, WebhookDelivery
from webhooks.services import event_emit
from webhooks.tasks import webhook_deliver

pytestmark = pytest.mark.django_db(transaction=True)

Status = WebhookDelivery.Status


def emit(organization: Organization, count: int) -> list[WebhookDelivery]:
    for n in range(count):
        event_emit(organization=organization, action="webhookTest", data={"n": n})
    return list(WebhookDelivery.objects.order_by("pk"))


def run_first_task() -> object:
    """Claim and run the first waiting task, as a worker does; its return value."""
    result = DBTaskResult.objects.ready().first()
    assert result is not None
    result.claim("test-worker")
    value = result.task.call(*result.task_result.args, **result.task_result.kwargs)
    result.set_successful(value)
    return value


def test_one_task_sends_every_due_delivery_and_retires_their_tasks(
    endpoint_org: Organization, receiver: Receiver
) -> None:
    first, *others = emit(endpoint_org, 5)

    assert run_first_task() == "delivered (and 4 more in its batch)"

    assert len(receiver.requests) == 5
    assert sorted(r.json["data"]["n"] for r in receiver.requests) == [0, 1, 2, 3, 4]
    assert set(WebhookDelivery.objects.values_list("status", flat=True)) == {Status.DELIVERED}
    assert set(WebhookAttempt.objects.values_list("outcome", flat=True)) == {"delivered"}
    assert not DBTaskResult.objects.ready().exists()  # no worker spends a claim on the others
    retired = DBTaskResult.objects.exclude(args_kwargs__kwargs__delivery_id=first.pk)
    assert {(r.status, r.return_value) for r in retired} == {
        (TaskResultStatus.SUCCESSFUL, f"sent in the batch of delivery {first.pk}")
    }
    # A retired task run anyway (by hand, a backend delivering twice) does nothing.
    assert webhook_deliver.call(delivery_id=others[0].pk) == "finished already"


def test_a_batch_takes_at_most_webhook_delivery_batch_deliveries(
    endpoint_org: Organization, receiver: Receiver, settings: Settings
) -> None:
    settings.WEBHOOK_DELIVERY_BATCH = 3
    emit(endpoint_org, 5)

    run_first_task()

    assert len(receiver.requests) == 3
    assert DBTaskResult.objects.ready().count() == 2
    run_first_task()
    assert len(receiver.requests) == 5


def test_a_batch_costs_the_same_queries_for_2_or_10_deliveries(
    endpoint_org: Organization, receiver: Receiver
) -> None:
    counts = []
    for size in (2, 10):
        emit(endpoint_org, size)
        with CaptureQueriesContext(connection) as queries:
            run_first_task()
        assert not WebhookDelivery.objects.filter(status=Status.PENDING).exists()
        counts.append(len(queries))

    # Nothing per delivery (the first batch reads one thing more: the organization's secret).
    assert counts[1] <= counts[0] <= 20, counts


def test_a_410_in_a_batch_fails_the_rest_to_that_url_without_sending_them(
    endpoint_org: Organization, receiver: Receiver
) -> None:
    receiver.answers.append((410, {}))
    emit(endpoint_org, 3)

    assert run_first_task() == "failed (and 2 more in its batch)"

    assert len(receiver.requests) == 1
    assert set(WebhookDelivery.objects.values_list("status", flat=True)) == {Status.FAILED}


def test_a_batch_left_by_a_dead_worker_is_retried_once_its_lease_ran_out(
    endpoint_org: Organization, receiver: Receiver, settings: Settings
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from webhooks.services import deliveries_recover
    from webhooks.services.delivery import _claim

    first, *others = emit(endpoint_org, 3)
    now = timezone.now()
    batch = _claim(delivery_id=first.pk, attempt=1, now=now)  # claimed; the worker dies here
    assert isinstance(batch, list)
    assert len(batch) == 3
    # The batch is finished after its last POST: every delivery of it is leased for all three,
    # so a sweep while a live worker still sends the batch takes none of them (the first one,
    # leased for one POST only, was sent twice when the batch ran slow).
    whole = settings.WEBHOOK_LEASE_SECONDS + 2 * settings.WEBHOOK_TIMEOUT_SECONDS
    assert deliveries_recover(now=now + timedelta(seconds=whole - 1)).abandoned == 0
    assert deliveries_recover(now=now + timedelta(seconds=whole + 1)).abandoned == 3
    assert set(WebhookAttempt.objects.values_list("outcome", flat=True)) == {"abandoned"}
    # Each enqueued again for attempt 2 (and the first's own task, not run here, still waits).
    waiting = [r.args_kwargs["kwargs"].get("attempt", 1) for r in DBTaskResult.objects.ready()]
    assert sorted(waiting) == [1, 2, 2, 2]


@pytest.mark.django_db
def test_an_event_in_the_callers_transaction_costs_no_savepoint(
    endpoint_org: Organization,
) -> None:
    from django.db import transaction

    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        event_emit(organization=endpoint_org, action="webhookTest", data={})

    assert not [q for q in queries if "SAVEPOINT" in q["sql"]]
