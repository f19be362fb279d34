"""/metrics (Prometheus, behind METRICS_TOKEN) and /readyz (the database and the storage)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.db import transaction
from django.test import Client
from django.utils import timezone
from django_tasks import task
from django_tasks_db.models import DBTaskResult
from prometheus_client import REGISTRY

from core import background
from templates_app.models import PdfTemplate
from tests.s3server import S3Storage

TOKEN = "metrics-token-for-tests"  # noqa: S105


@task()
def noop() -> None:
    """A task that is only enqueued here, never run."""


@pytest.fixture
def metrics_on(settings) -> None:
    settings.METRICS_TOKEN = TOKEN


def scrape() -> dict[str, float]:
    response = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    samples = {}
    for line in response.content.decode().splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            samples[name] = float(value)
    return samples


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_metrics_are_off_without_a_token(db: None) -> None:
    response = Client().get("/metrics", HTTP_AUTHORIZATION="Bearer anything")
    assert response.status_code == 404
    assert response.json() == {"name": "NotFoundError", "message": "Not found."}


def test_metrics_need_the_token(db: None, metrics_on: None, api_key: str) -> None:
    for header in ({}, {"HTTP_AUTHORIZATION": "Bearer wrong"}, {"HTTP_AUTHORIZATION": TOKEN}):
        response = Client().get("/metrics", **header)
        assert response.status_code == 401
        assert response["WWW-Authenticate"] == 'Bearer realm="metrics"'
    # An API key is not the token: the endpoint is not part of the API.
    from tests.conftest import basic_auth

    assert Client().get("/metrics", HTTP_AUTHORIZATION=basic_auth(api_key)).status_code == 401


def test_fills_and_generates_are_counted_by_outcome_with_latency_per_route(
    db: None, metrics_on: None, api_client: Client, demo_template: PdfTemplate
) -> None:
    ok, refused = (
        value("docautomation_fills_total", outcome="ok"),
        value("docautomation_fills_total", outcome="refused"),
    )
    observed = value(
        "docautomation_http_request_duration_seconds_count",
        route="fill-pdf", method="POST", status="200",
    )  # fmt: skip
    generate_refused = value("docautomation_generates_total", outcome="refused")

    url = f"/api/v1/fill/{demo_template.eid}.pdf"
    body = json.dumps({"data": {"email": "ada@example.com"}})
    assert api_client.post(url, body, content_type="application/json").status_code == 200
    assert api_client.post(url, body, content_type="application/json").status_code == 200
    assert api_client.post(url, "[", content_type="application/json").status_code == 400
    generate = api_client.post("/api/v1/generate-pdf", "{}", content_type="application/json")
    assert generate.status_code == 400

    samples = scrape()
    assert samples['docautomation_fills_total{outcome="ok"}'] == ok + 2
    assert samples['docautomation_fills_total{outcome="refused"}'] == refused + 1
    assert samples['docautomation_generates_total{outcome="refused"}'] == generate_refused + 1
    key = (
        'docautomation_http_request_duration_seconds_count{method="POST",route="fill-pdf",'
        'status="200"}'
    )
    assert samples[key] == observed + 2
    # Routes by name, never by path: no eid appears in a label.
    assert demo_template.eid not in "".join(samples)


def test_the_task_queue_its_oldest_due_task_deliveries_and_seals(
    db: None, metrics_on: None
) -> None:
    with transaction.atomic():
        background.enqueue_in_transaction(noop)
        background.enqueue_in_transaction(noop)
    DBTaskResult.objects.update(enqueued_at=timezone.now() - timedelta(seconds=90))

    samples = scrape()

    assert samples['docautomation_task_queue_depth{queue="default"}'] == 2
    assert samples['docautomation_task_queue_depth{queue="webhooks"}'] == 0
    assert 90 <= samples['docautomation_task_oldest_due_age_seconds{queue="default"}'] < 120
    assert samples['docautomation_task_oldest_due_age_seconds{queue="webhooks"}'] == 0
    assert samples['docautomation_tasks{status="READY"}'] == 2


def checks(body: dict) -> dict:
    """/readyz's verdicts on the database and the storage (the task queues' are in
    test_queue_backpressure.py)."""
    return {key: body[key] for key in ("status", "database", "storage")}


def test_ready_when_the_database_and_the_storage_answer(db: None, settings) -> None:
    response = Client().get("/readyz")
    assert response.status_code == 200
    assert checks(response.json()) == {"status": "ok", "database": "ok", "storage": "ok"}


def test_ready_with_the_bucket_and_not_without_it(db: None, s3_storage: S3Storage) -> None:
    assert checks(Client().get("/readyz").json()) == {
        "status": "ok", "database": "ok", "storage": "ok",
    }  # fmt: skip
    assert s3_storage.names() == ["readyz/probe"]

    s3_storage.server.client().delete_object(Bucket=s3_storage.bucket, Key="readyz/probe")
    s3_storage.server.client().delete_bucket(Bucket=s3_storage.bucket)
    response = Client().get("/readyz")

    assert response.status_code == 503
    body = response.json()
    assert checks(body) == {"status": "unavailable", "database": "ok", "storage": "error"}
    assert body["reason"] == "the storage does not read and write"
