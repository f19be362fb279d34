"""Generate's background task: running an asynchronous generate job (generate.jobs)."""

from __future__ import annotations

from django_tasks import task


@task()
def generate_job_task(*, job_id: int, attempt: int = 1) -> str:
    """Render job ``job_id``; idempotent (a job already finished is left as it is)."""
    from generate.jobs import generate_job_run  # generate.jobs enqueues this task

    return generate_job_run(job_id=job_id, attempt=attempt)
