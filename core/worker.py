"""The task worker that ``manage.py worker`` runs: django-tasks-db's ``db_worker`` loop, woken
when a task is enqueued (core.wakeup) rather than only by its poll, and running the sweep
(core.sweeps) when it starts and every ``sweep_every`` seconds.

Only ``run`` (the loop) is replaced; the constructor, the options, the signals and ``run_task``
are the library's. Its loop cannot be used as is: it waits with ``time.sleep(interval)``, which
a wake-up cannot cut short, has no hook between tasks or while idle for the sweep, and claims
inline (docs/configuration.md, "Why the worker has its own loop"). ``claim_next`` claims as the
library's loop does.

The sweep runs between tasks, so a worker in the middle of a long task sweeps once it is done
(the bound on lost work is the sweep interval plus the longest task). Every worker sweeps; sweeps
are safe to run concurrently.

A lane: a worker that serves a queue of ``LANE_QUEUES`` (webhook deliveries) beside others also
runs a second loop in a thread that takes only that queue's tasks. A delivery is short and mostly
waits on the network (its POST): it must not wait for a seal to end (a seal of another packet
held an ``etchPacketComplete`` back, and a backlog of seals held every delivery back: issue 52),
and a receiver that does not answer must hold back no seal. The thread shares the process's CPU
(a delivery costs milliseconds of it) and takes nothing else; the main loop still takes
deliveries too, before seals (their priority, core.background).
"""

from __future__ import annotations

import logging
import random
import threading
import time

from django.db import close_old_connections, connections
from django.db.models import F
from django.db.utils import OperationalError
from django_tasks_db.management.commands.db_worker import Worker as DbWorker
from django_tasks_db.models import DBTaskResult, DBTaskResultQuerySet
from django_tasks_db.utils import exclusive_transaction, is_locked_database_exception

from core.sweeps import sweeps_run
from core.wakeup import Waiter, waiter_for

logger = logging.getLogger(__name__)

# Queues of short tasks that a worker serving them beside other queues runs in a lane of their own.
LANE_QUEUES = ("webhooks",)
# How often an idle worker looks up from its wait to see whether it was stopped. A signal does not
# end the wait (Python resumes select() after the handler, PEP 475), and a lane's worker stopping
# sends its lane nothing: without this, a graceful stop of an idle worker took up to its poll
# interval (60 s in the wake-up test), and its lane's as much again. A look reads a flag: no query.
STOP_CHECK_SECONDS = 0.5


