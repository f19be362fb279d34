"""A generate job's status moves only by its table (generate.jobs.JOB_MOVES): a move it does not
allow raises MoveRefused and writes nothing, and a task run for a job that is not pending leaves
it as it is."""

from __future__ import annotations

import pytest
from django.utils import timezone

from accounts.models import Organization
from core.outbox import MoveRefused
from generate.jobs import JOB_MOVES, generate_job_run
from generate.models import GenerateJob

Status = GenerateJob.Status


@pytest.mark.django_db
def test_a_finished_job_refuses_to_move_and_nothing_is_written(
    organization: Organization,
) -> None:
    job = GenerateJob.objects.create(
        organization=organization, body="", status=Status.DONE, created_at=timezone.now()
    )

    with pytest.raises(MoveRefused, match="generate job is done; it cannot become running"):
        JOB_MOVES.move(job, Status.RUNNING)

    assert job.status == Status.DONE
    assert JOB_MOVES.move_all(GenerateJob.objects.all(), Status.FAILED) == 0
    assert generate_job_run(job_id=job.pk) == "not pending"
    job.refresh_from_db()
    assert (job.status, job.finished_at, job.error) == (Status.DONE, None, None)


def test_the_jobs_table_allows_what_a_run_does() -> None:
    assert JOB_MOVES.sources(Status.RUNNING) == [Status.PENDING]  # claimed once
    assert JOB_MOVES.sources(Status.PENDING) == [Status.RUNNING]  # busy: its retry waits
    assert JOB_MOVES.sources(Status.DONE) == [Status.RUNNING]
    assert JOB_MOVES.sources(Status.FAILED) == [Status.RUNNING]
