"""``manage.py sweep``: run every registered sweep for lost work once (core.sweeps)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from core.sweeps import sweeps_run


class Command(BaseCommand):
    help = (
        "Find work that is due and whose task was lost (a worker killed in the middle of it) and "
        "enqueue it again, once. `manage.py worker` does this every TASKS_SWEEP_SECONDS."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        for name, count in sweeps_run().items():
            self.stdout.write(f"{name}: {'failed (see the log)' if count is None else count}")
