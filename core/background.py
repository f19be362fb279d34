"""Background work: enqueue tasks when the transaction commits, and retry them later.

Tasks are plain functions decorated with ``django_tasks.task`` (``django.tasks.task`` from
Django 6) in an app's ``tasks.py``; ``manage.py db_worker`` processes run them (see
docs/configuration.md, "Background tasks"). The house rules:

- Enqueue with :func:`enqueue_in_transaction`, inside the transaction that makes the work due
  (a real outbox). With the database task backend the task's row is written in that transaction:
  it commits with the rows the task reads (a worker never sees one without the other) and rolls
  back with them, and a process that dies right after the commit has lost nothing. With another
  backend (``TASKS_BACKEND=immediate``) the task is enqueued once the transaction commits, as
  :func:`enqueue_on_commit` does; that one is for work that may be lost (nothing sweeps it up).
- Work that is due and has no task (a worker killed in the middle of it leaves its task
  ``RUNNING`` for good) is found by a sweep (:mod:`core.sweeps`) that the worker
  (``manage.py worker``, :mod:`core.worker`) runs every ``TASKS_SWEEP_SECONDS``, and enqueued
  again. Every enqueue here wakes idle workers when its transaction commits (:mod:`core.wakeup`).
- Name the task, ``enqueue_in_transaction(PACKET_SEAL, packet_id=...)``: tasks are registered
  by name (:mod:`core.tasks_registry`; the names are constants in each app's ``task_names``), so a
  service never imports its app's tasks module (which imports the service: a circle). A ``Task``
  object is accepted too.
- Pass ids and plain JSON values, never model instances. A task loads what it needs and is
  idempotent: it may run more than once (a retry after a failure half-way, a task enqueued again
  by hand, backends that deliver at least once), so it checks the state first and does nothing
  when the work is already done.
- django-tasks never retries a task by itself. A task that should try again later (a webhook
  delivery, a signing step) calls :func:`retry_later`, e.g.::

      def delivery_attempt(*, delivery_id: int, attempt: int = 1) -> None:
          delivery = Delivery.objects.get(pk=delivery_id)
          if delivery.delivered or send(delivery):
              return
          kwargs = {"delivery_id": delivery_id}
          if retry_later(WEBHOOK_DELIVER, kwargs=kwargs, attempt=attempt) is None:
              delivery_give_up(delivery=delivery)

  Rows that carry such work (a signer's email, a webhook delivery, a packet's seal) keep their
  status, attempts, due time, lease and last error through :mod:`core.outbox`, which calls this.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any, ParamSpec

from django.db import DEFAULT_DB_ALIAS, router, transaction
from django.utils import timezone
from django_tasks.base import Task
from django_tasks.utils import normalize_json
from django_tasks_db.backend import DatabaseBackend
from django_tasks_db.models import DBTaskResult

from core.tasks_registry import task_named
from core.wakeup import workers_wake

P = ParamSpec("P")

# A task, or the name it is registered under (core.tasks_registry).
TaskRef = Task[..., Any] | str


def _task(task: TaskRef) -> Task[..., Any]:
    return task_named(task) if isinstance(task, str) else task


# Task priorities (``@task(priority=...)``, -100 to 100, default 0): a worker claims the due task
# of highest priority first, then the oldest (django-tasks-db's ordering, core.worker). Short work
# that the next step of a person or a program waits for (a signer's email, a webhook delivery)
# first: a seal backlog never holds back an ``etchPacketComplete``; then seals; background work
# (archive timestamp renewals, bulk sends' chunks) last. A worker serving the webhooks queue and
# others also runs a delivery lane (core.worker), so a delivery never waits for a seal to end.
PRIORITY_NEXT_STEP = 20
PRIORITY_WAITED_FOR = 10
PRIORITY_BACKGROUND = -10

# Seconds before each retry: six retries spread over about ten hours, then the caller gives up.
RETRY_DELAYS: tuple[float, ...] = (10, 60, 300, 1800, 7200, 28800)
# Each delay is stretched or shortened at random by up to this fraction, so that deliveries which
# failed together (a receiver that was down) are not all retried in the same second.
RETRY_JITTER = 0.1


def enqueue_on_commit(task: TaskRef, /, *args: Any, **kwargs: Any) -> None:
    """Enqueue ``task(*args, **kwargs)`` once the current transaction commits.

    Outside a transaction it is enqueued at once. The arguments are checked now: anything that
    is not plain JSON (a model instance, a UUID, a datetime) raises ``TypeError`` here rather
    than after the commit, when the caller could no longer do anything about it.
    """
    normalize_json([args, kwargs])
    transaction.on_commit(partial(_enqueue_and_wake, _task(task), *args, **kwargs))


def _enqueue_and_wake(task: Task[P, Any], /, *args: P.args, **kwargs: P.kwargs) -> None:
    task.enqueue(*args, **kwargs)
    if isinstance(task.get_backend(), DatabaseBackend):
        workers_wake(using=router.db_for_write(DBTaskResult))  # no transaction: at once


def enqueue_in_transaction(task: TaskRef, /, *args: Any, **kwargs: Any) -> None:
    """Enqueue ``task(*args, **kwargs)`` as part of the current transaction (an outbox).

    With the database task backend on the default database (where the rows are), the task's row
    is written now, inside the caller's transaction: it becomes visible to workers when that
    commits, and disappears if it rolls back. Idle workers are woken at the commit (``NOTIFY`` on
    PostgreSQL, sent in the transaction; a datagram to the local workers on SQLite). With any
    other backend (``immediate``: the task runs where it is enqueued) the task is enqueued once
    the transaction commits, like :func:`enqueue_on_commit`. Outside a transaction it is
    enqueued at once.

    The arguments are checked now: anything that is not plain JSON raises ``TypeError`` here.
    """
    normalize_json([args, kwargs])
    task = _task(task)
    using = router.db_for_write(DBTaskResult)
    if not isinstance(task.get_backend(), DatabaseBackend) or using != DEFAULT_DB_ALIAS:
        # Not in the caller's transaction (the rows live in the default database): after it.
        transaction.on_commit(partial(_enqueue_and_wake, task, *args, **kwargs))
        return
    task.enqueue(*args, **kwargs)
    workers_wake(using=using)


def retry_later(
    task: TaskRef,
    *,
    kwargs: Mapping[str, Any],
    attempt: int,
    delays: Sequence[float] = RETRY_DELAYS,
    jitter: float = RETRY_JITTER,
    now: datetime | None = None,
    uniform: Callable[[float, float], float] = random.uniform,
) -> datetime | None:
    """Enqueue ``task`` again after the delay for this attempt; ``None`` once retries run out.

    ``attempt`` is the number of the attempt that just failed, counting from 1. The task is
    enqueued with ``kwargs`` plus ``attempt=attempt + 1``, so a retried task takes a keyword
    ``attempt: int = 1`` and passes it back here. Retry ``n`` runs ``delays[n - 1]`` seconds after
    ``now`` (default: the current time), give or take ``jitter`` (a fraction of the delay, drawn
    with ``uniform``, which tests replace). After ``len(delays)`` retries nothing is enqueued and
    the result is ``None``: the caller records the final failure. Otherwise the result is the
    time the retry becomes due.

    The retry is enqueued in the current transaction (:func:`enqueue_in_transaction`): call
    this in the transaction that records the failure, so that both commit or neither does. With
    ``TASKS_BACKEND=immediate`` (no deferred tasks) the retry runs at once, after the commit.
    """
    if attempt < 1:
        raise ValueError(f"attempt counts from 1 (got {attempt})")
    if not 0 <= jitter < 1:
        raise ValueError(f"jitter is a fraction in [0, 1) (got {jitter})")
    if attempt > len(delays):
        return None
    delay = delays[attempt - 1]
    seconds = uniform(delay * (1 - jitter), delay * (1 + jitter))
    run_after = (now or timezone.now()) + timedelta(seconds=seconds)
    task = _task(task)
    if task.get_backend().supports_defer:
        task = task.using(run_after=run_after)
    enqueue_in_transaction(task, **kwargs, attempt=attempt + 1)
    return run_after
