"""What an operator sees: Prometheus metrics at ``/metrics`` (prometheus-client).

- Per process, counted as requests end (``MetricsMiddleware``): request latency per route,
  fills and generates by outcome, and the render and upload-check pools' workers, jobs, waiting
  requests and memory after each request and at each scrape. Under gunicorn,
  ``gunicorn.conf.py`` gives prometheus-client a folder (``PROMETHEUS_MULTIPROC_DIR``) where
  every server process writes its values, and a scrape sums the server's processes.
- From the database, read at each scrape (the same whichever process or machine answers):
  per task queue the tasks ready, scheduled and running and the age of the oldest ready one
  (core.queues), tasks by status, webhook deliveries and seals
  by outcome.

The endpoint is not part of the API: it answers only ``Authorization: Bearer <METRICS_TOKEN>``,
and is off (404) while ``METRICS_TOKEN`` is empty.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator

from django.conf import settings
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.utils.crypto import constant_time_compare
from django.views.decorators.http import require_GET
from django_tasks_db.models import DBTaskResult
from prometheus_client import REGISTRY, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector, CollectorRegistry

from core.api_errors import error_response
from core.errors import AuthorizationError, NotFound
from core.pools import pool_stats
from core.queues import queue_figures
from esign.models import Packet
from webhooks.models import WebhookDelivery

REQUEST_SECONDS = Histogram(
    "docautomation_http_request_duration_seconds",
    "Time from a request's arrival at Django to its response, by route.",
    ["route", "method", "status"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120),
)
FILLS = Counter("docautomation_fills", "Fill requests by outcome.", ["outcome"])
GENERATES = Counter("docautomation_generates", "Generate requests by outcome.", ["outcome"])


class PoolGauges:
    """One pool's gauges (core.pools: ``prefix``), per server process, summed over the
    processes alive ("livesum"): its workers, the jobs under way, the requests waiting for a
    worker and the workers' resident memory. Set after every request of a process that has made
    the pool, and at each scrape."""

    def __init__(
        self, prefix: str, name: str, *, workers: str, busy: str, waiting: str, resident: str
    ) -> None:
        def gauge(suffix: str, documentation: str) -> Gauge:
            metric = f"docautomation_{name}_pool_{suffix}"
            return Gauge(metric, documentation, multiprocess_mode="livesum")

        self.prefix = prefix
        self.workers = gauge("workers", workers)
        self.busy = gauge("busy", busy)
        self.waiting = gauge("waiting", waiting)
        self.resident = gauge("resident_bytes", resident)

    def update(self) -> None:
        stats = pool_stats(self.prefix)
        if stats is None:  # not made in this process (yet): nothing of it to count here
            return
        self.workers.set(stats.workers)
        self.busy.set(stats.busy)
        self.waiting.set(stats.waiting)
        self.resident.set(stats.resident_bytes)


POOLS = (
    PoolGauges(
        "GENERATE",
        "render",
        workers="Render worker processes.",
        busy="Documents rendering now.",
        waiting="Generate requests waiting for a render worker.",
        resident="Resident memory of the render workers.",
    ),
    PoolGauges(
        "UPLOAD_CHECK",
        "upload",
        workers="Upload-check worker processes (bulk-send spreadsheets, signers' attachments).",
        busy="Uploaded files being checked now.",
        waiting="Uploads waiting for an upload-check worker.",
        resident="Resident memory of the upload-check workers.",
    ),
)
_COUNTED = {"fill-pdf": FILLS, "generate-pdf": GENERATES}


def outcome(status: int) -> str:
    """ok (2xx), busy (429, 503: try again), refused (other 4xx), error (5xx)."""
    if status < 400:
        return "ok"
    if status in (429, 503):
        return "busy"
    return "refused" if status < 500 else "error"


def _pools_update() -> None:
    for pool in POOLS:
        pool.update()


class MetricsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        match = request.resolver_match
        # The route's name, never the path: eids and tokens would make a series each.
        route = (match.view_name if match else "") or "unmatched"
        REQUEST_SECONDS.labels(route, request.method or "", str(response.status_code)).observe(
            time.perf_counter() - started
        )
        counter = _COUNTED.get(route)
        if counter is not None:
            counter.labels(outcome(response.status_code)).inc()
        _pools_update()
        return response


class DatabaseCollector(Collector):
    """Gauges read from the database at each scrape: the same from any process."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        yield from _queue_families()
        yield _by_status(
            "docautomation_tasks", "Task results by status.", DBTaskResult.objects.all(), "status"
        )
        yield _by_status(
            "docautomation_webhook_deliveries",
            "Webhook deliveries by outcome (pending, delivered, failed, skipped).",
            WebhookDelivery.objects.all(),
            "status",
        )
        yield _by_status(
            "docautomation_seals",
            "Completed packets by seal outcome (pending, sealed, retrying, failed).",
            Packet.objects.exclude(seal_status=""),
            "seal_status",
        )


# The task queues (core.queues), one family per figure, each with a sample per queue. Depth and
# age keep the names they had before scheduled and running tasks were counted apart.
_QUEUE_FAMILIES = (
    (
        "docautomation_task_queue_depth",
        "Tasks ready: due and not claimed, a free worker would take one now.",
        "ready",
    ),
    (
        "docautomation_task_queue_scheduled",
        "Tasks not claimed that are due later (a retry's delay, a bulk send's next chunk).",
        "scheduled",
    ),
    (
        "docautomation_task_queue_running",
        "Tasks claimed by a worker and not finished.",
        "running",
    ),
    (
        "docautomation_task_oldest_due_age_seconds",
        "Seconds since the oldest ready task became due (0 when none is ready).",
        "oldest_ready_age_seconds",
    ),
)


def _queue_families() -> Iterator[GaugeMetricFamily]:
    figures = queue_figures()  # one query, whatever the number of queues
    for name, documentation, field in _QUEUE_FAMILIES:
        family = GaugeMetricFamily(name, documentation, labels=["queue"])
        for queue, figure in figures.items():
            family.add_metric([queue], getattr(figure, field))
        yield family


def _by_status(name: str, documentation: str, rows: object, field: str) -> GaugeMetricFamily:
    family = GaugeMetricFamily(name, documentation, labels=["status"])
    counted = rows.values(field).annotate(count=Count("pk")).order_by(field)  # type: ignore[attr-defined]
    for row in counted:
        family.add_metric([row[field]], row["count"])
    return family


def _authorized(request: HttpRequest) -> bool:
    token = settings.METRICS_TOKEN
    header = request.headers.get("Authorization", "")
    return bool(token) and constant_time_compare(header, f"Bearer {token}")


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    if not settings.METRICS_TOKEN:
        return error_response(NotFound())
    if not _authorized(request):
        return error_response(
            AuthorizationError("Bearer METRICS_TOKEN required."),
            challenge='Bearer realm="metrics"',
        )
    _pools_update()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        MultiProcessCollector(registry)
    else:
        registry = REGISTRY
    output = generate_latest(registry) + generate_latest(_database_registry)
    return HttpResponse(output, content_type=CONTENT_TYPE_PLAIN_0_0_4)  # every Prometheus reads it


_database_registry = CollectorRegistry(auto_describe=False)
_database_registry.register(DatabaseCollector())
