"""Health check and the JSON error pages for requests that never reach a DRF view."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.templatetags.static import static
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

from core.api_errors import error_response, internal_error_body
from core.errors import BadRequest, NotFound
from core.middleware import is_api_request
from core.queues import QueueFigures, queue_figures, queues_behind

logger = logging.getLogger("core.health")


def _database_answers(context: str) -> bool:
    """Whether the database answers a query; a failure is logged under ``context``."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError:
        logger.exception("%s: database unreachable", context)
        return False
    return True


@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    if not _database_answers("health check"):
        return JsonResponse({"status": "unavailable", "database": "error"}, status=503)
    return JsonResponse({"status": "ok", "database": "ok"})


READY_PROBE = "readyz/probe"


@require_GET
def readyz(request: HttpRequest) -> HttpResponse:
    """Ready to serve: the database answers, the storage (a local folder or the bucket) reads
    and writes, and no task queue's oldest ready task has waited more than
    READYZ_TASK_MAX_AGE_SECONDS (the workers keep up). A probe file is written once, then only
    looked for. The body gives each check, every queue's figures (core.queues) and, when not
    ready, the reason."""
    reasons: list[str] = []
    checks = {"database": "ok", "storage": "ok", "tasks": "ok"}
    queues: dict[str, dict[str, float]] = {}
    if not _database_answers("readiness"):
        checks["database"] = checks["tasks"] = "error"
        reasons.append("the database does not answer")
    try:
        if not default_storage.exists(READY_PROBE):
            default_storage.save(READY_PROBE, ContentFile(b"ready\n"))
        if not default_storage.exists(READY_PROBE):
            raise OSError("the storage does not keep what it is given")
    except Exception:  # any backend's error (OSError, botocore's): not ready, and logged
        logger.exception("readiness: storage unusable")
        checks["storage"] = "error"
        reasons.append("the storage does not read and write")
    if checks["database"] == "ok":
        try:
            figures = queue_figures()
        except DatabaseError:
            logger.exception("readiness: the task queues unreadable")
            checks["tasks"] = "error"
            reasons.append("the task queues cannot be read")
        else:
            queues = {queue: _queue_body(figure) for queue, figure in figures.items()}
            behind = queues_behind(figures, settings.READYZ_TASK_MAX_AGE_SECONDS)
            if behind:
                checks["tasks"] = "behind"
                reasons.extend(behind)
    body: dict[str, object] = {"status": "unavailable" if reasons else "ok", **checks}
    body["queues"] = queues
    if reasons:
        body["reason"] = "; ".join(reasons)
    return JsonResponse(body, status=503 if reasons else 200)


def _queue_body(figure: QueueFigures) -> dict[str, float]:
    return {
        "ready": figure.ready,
        "scheduled": figure.scheduled,
        "running": figure.running,
        "oldestReadyAgeSeconds": round(figure.oldest_ready_age_seconds, 3),
    }


# Exempt from CSRF: API clients send no CSRF token, and a POST to an unknown API path must be
# the wire shape's 404, not the CSRF failure page (there is nothing here to protect).
@csrf_exempt
def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return error_response(NotFound())


# Django answers a request it refuses before any view (a Host header that is not in
# ALLOWED_HOSTS, a SuspiciousOperation) with this 400: the API's clients get the wire shape,
# people Django's HTML page.
@csrf_exempt
def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if is_api_request(request):
        return error_response(BadRequest())
    return defaults.bad_request(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    return JsonResponse(internal_error_body(), status=500)


@require_GET
def favicon(request: HttpRequest) -> HttpResponse:
    """/favicon.ico, which browsers ask every page for: the service's icon (a static file)."""
    response = HttpResponseRedirect(static("core/favicon.svg"))
    response["Cache-Control"] = "public, max-age=86400"
    return response
