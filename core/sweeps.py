"""The sweep: find work that is due and has no task that will do it, and enqueue it again.

Tasks are enqueued in the transaction that makes their work due (``core.background``), so a task
is never lost between a commit and its enqueue. It can still be lost while it runs: a worker
killed in the middle of a task (SIGKILL, a crash, the machine) leaves its result ``RUNNING`` for
good, and nothing runs it again. Each app that owns such work registers a sweep function that
finds it (from its own rows: a packet completed and not sealed, a delivery whose lease ran out)
and enqueues its task again; tasks are idempotent, so a duplicate does no harm.

Register a sweep in the app's ``sweeps.py`` (imported by :func:`sweeps_run`, like ``admin.py``)::

    from core.sweeps import sweep

    @sweep("esign.seals")
    def seals_sweep(*, now: datetime) -> int:
        ...  # enqueue what is due and has no live task; return how many

A sweep takes the keyword ``now`` and returns the number of things it enqueued again (or
repaired); it must be safe to run at any time, in several processes at once (lock the rows it
changes with ``select_for_update(skip_locked=True)`` and check them again under the lock), and
quick when there is nothing to do. ``manage.py worker`` runs every sweep when it starts and then
every ``TASKS_SWEEP_SECONDS``; ``manage.py sweep`` runs them once. A sweep that raises is logged
and does not stop the others.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from datetime import datetime
from typing import Any, Protocol, TypeVar

from django.db.models import Model, Q, QuerySet
from django.utils import timezone
from django.utils.module_loading import autodiscover_modules
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

logger = logging.getLogger(__name__)

M = TypeVar("M", bound=Model)


class WorkerLost(Exception):
    """Recorded by a sweep on a task result that a worker left running when it died."""


def task_results_lost_fail(*, task_path: str, started_before: datetime) -> int:
    """Mark failed (:class:`WorkerLost`) the results of ``task_path`` still running since before
    ``started_before``: their worker died, and nothing else would ever finish them. Returns how
    many. The sweep enqueues the work again from its own rows; this only tidies the results."""
    lost = DBTaskResult.objects.filter(
        task_path=task_path, status=TaskResultStatus.RUNNING, started_at__lt=started_before
    )
    failed = 0
    for result in lost:
        result.set_failed(WorkerLost("The worker stopped while running this task."))
        failed += 1
    return failed


def _unfinished(
    task_path: str, running: bool, started_since: datetime | None
) -> QuerySet[DBTaskResult]:
    """The results of ``task_path`` that still wait to run (ready) or, with ``running``, run
    (since ``started_since``, when given): the one query of a live task."""
    live = Q(status=TaskResultStatus.READY)
    if running:
        started = {} if started_since is None else {"started_at__gte": started_since}
        live |= Q(status=TaskResultStatus.RUNNING, **started)
    return DBTaskResult.objects.filter(live, task_path=task_path)


def task_unfinished(
    *,
    task_path: str,
    running: bool = False,
    started_since: datetime | None = None,
    **kwargs: Any,
) -> bool:
    """Whether a result of ``task_path`` called with these keyword arguments still waits to run
    (ready) or, with ``running``, is running (started since ``started_since``, when given: one
    running longer lost its worker): that work has a task that will do it, and a sweep leaves it
    alone."""
    return (
        _unfinished(task_path, running, started_since)
        .filter(**{f"args_kwargs__kwargs__{key}": value for key, value in kwargs.items()})
        .exists()
    )


def tasks_unfinished_for(
    *,
    task_path: str,
    kwarg: str,
    running: bool = False,
    started_since: datetime | None = None,
    among: Collection[Any] | None = None,
) -> set[Any]:
    """The values of the keyword argument ``kwarg`` of every result of ``task_path`` that
    :func:`task_unfinished` would find: a sweep over many rows asks once. With ``among``, only
    those of these values (one query that the database filters, for a sweep that claimed a
    set of rows)."""
    unfinished = _unfinished(task_path, running, started_since)
    if among is not None:
        if not among:
            return set()
        unfinished = unfinished.filter(**{f"args_kwargs__kwargs__{kwarg}__in": list(among)})
    rows = unfinished.values_list("args_kwargs", flat=True)
    return {args["kwargs"][kwarg] for args in rows if kwarg in args.get("kwargs", {})}


def without_unfinished_task(
    rows: list[M], *, task_path: str, kwarg: str, running: bool = False
) -> list[M]:
    """The rows a sweep claimed whose task was lost: those no unfinished result of
    ``task_path`` names (its keyword argument ``kwarg`` is the row's pk), as
    :func:`tasks_unfinished_for` finds them, in one query for the set."""
    waiting = tasks_unfinished_for(
        task_path=task_path, kwarg=kwarg, running=running, among=[row.pk for row in rows]
    )
    return [row for row in rows if row.pk not in waiting]


class SweepFunction(Protocol):
    def __call__(self, *, now: datetime) -> int: ...


_sweeps: dict[str, SweepFunction] = {}
_discovered = False


def sweep_register(name: str, function: SweepFunction) -> None:
    """Register ``function`` as the sweep called ``name`` (``"<app>.<what>"``); registering a
    name again replaces its function (a module imported twice)."""
    _sweeps[name] = function


def sweep(name: str) -> Callable[[SweepFunction], SweepFunction]:
    """Decorator form of :func:`sweep_register`."""

    def register(function: SweepFunction) -> SweepFunction:
        sweep_register(name, function)
        return function

    return register


def sweeps_registered() -> dict[str, SweepFunction]:
    """Every registered sweep by name, after importing each installed app's ``sweeps`` module."""
    global _discovered  # noqa: PLW0603 - imported once per process
    if not _discovered:
        autodiscover_modules("sweeps")
        _discovered = True
    return dict(sorted(_sweeps.items()))


def sweeps_run(*, now: datetime | None = None) -> dict[str, int | None]:
    """Run every sweep once; what each did (None: it raised, and that was logged)."""
    now = now or timezone.now()
    done: dict[str, int | None] = {}
    for name, function in sweeps_registered().items():
        try:
            done[name] = function(now=now)
        except Exception:
            logger.exception("Sweep %s failed", name)
            done[name] = None
    found = {name: count for name, count in done.items() if count}
    if found:
        logger.warning("Sweep enqueued lost work again: %s", found)
    return done
