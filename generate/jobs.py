"""Asynchronous generate (``POST /api/v1/generate-pdf?async=true``): the request is checked and
stored, answered 202 with a status URL, and rendered by a background task; the PDF is kept until
GENERATE_JOB_RETENTION_SECONDS after it is done, for the organization that asked only.

For documents that take longer than a request should: the same body, rules and caps as the
synchronous endpoint (generate.services.pdf_generate), but no HTTP request waits for the render.
Its end (done or failed) is announced by the ``generatePdfJobFinished`` webhook event, to the
job's own ``webhookURL`` or the organization's, in the transaction that records it; clients may
also poll the status URL.

A job's status moves only by ``JOB_MOVES`` below (core.outbox.Moves), each move a compare-and-set
(``move_all`` on the one job): ``pending`` → ``running`` (a task claimed it: run twice, it renders
once) → ``done`` or ``failed``; ``running`` → ``pending`` again when every renderer was busy and
its retry is queued. A job is no outbox row (core.outbox.Outbox): it keeps no lease of its own,
its task's run is the lease, and the sweep (:func:`generate_jobs_lost_recover`) asks the task
results (core.sweeps) which jobs no task will finish.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import Organization
from core.api_errors import internal_error_body, log_unexpected
from core.background import enqueue_in_transaction, retry_later
from core.blobs import blob_delete, blob_read, blob_save
from core.claims import claim_one
from core.errors import NotFound, ServiceBusy, ServiceError, ValidationFailed
from core.outbox import Moves
from core.sweeps import task_results_lost_fail, tasks_unfinished_for
from core.tasks_registry import task_path
from generate.models import GenerateJob
from generate.services import pdf_check, pdf_render
from generate.task_names import GENERATE_JOB
from webhooks.services import GENERATE_PDF_JOB_FINISHED, check_webhook_url, event_emit

logger = logging.getLogger(__name__)


Status = GenerateJob.Status
JOB_MOVES = Moves(
    "generate job",
    {
        Status.PENDING: frozenset({Status.RUNNING}),
        Status.RUNNING: frozenset({Status.PENDING, Status.DONE, Status.FAILED}),
        Status.DONE: frozenset(),
        Status.FAILED: frozenset(),
    },
)


def generate_job_create(
    *, organization: Organization, watermark: bool, body: object, webhook_url: str = ""
) -> GenerateJob:
    """Check ``body`` as the synchronous endpoint would (400, 413, 422 for too many table cells
    or elements: now, not later) and the ``webhookURL`` as every other one is, store it and
    enqueue its render in the same transaction."""
    if not isinstance(body, Mapping):
        raise ValidationFailed.single("", "The request body must be a JSON object.")
    pdf_check(organization=organization, body=body)
    if webhook_url:
        webhook_url = check_webhook_url(webhook_url)
    with transaction.atomic():
        job = GenerateJob.objects.create(
            organization=organization,
            body=json.dumps(dict(body)),
            watermark=watermark,
            webhook_url=webhook_url,
            created_at=timezone.now(),
        )
        enqueue_in_transaction(GENERATE_JOB, job_id=job.pk)
    return job


def generate_job_get(*, organization: Organization, eid: str) -> GenerateJob:
    """The organization's job ``eid``; NotFound for another organization's, or once expired."""
    job = GenerateJob.objects.filter(organization=organization, eid=eid).first()
    if job is None or (job.expires_at is not None and job.expires_at <= timezone.now()):
        raise NotFound()
    return job


def generate_job_pdf(job: GenerateJob) -> bytes:
    return blob_read(job.pdf_path, job.pdf_sha256)


def generate_job_run(*, job_id: int, attempt: int = 1) -> str:
    """Render a pending job; what happened, for the task's result. Claimed by compare-and-set,
    so a task run twice renders once; the render itself runs outside any transaction."""
    claimed = JOB_MOVES.move_all(GenerateJob.objects.filter(pk=job_id), Status.RUNNING)
    if not claimed:
        return "not pending"
    job = GenerateJob.objects.select_related("organization").get(pk=job_id)
    try:
        rendered = pdf_render(
            organization=job.organization, watermark=job.watermark, body=json.loads(job.body)
        )
    except ServiceBusy:
        # Every render worker busy: the job waits for its turn, as a request could not.
        with transaction.atomic():
            if retry_later(GENERATE_JOB, kwargs={"job_id": job_id}, attempt=attempt):
                JOB_MOVES.move_all(GenerateJob.objects.filter(pk=job_id), Status.PENDING)
                return "busy, retried later"
            gave_up = ServiceBusy("Every PDF renderer stayed busy for hours; send it again.")
            return _finish(job, error=gave_up.as_wire())
    except ServiceError as refused:
        with transaction.atomic():
            return _finish(job, error=refused.as_wire())
    except Exception as unexpected:
        # As a request would get a 500: logged by frames, and the job ends (never left running).
        log_unexpected(unexpected)
        with transaction.atomic():
            return _finish(job, error=internal_error_body())
    path, sha = blob_save(prefix="generated", data=rendered.pdf)
    with transaction.atomic():
        return _finish(job, pdf_path=path, pdf_sha256=sha, pages=rendered.pages)


def _finish(job: GenerateJob, **outcome: Any) -> str:
    """End a running job (in the caller's transaction) and announce it; a job ended already
    (by the sweep, say) is left alone and announced once only."""
    now = timezone.now()
    status = Status.FAILED if outcome.get("error") else Status.DONE
    ended = JOB_MOVES.move_all(
        GenerateJob.objects.filter(pk=job.pk),
        status,
        body="",  # the request is not kept once it has been rendered
        finished_at=now,
        expires_at=now + timedelta(seconds=settings.GENERATE_JOB_RETENTION_SECONDS),
        **outcome,
    )
    if ended:
        job.refresh_from_db()
        event_emit(
            organization=job.organization,
            action=GENERATE_PDF_JOB_FINISHED,
            data={"generatePdfJob": generate_job_summary(job)},
            webhook_url=job.webhook_url or None,
        )
    return status


def generate_job_summary(job: GenerateJob) -> dict[str, object]:
    """The job as its status URL shows it."""
    return {
        "id": job.eid,
        "status": job.status,
        "statusURL": f"/api/v1/generate-pdf/jobs/{job.eid}",
        "pages": job.pages,
        "error": job.error,
        "createdAt": job.created_at.isoformat(),
        "finishedAt": job.finished_at.isoformat() if job.finished_at else None,
        "expiresAt": job.expires_at.isoformat() if job.expires_at else None,
    }


def generate_jobs_expired_delete(*, now: datetime) -> int:
    """Delete jobs (and their PDFs) past their expiry."""
    expired = list(GenerateJob.objects.filter(expires_at__lte=now).values_list("pk", "pdf_path"))
    for _pk, path in expired:
        if path and not GenerateJob.objects.filter(pdf_path=path, expires_at__gt=now).exists():
            blob_delete(path)
    GenerateJob.objects.filter(pk__in=[pk for pk, _ in expired]).delete()
    return len(expired)


def generate_jobs_lost_recover(*, now: datetime) -> int:
    """Jobs whose task is gone: a pending one (its task deleted by hand) is enqueued again; a
    running one whose task has run longer than any render may (the wall-clock backstop and the
    queue wait, plus a minute) lost its worker while rendering, and ends as a 500 would, rather
    than being tried again (the document may be what killed it). Returns how many."""
    lease = settings.GENERATE_WALL_TIMEOUT_SECONDS + settings.GENERATE_QUEUE_TIMEOUT_SECONDS + 60
    started_before = now - timedelta(seconds=lease)
    task_results_lost_fail(task_path=task_path(GENERATE_JOB), started_before=started_before)
    # Those running since before were marked failed just above: the others are live.
    covered = tasks_unfinished_for(task_path=task_path(GENERATE_JOB), kwarg="job_id", running=True)
    repaired = 0
    unfinished = GenerateJob.objects.filter(status__in=[Status.PENDING, Status.RUNNING])
    for job_id in unfinished.exclude(pk__in=covered).values_list("pk", flat=True)[:1000]:
        with claim_one(unfinished, job_id) as job:
            if job is None:
                continue
            if job.status == Status.PENDING:
                enqueue_in_transaction(GENERATE_JOB, job_id=job.pk)
            else:
                _finish(job, error=internal_error_body())
            repaired += 1
    return repaired
