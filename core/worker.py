"""The task worker that ``manage.py worker`` runs: django-tasks-db's ``db_worker`` loop, woken
when a task is enqueued (core.wakeup) rather than only by its poll, and running the sweep
(core.sweeps) when it starts and every ``sweep_every`` seconds.

Only ``run`` (the loop) is replaced; the constructor, the options, the signals and ``run_task``
are the library's. Its loop cannot be used as is: it waits with ``time.sleep(interval)``, which
a wake-up cannot cut short, has no hook between tasks or while idle for the sweep, and claims
inline (docs/configuration.md, "Why the worker has its own loop"). ``claim_next`` claims as the
library's loop does.

One thread: the sweep runs between tasks, so a worker in the middle of a long task sweeps once it
is done (the bound on lost work is the sweep interval plus the longest task). Every worker
sweeps; sweeps are safe to run concurrently.
"""

from __future__ import annotations

import logging
import random
import time

from django.db import close_old_connections
from django.db.models import F
from django.db.utils import OperationalError
from django_tasks_db.management.commands.db_worker import Worker as DbWorker
from django_tasks_db.models import DBTaskResult
from django_tasks_db.utils import exclusive_transaction, is_locked_database_exception

from core.sweeps import sweeps_run
from core.wakeup import Waiter, waiter_for

logger = logging.getLogger(__name__)


class Worker(DbWorker):
    def __init__(self, *, sweep_every: float, **options: object) -> None:
        super().__init__(**options)  # type: ignore[arg-type]
        self.sweep_every = sweep_every

    def claim_next(self) -> DBTaskResult | None:
        """The next ready task of the queues served, claimed by this worker; None if none (or
        the SQLite database is locked for now).

        The highest priority first (``@task(priority=...)``: a seal or a signer's email before
        webhook deliveries, core.background), then the one due first, then the oldest:
        django-tasks-db's own ordering, spelt out because the order is the point here.
        """
        tasks = DBTaskResult.objects.ready().filter(backend_name=self.backend_name)
        if not self.process_all_queues:
            tasks = tasks.filter(queue_name__in=self.queue_names)
        if self.excluded_queue_names:
            tasks = tasks.exclude(queue_name__in=self.excluded_queue_names)
        tasks = tasks.order_by(F("priority").desc(), F("run_after").asc(), F("enqueued_at").asc())
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
        waiter: Waiter = waiter_for(DBTaskResult.objects.db)
        next_sweep = time.monotonic()
        try:
            while self.running:
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
                if self.running and task_result is None:
                    timeout = self.interval
                    if self.sweep_every:
                        timeout = min(timeout, max(0.0, next_sweep - time.monotonic()))
                    waiter.wait(timeout)
        finally:
            waiter.close()
