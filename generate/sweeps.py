"""Generate's sweep (run by the worker, core.sweeps): expired asynchronous jobs and their PDFs
are deleted."""

from __future__ import annotations

from datetime import datetime

from core.sweeps import sweep
from generate.jobs import generate_jobs_expired_delete


@sweep("generate.expired_jobs")
def expired_jobs(*, now: datetime) -> int:
    return generate_jobs_expired_delete(now=now)
