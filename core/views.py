"""Health check and the JSON error pages for requests that never reach a DRF view."""

from __future__ import annotations

import logging

from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

from core.api_errors import internal_error_body
from core.errors import NotFound

logger = logging.getLogger("core.health")


@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError:
        logger.exception("health check: database unreachable")
        return JsonResponse({"status": "unavailable", "database": "error"}, status=503)
    return JsonResponse({"status": "ok", "database": "ok"})


# Exempt from CSRF: API clients send no CSRF token, and a POST to an unknown API path must be
# the wire shape's 404, not the CSRF failure page (there is nothing here to protect).
@csrf_exempt
def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return JsonResponse(NotFound().as_wire(), status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    return JsonResponse(internal_error_body(), status=500)
