"""Health check and the JSON error pages for requests that never reach a DRF view."""

from __future__ import annotations

import logging

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.templatetags.static import static
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

from core.api_errors import internal_error_body
from core.errors import BadRequest, NotFound
from core.json_views import error_response
from core.middleware import is_api_request

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
    """Ready to serve: the database answers and the storage (a local folder or the bucket) reads
    and writes. A probe file is written once, then only looked for."""
    checks = {"database": "ok" if _database_answers("readiness") else "error", "storage": "ok"}
    try:
        if not default_storage.exists(READY_PROBE):
            default_storage.save(READY_PROBE, ContentFile(b"ready\n"))
        if not default_storage.exists(READY_PROBE):
            raise OSError("the storage does not keep what it is given")
    except Exception:  # any backend's error (OSError, botocore's): not ready, and logged
        logger.exception("readiness: storage unusable")
        checks["storage"] = "error"
    ready = all(value == "ok" for value in checks.values())
    return JsonResponse(
        {"status": "ok" if ready else "unavailable", **checks}, status=200 if ready else 503
    )


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
