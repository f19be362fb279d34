"""``manage.py worker``: the task worker (``db_worker``), woken when tasks are enqueued, that also
runs the sweeps for lost work (core.worker, core.sweeps)."""

from __future__ import annotations

import os
from argparse import ArgumentParser
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV, run_with_reloader
from django_tasks_db.management.commands.db_worker import Command as DbWorkerCommand
from django_tasks_db.management.commands.db_worker import valid_interval

from core.worker import Worker


class Command(DbWorkerCommand):
    help = (
        "Run a background task worker: db_worker's options, woken at once when a task is "
        "enqueued (LISTEN/NOTIFY on PostgreSQL, a local datagram on SQLite; --interval is then "
        "only the fallback poll), and sweeping for lost work every TASKS_SWEEP_SECONDS."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        super().add_arguments(parser)
        parser.add_argument(
            "--sweep-every",
            type=valid_interval,
            default=None,
            help="Seconds between sweeps for lost work; 0: never (default: TASKS_SWEEP_SECONDS).",
        )

    def handle(  # type: ignore[override]
        self,
        *,
        verbosity: int,
        queue_name: str,
        interval: float,
        batch: bool,
        backend_name: str,
        startup_delay: bool,
        reload: bool,
        max_tasks: int | None,
        worker_id: str,
        exclude_queues: str,
        sweep_every: float | None,
        **options: Any,
    ) -> None:
        self.configure_logging(verbosity)
        queue_names = queue_name.split(",")
        excluded_queue_names = exclude_queues.split(",") if exclude_queues else []
        if excluded_queue_names and "*" not in queue_names:
            raise CommandError("--exclude-queues can only be used with --queue-name=*")
        worker = Worker(
            queue_names=queue_names,
            interval=interval,
            batch=batch,
            backend_name=backend_name,
            startup_delay=startup_delay,
            max_tasks=max_tasks,
            worker_id=worker_id,
            excluded_queue_names=excluded_queue_names,
            sweep_every=settings.TASKS_SWEEP_SECONDS if sweep_every is None else sweep_every,
        )
        if reload and not batch:
            if os.environ.get(DJANGO_AUTORELOAD_ENV) == "true":
                worker.configure_signals()  # only the child process runs the worker
            run_with_reloader(worker.run)
        else:
            worker.configure_signals()
            worker.run()
