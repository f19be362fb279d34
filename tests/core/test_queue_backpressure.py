"""Backpressure that tells the truth (issue 52, item 8): per task queue the tasks ready, scheduled
and running and the age of the oldest ready one (core.queues), in /metrics and /readyz, read in
one query whatever the number of queues or tasks. The clock is moved, never waited for: the
figures read ``timezone.now()``, as a worker's claim does. Run on SQLite and, with
``DATABASE_URL=postgres://...``, on PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django_tasks import task
from django_tasks_db.models import DBTaskResult, get_date_max

from core.queues import QueueFigures, queue_figures
from tests.core.prometheus_text import parse_exposition

TOKEN = "backpressure-metrics-token"  # noqa: S105
START = datetime(2031, 3, 4, 9, 0, tzinfo=UTC)


@task()
def default_job() -> None:
    """Enqueued here, never run."""


@task(queue_name="webhooks")
def webhooks_job() -> None:
    """Enqueued here, never run."""


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Callable[[float], datetime]:
    """``clock(seconds)`` sets the time every caller of ``timezone.now()`` reads to START plus
    that many seconds (enqueueing, the worker's ``ready()``, core.queues)."""

    def move(seconds: float) -> datetime:
        moment = START + timedelta(seconds=seconds)
        monkeypatch.setattr(timezone, "now", lambda: moment)
        return moment

    move(0)
    return move


@pytest.fixture
def metrics_on(settings) -> None:
    settings.METRICS_TOKEN = TOKEN


def scrape() -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    families = parse_exposition(response.content.decode())
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in families.values()
        for sample in family.samples
    }


def queue_sample(samples: dict, name: str, queue: str) -> float:
    return samples[(name, (("queue", queue),))]


def backlog(clock: Callable[[float], datetime]) -> None:
    """At 0 s two default tasks, one default task deferred to 3,600 s and one webhooks task
    that a worker claims; at 30 s one more webhooks task."""
    default_job.enqueue()
    default_job.enqueue()
    default_job.using(run_after=START + timedelta(seconds=3600)).enqueue()
    claimed = webhooks_job.enqueue()
    DBTaskResult.objects.get(pk=claimed.id).claim("worker-1")
    clock(30)
    webhooks_job.enqueue()


def test_each_queue_counts_ready_scheduled_and_running_and_the_oldest_ready_age(
    db: None, clock: Callable[[float], datetime], metrics_on: None
) -> None:
    backlog(clock)
    clock(100)

    assert queue_figures() == {
        "default": QueueFigures(ready=2, scheduled=1, running=0, oldest_ready_age_seconds=100.0),
        "webhooks": QueueFigures(ready=1, scheduled=0, running=1, oldest_ready_age_seconds=70.0),
    }
    samples = scrape()
    expected = {
        "docautomation_task_queue_depth": {"default": 2, "webhooks": 1},
        "docautomation_task_queue_scheduled": {"default": 1, "webhooks": 0},
        "docautomation_task_queue_running": {"default": 0, "webhooks": 1},
        "docautomation_task_oldest_due_age_seconds": {"default": 100.0, "webhooks": 70.0},
    }
    for name, by_queue in expected.items():
        for queue, figure in by_queue.items():
            assert queue_sample(samples, name, queue) == figure, (name, queue)

    # At 3,700 s the deferred task is due: ready, no longer scheduled, and it has waited since
    # 3,600 s; the queue's oldest ready task is still the first one.
    clock(3700)
    default = queue_figures()["default"]
    assert (default.ready, default.scheduled, default.oldest_ready_age_seconds) == (3, 0, 3700.0)


def test_a_deferred_task_waits_from_its_time_not_from_its_enqueueing(
    db: None, clock: Callable[[float], datetime]
) -> None:
    webhooks_job.using(run_after=START + timedelta(seconds=600)).enqueue()

    clock(599)
    assert queue_figures()["webhooks"] == QueueFigures(scheduled=1)
    clock(650)
    assert queue_figures()["webhooks"] == QueueFigures(ready=1, oldest_ready_age_seconds=50.0)


def test_finished_tasks_are_not_counted(db: None, clock: Callable[[float], datetime]) -> None:
    done = default_job.enqueue()
    failed = webhooks_job.enqueue()
    clock(500)
    DBTaskResult.objects.get(pk=done.id).set_successful(None)
    DBTaskResult.objects.get(pk=failed.id).set_failed(RuntimeError("refused"))

    assert queue_figures() == {"default": QueueFigures(), "webhooks": QueueFigures()}


