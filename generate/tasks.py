"""Generate's background task: running an asynchronous generate job (generate.jobs).

Registered as ``GENERATE_JOB`` (generate.task_names, core.tasks_registry): generate.jobs enqueues
it by that name and never imports this module, which imports it. ``GenerateConfig.ready`` imports
it.
"""

from __future__ import annotations

from django_tasks import task

from core.tasks_registry import task_register
from generate.jobs import generate_job_run
from generate.task_names import GENERATE_JOB


@task_register(GENERATE_JOB)
@task()
def generate_job_task(*, job_id: int, attempt: int = 1) -> str:
    """Render job ``job_id``; idempotent (a job already finished is left as it is)."""
    return generate_job_run(job_id=job_id, attempt=attempt)
