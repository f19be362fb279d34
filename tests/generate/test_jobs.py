"""Asynchronous generate: POST /api/v1/generate-pdf?async=true answers 202 with a status URL; a
background task renders; the status URL gives the PDF to the organization that asked, and to no
other, until it expires."""

from __future__ import annotations

import datetime
import json

from django.core.files.storage import default_storage
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from generate.jobs import generate_job_run
from generate.models import GenerateJob
from generate.sweeps import expired_jobs, lost_jobs
from tests.generate.conftest import URL, page_texts

TASK = "generate.tasks.generate_job_task"
PAYLOAD = {"data": [{"heading": "Quarterly", "content": "A long report, later."}], "title": "Q3"}


def post_generate(client, payload, query: str) -> object:
    """``payload`` posted as JSON to the generate endpoint with the query string ``query``."""
    return client.post(f"{URL}?{query}", data=json.dumps(payload), content_type="application/json")


def post_async(client, payload) -> object:
    return post_generate(client, payload, "async=true")


def run_queued_jobs() -> list[str]:
    """Run the generate tasks that are queued, as a worker would."""
    done = []
    for task in DBTaskResult.objects.filter(task_path=TASK, status="READY"):
        done.append(generate_job_run(**task.args_kwargs["kwargs"]))
        task.delete()
    return done


def test_an_async_generate_is_202_then_its_pdf(production_client) -> None:
    accepted = post_async(production_client, PAYLOAD)

    assert accepted.status_code == 202
    job = accepted.json()
    assert job["status"] == "pending"
    assert job["statusURL"] == f"/api/v1/generate-pdf/jobs/{job['id']}"
    assert accepted["Location"] == job["statusURL"]
    pending = production_client.get(job["statusURL"])
    assert (pending.status_code, pending.json()["status"]) == (202, "pending")

    assert run_queued_jobs() == ["done"]

    done = production_client.get(job["statusURL"])
    assert done.status_code == 200
    assert done["Content-Type"] == "application/pdf"
    assert "A long report, later." in page_texts(done.content)[0]
    stored = GenerateJob.objects.get(eid=job["id"])
    assert (stored.status, stored.pages, stored.body) == ("done", 1, "")  # the request is gone
    assert run_queued_jobs() == []  # and a task run again renders nothing


def test_another_organizations_key_gets_404(production_client, client_for, other_api_key) -> None:
    job = post_async(production_client, PAYLOAD).json()
    run_queued_jobs()
    other = client_for(other_api_key)

    response = other.get(job["statusURL"])

    assert response.status_code == 404
    assert response.json() == {"name": "NotFoundError", "message": "Not found."}
    assert production_client.get(job["statusURL"]).status_code == 200


def test_a_failed_job_shows_its_wire_error(production_client, settings) -> None:
    settings.GENERATE_MAX_PAGES = 1
    two_pages = {"type": "html", "data": {"html": '<p style="break-after: page">1</p><p>2</p>'}}
    job = post_async(production_client, two_pages).json()

    assert run_queued_jobs() == ["failed"]

    response = production_client.get(job["statusURL"])
    assert response.status_code == 200
    assert response.json()["status"] == "failed"
    assert response.json()["error"] == {
        "name": "UnprocessableDocumentError",
        "message": "The document would have 2 pages; the limit is 1.",
    }


def test_an_unexpected_failure_ends_the_job_as_a_500_would(production_client, monkeypatch):
    job = post_async(production_client, PAYLOAD).json()

    def broken(**kwargs: object) -> None:
        raise RuntimeError("secret detail")

    monkeypatch.setattr("generate.jobs.pdf_render", broken)
    assert run_queued_jobs() == ["failed"]

    error = production_client.get(job["statusURL"]).json()["error"]
    assert error["name"] == "InternalServerError"
    assert "secret" not in error["message"]


def test_an_invalid_body_is_refused_at_once_and_nothing_is_stored(production_client) -> None:
    response = post_async(production_client, {"type": "html", "data": {"css": "p {}"}})

    assert response.status_code == 400
    assert response.json()["name"] == "ValidationError"
    assert GenerateJob.objects.count() == 0
    assert not DBTaskResult.objects.filter(task_path=TASK).exists()


def test_a_done_job_expires_and_the_sweep_deletes_its_pdf(
    production_client, settings, monkeypatch
) -> None:
    settings.GENERATE_JOB_RETENTION_SECONDS = 3600
    job = post_async(production_client, PAYLOAD).json()
    run_queued_jobs()
    stored = GenerateJob.objects.get(eid=job["id"])
    assert default_storage.exists(stored.pdf_path)
    later = stored.finished_at + datetime.timedelta(seconds=3600)
    monkeypatch.setattr(timezone, "now", lambda: later)

    assert production_client.get(job["statusURL"]).status_code == 404
    assert expired_jobs(now=later) == 1
    assert not GenerateJob.objects.exists()
    assert not default_storage.exists(stored.pdf_path)


def test_the_sweep_requeues_a_pending_job_and_ends_one_whose_worker_died(production_client):
    pending = post_async(production_client, PAYLOAD).json()
    running = post_async(production_client, PAYLOAD).json()
    now = timezone.now()
    tasks = {
        t.args_kwargs["kwargs"]["job_id"]: t for t in DBTaskResult.objects.filter(task_path=TASK)
    }
    pending_job = GenerateJob.objects.get(eid=pending["id"])
    running_job = GenerateJob.objects.get(eid=running["id"])
    tasks[pending_job.pk].delete()  # lost
    # The worker claimed the job and died: its task stays RUNNING, started long ago.
    GenerateJob.objects.filter(pk=running_job.pk).update(status="running")
    DBTaskResult.objects.filter(pk=tasks[running_job.pk].pk).update(
        status="RUNNING", started_at=now - datetime.timedelta(hours=2)
    )

    assert lost_jobs(now=now) == 2

    assert run_queued_jobs() == ["done"]  # the pending one, enqueued again
    assert production_client.get(pending["statusURL"]).status_code == 200
    ended = production_client.get(running["statusURL"]).json()
    assert (ended["status"], ended["error"]["name"]) == ("failed", "InternalServerError")
    assert lost_jobs(now=now) == 0
