"""Generate's sweeps (run by the worker, core.sweeps): expired asynchronous jobs and their PDFs
are deleted; jobs whose task was lost are enqueued again (pending) or ended (running)."""

from __future__ import annotations

from datetime import datetime

from core.sweeps import sweep
from generate.jobs import generate_jobs_expired_delete, generate_jobs_lost_recover


@sweep("generate.expired_jobs")
def expired_jobs(*, now: datetime) -> int:
    return generate_jobs_expired_delete(now=now)


@sweep("generate.lost_jobs")
def lost_jobs(*, now: datetime) -> int:
    return generate_jobs_lost_recover(now=now)