class Worker(DbWorker):
    def __init__(self, *, sweep_every: float, lane: bool = True, **options: object) -> None:
        super().__init__(**options)  # type: ignore[arg-type]
        self.sweep_every = sweep_every
        self.lane = lane
        self.stopped = threading.Event()  # set when run() ends: its lane stops too
        self.parent: Worker | None = None  # the worker whose lane this is

    def lane_queues(self) -> list[str]:
        """The queues of this worker's lane: those of ``LANE_QUEUES`` it serves beside others
        (none in batch mode, or when it serves only lane queues: it is their lane already)."""
        if not self.lane or self.batch:
            return []
        if self.process_all_queues:
            return [q for q in LANE_QUEUES if q not in self.excluded_queue_names]
        served = [q for q in LANE_QUEUES if q in self.queue_names]
        return served if set(self.queue_names) - set(served) else []

    def lane_worker(self) -> Worker | None:
        """The worker of this worker's lane (not started), or None when it has none."""
        queues = self.lane_queues()
        if not queues:
            return None
        lane = Worker(
            queue_names=queues,
            interval=self.interval,
            batch=False,
            backend_name=self.backend_name,
            startup_delay=False,
            max_tasks=None,
            worker_id=f"{self.worker_id}-lane",
            excluded_queue_names=[],
            sweep_every=0,
            lane=False,
        )
        lane.parent = self
        return lane

    def going(self) -> bool:
        """Whether the loop goes on: not stopped by a signal, nor (a lane) its worker stopped."""
        if self.parent is not None and (self.parent.stopped.is_set() or not self.parent.running):
            return False
        return self.running

    def lane_run(self) -> None:
        """A lane's thread: the loop, then its own database connections closed."""
        try:
            self.run()
        except Exception:  # logged: the main loop still takes the lane's tasks
            logger.exception("The lane of worker_id=%s stopped", self.worker_id)
        finally:
            connections.close_all()  # this thread's

    def claimable(self) -> DBTaskResultQuerySet:
        """The ready tasks of the queues served, in the order of :meth:`claim_next`."""
        tasks = DBTaskResult.objects.ready().filter(backend_name=self.backend_name)
        if not self.process_all_queues:
            tasks = tasks.filter(queue_name__in=self.queue_names)
        if self.excluded_queue_names:
            tasks = tasks.exclude(queue_name__in=self.excluded_queue_names)
        return tasks.order_by(F("priority").desc(), F("run_after").asc(), F("enqueued_at").asc())

    def claim_next(self) -> DBTaskResult | None:
        """The next ready task of the queues served, claimed by this worker; None if none (or
        the SQLite database is locked for now).

        The highest priority first (``@task(priority=...)``: a signer's email or a webhook
        delivery before a seal, a seal before background work, core.background), then the one
        due first, then the oldest: django-tasks-db's own ordering, spelt out because the order
        is the point here. One query over a partial index of the ready tasks in this order,
        whatever the backlog: django-tasks-db's (``tasks_db_new_ordering_idx``) for every queue,
        core's migration 0004's for some queues.
        """
        tasks = self.claimable()
        with exclusive_transaction(tasks.db):
            try:
                task_result = tasks.get_locked()
                if task_result is not None:
                    task_result.claim(self.worker_id)
            except OperationalError as error:
                if not is_locked_database_exception(error):
                    raise
                return None
        return task_result

    def sweep(self) -> None:
        try:
            sweeps_run()
        except Exception:  # a sweep must never stop the worker (each one is logged already)
            logger.exception("The sweep failed")
        finally:
            close_old_connections()

    def run(self) -> None:
        logger.info(
            "Starting worker worker_id=%s queues=%s sweep every %s s",
            self.worker_id,
            ",".join(self.queue_names),
            self.sweep_every or "never",
        )
        if self.startup_delay and self.interval:
            time.sleep(random.random())  # noqa: S311 - workers started together spread out
        lane = self.lane_worker()
        thread = None
        if lane is not None:
            # A daemon: a second signal (a forced stop) ends the process during its task too.
            thread = threading.Thread(target=lane.lane_run, name=lane.worker_id, daemon=True)
            thread.start()
        try:
            self._loop()
        finally:
            self.stopped.set()
            if thread is not None:
                thread.join()  # a graceful stop: the lane ends the task in hand first

    def _loop(self) -> None:
        waiter: Waiter = waiter_for(DBTaskResult.objects.db)
        next_sweep = time.monotonic()
        try:
            while self.going():
                if self.sweep_every and time.monotonic() >= next_sweep:
                    self.sweep()
                    next_sweep = time.monotonic() + self.sweep_every
                close_old_connections()
                task_result = self.claim_next()
                if task_result is not None:
                    self.run_task(task_result)
                elif self.batch:
                    logger.info("No more tasks to run for worker_id=%s.", self.worker_id)
                    return
                if self.max_tasks is not None and self._run_tasks >= self.max_tasks:
                    logger.info(
                        "Ran the most tasks (%d) for worker_id=%s.", self._run_tasks, self.worker_id
                    )
                    return
                close_old_connections()
                if self.going() and task_result is None:
                    timeout = self.interval
                    if self.sweep_every:
                        timeout = min(timeout, max(0.0, next_sweep - time.monotonic()))
                    self.idle(waiter, timeout)
        finally:
            waiter.close()

    def idle(self, waiter: Waiter, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for a wake-up, ending early once stopped."""
        deadline = time.monotonic() + timeout
        while self.going():
            remaining = deadline - time.monotonic()
            if remaining <= 0 or waiter.wait(min(remaining, STOP_CHECK_SECONDS)):
                return
