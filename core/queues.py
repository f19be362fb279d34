"""The task queues as an operator sees them (``/metrics``, ``/readyz``): per queue, the tasks a
worker could claim now (*ready*), those waiting for their time (*scheduled*: a retry's delay, a
bulk send's next chunk), those claimed by a worker (*running*), and how long the oldest ready one
has waited since it became due.

Read in one query grouped by queue, whatever the number of queues or tasks, over the unfinished
rows only (READY and RUNNING), which the partial index of core's migration 0003 holds: finished
tasks pile up in the same table, and a scrape or a readiness probe must not read them.

"Now" is ``timezone.now()``, the clock a worker's claim reads (django-tasks-db's ``ready()``), so
a task counted ready here is one a worker would take. A task enqueued without ``run_after``
carries django-tasks-db's far-future marker (``get_date_max()``) and is due from its enqueueing;
a deferred one is due from its ``run_after`` (its wait starts then, not when it was enqueued).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db.models import Case, Count, F, Min, Q, When
from django.db.models.functions import Greatest
from django.utils import timezone
from django_tasks_db.models import DBTaskResult, get_date_max

READY = "READY"
RUNNING = "RUNNING"


@dataclass(frozen=True)
class QueueFigures:
    ready: int = 0  # due and not claimed: a free worker would take one now
    scheduled: int = 0  # not claimed, due later (run_after in the future)
    running: int = 0  # claimed by a worker and not finished
    oldest_ready_age_seconds: float = 0.0  # since the oldest ready task became due; 0 when none


def queue_figures(now: datetime | None = None) -> dict[str, QueueFigures]:
    """Every queue's figures, by queue name: each queue of ``TASKS`` (zeros when it is empty)
    and any other queue that holds unfinished tasks."""
    now = now or timezone.now()
    never = get_date_max()  # "no run_after": due since it was enqueued
    due = _due(now)
    later = Q(status=READY, run_after__gt=now) & ~Q(run_after=never)
    rows = (
        DBTaskResult.objects.filter(status__in=[READY, RUNNING])
        .values("queue_name")
        .annotate(
            ready=Count("pk", filter=due),
            scheduled=Count("pk", filter=later),
            running=Count("pk", filter=Q(status=RUNNING)),
            oldest=Min(_due_since(), filter=due),
        )
        .order_by("queue_name")
    )
    figures = {queue: QueueFigures() for queue in settings.TASKS["default"].get("QUEUES", [])}
    for row in rows:
        oldest = row["oldest"]
        age = max((now - oldest).total_seconds(), 0.0) if oldest is not None else 0.0
        figures[row["queue_name"]] = QueueFigures(
            ready=row["ready"],
            scheduled=row["scheduled"],
            running=row["running"],
            oldest_ready_age_seconds=age,
        )
    return dict(sorted(figures.items()))


def queues_behind(figures: dict[str, QueueFigures], max_age_seconds: float) -> list[str]:
    """Why the service is behind: a sentence for each queue whose oldest ready task has waited
    more than ``max_age_seconds`` (none when that is 0: the check is off)."""
    if max_age_seconds <= 0:
        return []
    return [
        f"queue {queue!r}: its oldest ready task has waited {figure.oldest_ready_age_seconds:.0f} s"
        f" (more than {max_age_seconds:g} s); {figure.ready} ready, {figure.running} running"
        for queue, figure in figures.items()
        if figure.oldest_ready_age_seconds > max_age_seconds
    ]


def oldest_ready_age(task_path: str, queue_name: str, now: datetime | None = None) -> float:
    """How long the oldest ready task of ``task_path`` on ``queue_name`` has waited since it
    became due (0 when none is ready): one aggregate over the partial index of unfinished tasks."""
    now = now or timezone.now()
    oldest = DBTaskResult.objects.filter(
        _due(now), queue_name=queue_name, task_path=task_path
    ).aggregate(oldest=Min(_due_since()))["oldest"]
    return max((now - oldest).total_seconds(), 0.0) if oldest is not None else 0.0


def _due(now: datetime) -> Q:
    """Ready, and due by ``now``: without run_after (django-tasks-db's far-future marker) or
    with it passed."""
    return Q(status=READY) & (Q(run_after=get_date_max()) | Q(run_after__lte=now))


def _due_since() -> Case:
    """When a ready task became due: its enqueueing, or its run_after if that came later."""
    return Case(
        When(run_after=get_date_max(), then=F("enqueued_at")),
        default=Greatest("enqueued_at", "run_after"),
    )
