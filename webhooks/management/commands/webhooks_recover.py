"""Retry webhook deliveries that a dead worker (or web process) left behind."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from webhooks.services.retries import deliveries_recover


class Command(BaseCommand):
    help = (
        "Retry webhook attempts abandoned by a worker that died (their lease, "
        "WEBHOOK_LEASE_SECONDS, ran out) and re-enqueue due deliveries whose task was lost. "
        "`manage.py worker` does this by itself every TASKS_SWEEP_SECONDS; this is for workers "
        "started as `manage.py db_worker`, or by hand."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--every",
            type=float,
            default=0,
            help="Keep running, sweeping every this many seconds (0: sweep once and exit).",
        )

    def handle(self, *args: Any, every: float, **options: Any) -> None:
        while True:
            recovered = deliveries_recover()
            self.stdout.write(
                f"abandoned attempts retried: {recovered.abandoned}, "
                f"lost deliveries re-enqueued: {recovered.requeued}, "
                f"stuck task results failed: {recovered.tasks_failed}"
            )
            if every <= 0:
                return
            time.sleep(every)