def test_readyz_is_unavailable_while_a_queue_is_behind_and_says_which(
    db: None, clock: Callable[[float], datetime], settings
) -> None:
    settings.READYZ_TASK_MAX_AGE_SECONDS = 300
    backlog(clock)

    clock(300)  # the oldest default task has waited 300 s: not more than allowed
    response = Client().get("/readyz")
    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["tasks"]) == ("ok", "ok")
    assert "reason" not in body
    assert body["queues"]["default"] == {
        "ready": 2, "scheduled": 1, "running": 0, "oldestReadyAgeSeconds": 300.0,
    }  # fmt: skip

    clock(301)
    response = Client().get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert (body["status"], body["database"], body["storage"], body["tasks"]) == (
        "unavailable", "ok", "ok", "behind",
    )  # fmt: skip
    assert body["reason"] == (
        "queue 'default': its oldest ready task has waited 301 s (more than 300 s); "
        "2 ready, 0 running"
    )
    assert body["queues"]["webhooks"] == {
        "ready": 1, "scheduled": 0, "running": 1, "oldestReadyAgeSeconds": 271.0,
    }  # fmt: skip

    # 0 turns the check off: the figures are still given.
    settings.READYZ_TASK_MAX_AGE_SECONDS = 0
    response = Client().get("/readyz")
    assert response.status_code == 200
    assert response.json()["queues"]["default"]["oldestReadyAgeSeconds"] == 301.0


def test_by_default_a_queue_behind_leaves_readyz_ready(
    db: None, clock: Callable[[float], datetime]
) -> None:
    # Shared queues would turn every web process unready at once, signing pages included.
    backlog(clock)
    clock(3600)
    response = Client().get("/readyz")
    assert response.status_code == 200
    assert response.json()["queues"]["default"]["oldestReadyAgeSeconds"] == 3600.0


def test_readyz_is_ready_with_nothing_queued(db: None) -> None:
    response = Client().get("/readyz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "database": "ok",
        "storage": "ok",
        "tasks": "ok",
        "queues": {
            queue: {"ready": 0, "scheduled": 0, "running": 0, "oldestReadyAgeSeconds": 0.0}
            for queue in ("default", "webhooks")
        },
    }


def _rows(queues: int, per_queue: int) -> None:
    """Task rows of queues beyond the configured ones (written as a worker would find them)."""
    never = get_date_max()
    DBTaskResult.objects.bulk_create(
        DBTaskResult(
            queue_name=f"extra-{queue}",
            status=("READY", "RUNNING")[index % 2],
            args_kwargs={"args": [], "kwargs": {}},
            task_path="tests.core.test_queue_backpressure.default_job",
            backend_name="default",
            run_after=never,
        )
        for queue in range(queues)
        for index in range(per_queue)
    )


def _queries(call: Callable[[], object]) -> int:
    with CaptureQueriesContext(connection) as captured:
        call()
    return len(captured)


def test_the_queries_do_not_grow_with_the_queues_or_the_tasks(
    db: None, clock: Callable[[float], datetime], metrics_on: None
) -> None:
    _rows(queues=1, per_queue=1)
    few = {
        "figures": _queries(queue_figures),
        "metrics": _queries(scrape),
        "readyz": _queries(lambda: Client().get("/readyz")),
    }
    _rows(queues=12, per_queue=20)
    many = {
        "figures": _queries(queue_figures),
        "metrics": _queries(scrape),
        "readyz": _queries(lambda: Client().get("/readyz")),
    }

    assert few["figures"] == 1
    assert many == few
    assert len(queue_figures()) == 2 + 12  # every queue is there, from that one query
    assert queue_figures()["extra-11"] == QueueFigures(ready=10, running=10)


def test_the_figures_are_read_through_the_index_of_unfinished_tasks(db: None) -> None:
    """The query reads core_task_unfinished_idx (core's migration 0003), not the whole table,
    which keeps every finished task. PostgreSQL is told to avoid a table scan where it can (on
    a table this small it would rather scan); SQLite picks the index by itself."""
    with CaptureQueriesContext(connection) as captured:
        queue_figures()
    sql = captured[-1]["sql"]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute(f"EXPLAIN {sql}")
        else:
            cursor.execute(f"EXPLAIN QUERY PLAN {sql}")
        plan = "\n".join(str(row) for row in cursor.fetchall())
    assert "core_task_unfinished_idx" in plan, plan


def test_the_queue_families_are_gauges_by_queue_in_prometheus_text(
    db: None, clock: Callable[[float], datetime], metrics_on: None
) -> None:
    backlog(clock)
    response = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    families = parse_exposition(response.content.decode())

    for name in (
        "docautomation_task_queue_depth",
        "docautomation_task_queue_scheduled",
        "docautomation_task_queue_running",
        "docautomation_task_oldest_due_age_seconds",
    ):
        family = families[name]
        assert family.type == "gauge"
        assert [sample.labels for sample in family.samples] == [
            {"queue": "default"},
            {"queue": "webhooks"},
        ]
