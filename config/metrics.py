"""What an operator sees: Prometheus metrics at ``/metrics`` (prometheus-client).

- Per process, counted as requests end (``MetricsMiddleware``): request latency per route,
  fills and generates by outcome, and the render pool's workers, jobs, waiting requests and
  memory after each generate and at each scrape. Under gunicorn, ``gunicorn.conf.py`` gives
  prometheus-client a folder (``PROMETHEUS_MULTIPROC_DIR``) where every server process writes
  its values, and a scrape sums the server's processes.
- From the database, read at each scrape (the same whichever process or machine answers):
  due tasks per queue and the age of the oldest, tasks by status, webhook deliveries and seals
  by outcome.

The endpoint is not part of the API: it answers only ``Authorization: Bearer <METRICS_TOKEN>``,
and is off (404) while ``METRICS_TOKEN`` is empty.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator

from django.conf import settings
from django.db.models import Count, Min
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.views.decorators.http import require_GET
from django_tasks_db.models import DBTaskResult
from prometheus_client import REGISTRY, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector, CollectorRegistry

from core.errors import NotFound
from core.json_views import error_response
from esign.models import Packet
from generate.services import render_pool_stats
from webhooks.models import WebhookDelivery

REQUEST_SECONDS = Histogram(
    "docautomation_http_request_duration_seconds",
    "Time from a request's arrival at Django to its response, by route.",
    ["route", "method", "status"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120),
)
FILLS = Counter("docautomation_fills", "Fill requests by outcome.", ["outcome"])
GENERATES = Counter("docautomation_generates", "Generate requests by outcome.", ["outcome"])
# Render pool, per server process, summed over the processes alive ("livesum").
RENDER_WORKERS = Gauge(
    "docautomation_render_pool_workers", "Render worker processes.", multiprocess_mode="livesum"
)
RENDER_BUSY = Gauge(
    "docautomation_render_pool_busy", "Documents rendering now.", multiprocess_mode="livesum"
)
RENDER_WAITING = Gauge(
    "docautomation_render_pool_waiting",
    "Generate requests waiting for a render worker.",
    multiprocess_mode="livesum",
)
RENDER_RESIDENT = Gauge(
    "docautomation_render_pool_resident_bytes",
    "Resident memory of the render workers.",
    multiprocess_mode="livesum",
)
_COUNTED = {"fill-pdf": FILLS, "generate-pdf": GENERATES}


def outcome(status: int) -> str:
    """ok (2xx), busy (429, 503: try again), refused (other 4xx), error (5xx)."""
    if status < 400:
        return "ok"
    if status in (429, 503):
        return "busy"
    return "refused" if status < 500 else "error"


def _render_pool_update() -> None:
    stats = render_pool_stats()
    if stats is None:
        return
    RENDER_WORKERS.set(stats.workers)
    RENDER_BUSY.set(stats.busy)
    RENDER_WAITING.set(stats.waiting)
    RENDER_RESIDENT.set(stats.resident_bytes)


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
        if route == "generate-pdf":
            _render_pool_update()
        return response


class DatabaseCollector(Collector):
    """Gauges read from the database at each scrape: the same from any process."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        now = timezone.now()
        depth = GaugeMetricFamily(
            "docautomation_task_queue_depth", "Tasks due and not yet running.", labels=["queue"]
        )
        oldest = GaugeMetricFamily(
            "docautomation_task_oldest_due_age_seconds",
            "Seconds since the oldest due task was enqueued (0 when none is due).",
            labels=["queue"],
        )
        queues = settings.TASKS["default"]["QUEUES"]
        rows = {
            row["queue_name"]: row
            for row in DBTaskResult.objects.ready()  # due and not running (django-tasks-db's own)
            .values("queue_name")
            .annotate(count=Count("id"), first=Min("enqueued_at"))
        }
        for queue in sorted({*queues, *rows}):
            row = rows.get(queue)
            depth.add_metric([queue], row["count"] if row else 0)
            age = (now - row["first"]).total_seconds() if row else 0.0
            oldest.add_metric([queue], max(age, 0.0))
        yield depth
        yield oldest
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
        response = JsonResponse(
            {"name": "AuthorizationError", "message": "Bearer METRICS_TOKEN required."},
            status=401,
        )
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    _render_pool_update()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        MultiProcessCollector(registry)
    else:
        registry = REGISTRY
    output = generate_latest(registry) + generate_latest(_database_registry)
    return HttpResponse(output, content_type=CONTENT_TYPE_PLAIN_0_0_4)  # every Prometheus reads it


_database_registry = CollectorRegistry(auto_describe=False)
_database_registry.register(DatabaseCollector())
