"""One exception handler renders every API error in the wire shapes of the compatible API, and
one renderer (``error_response``) answers every ``ServiceError``, of DRF's views and of the
others (core.json_views, the builders' and signing pages' endpoints, /metrics, /mcp), with the
same body and headers."""

from __future__ import annotations

import logging
import math
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from django.core.exceptions import (
    PermissionDenied,
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.http import Http404, HttpResponse, JsonResponse
from rest_framework import exceptions as drf
from rest_framework.response import Response

from core.errors import (
    AuthorizationError,
    FieldError,
    NotFound,
    RateLimited,
    RequestTooLarge,
    ServiceError,
    ValidationFailed,
)
from core.logging import current_request_id

logger = logging.getLogger("core.api")

# What a missing API credential asks for; an endpoint with a credential of its own (/metrics's
# token, /mcp's bearer key) names its own.
API_CHALLENGE = 'Basic realm="api"'


class _Simple(ServiceError):
    """An error known only by name and status (unsupported media type, not acceptable...)."""

    def __init__(self, name: str, status: int, message: str) -> None:
        self.name = name
        self.status = status
        super().__init__(message)


class MethodNotAllowed(ServiceError):
    """A method the view does not take, named as DRF's handler names it. ``allowed``, when given,
    is the Allow header (DRF's views add theirs themselves)."""

    name = "MethodNotAllowedError"
    status = 405

    def __init__(self, message: str, allowed: Sequence[str] = ()) -> None:
        self.allowed = tuple(allowed)
        super().__init__(message)

    @classmethod
    def of(cls, method: str | None, allowed: Sequence[str]) -> MethodNotAllowed:
        """A view outside DRF refusing ``method``: worded as DRF words it (its translated
        'Method "X" not allowed.'), so that every 405 of the service reads the same."""
        return cls(str(drf.MethodNotAllowed(method or "").detail), allowed)


def _flatten_drf_detail(detail: Any, prefix: str = "") -> list[FieldError]:
    """Turn DRF's nested error detail into dotted-path field errors."""
    if isinstance(detail, dict):
        out: list[FieldError] = []
        for key, value in detail.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            if key == "non_field_errors":
                path = prefix
            out.extend(_flatten_drf_detail(value, path))
        return out
    if isinstance(detail, list):
        if all(not isinstance(item, dict | list) for item in detail):
            return [FieldError(property=prefix, message=str(item)) for item in detail]
        out = []
        for index, item in enumerate(detail):
            out.extend(_flatten_drf_detail(item, f"{prefix}.{index}" if prefix else str(index)))
        return out
    return [FieldError(property=prefix, message=str(detail))]


def to_service_error(exc: Exception) -> ServiceError | None:
    """Map framework exceptions onto domain errors; None for anything unexpected."""
    if isinstance(exc, ServiceError):
        return exc
    if isinstance(exc, drf.NotAuthenticated | drf.AuthenticationFailed):
        return AuthorizationError()
    if isinstance(exc, drf.Throttled):
        return RateLimited(retry_after_seconds=max(1, math.ceil(exc.wait or 1)))
    if isinstance(exc, Http404 | drf.NotFound):
        return NotFound()
    if isinstance(exc, drf.ValidationError):
        return ValidationFailed(_flatten_drf_detail(exc.detail))
    if isinstance(exc, drf.ParseError):
        return ValidationFailed([FieldError(property="", message=str(exc.detail))])
    if isinstance(exc, RequestDataTooBig):
        return RequestTooLarge()
    if isinstance(exc, TooManyFieldsSent | TooManyFilesSent):
        return RequestTooLarge("Too many parts in the multipart body.")
    if isinstance(exc, drf.MethodNotAllowed):
        return MethodNotAllowed(str(exc.detail))
    if isinstance(exc, drf.UnsupportedMediaType):
        return _Simple(
            "UnsupportedMediaTypeError",
            415,
            f"{exc.detail} Send JSON (Content-Type: application/json), or multipart/form-data "
            "where the operation takes files.",
        )
    if isinstance(exc, drf.NotAcceptable):
        return _Simple("NotAcceptableError", 406, str(exc.detail))
    if isinstance(exc, PermissionDenied | drf.PermissionDenied):
        # Tenancy is enforced by scoping lookups; a permission failure must not confirm existence.
        return NotFound()
    if isinstance(exc, drf.APIException):
        return _Simple(type(exc).__name__, exc.status_code, str(exc.detail))
    return None


def error_headers(error: ServiceError, *, challenge: str = API_CHALLENGE) -> dict[str, str]:
    """The headers an error's answer carries, whatever its body (MCP's is JSON-RPC's)."""
    headers = {}
    wait = getattr(error, "retry_after_seconds", None)
    if wait is not None:  # RateLimited, ServiceBusy, a key still being processed...
        # Clients parse this as an integer number of seconds (python-anvil crashes on "0.5").
        headers["Retry-After"] = str(int(wait))
    if isinstance(error, AuthorizationError):
        headers["WWW-Authenticate"] = challenge
    if isinstance(error, MethodNotAllowed) and error.allowed:
        headers["Allow"] = ", ".join(error.allowed)
    return headers


def error_response(
    error: ServiceError,
    response_class: Callable[..., HttpResponse] = JsonResponse,
    *,
    challenge: str = API_CHALLENGE,
) -> HttpResponse:
    """``error`` in the wire shape, with its status and headers. DRF's views pass DRF's
    ``Response`` (rendered by the API's renderer, as every API answer); the others take the
    default, a ``JsonResponse``."""
    return response_class(
        error.as_wire(), status=error.status, headers=error_headers(error, challenge=challenge)
    )


def internal_error_body() -> dict[str, str]:
    return {
        "name": "InternalServerError",
        "message": f"An unexpected error occurred (request {current_request_id()}).",
    }


def log_unexpected(exc: BaseException) -> None:
    """Log an unexpected exception by type and stack frames only.

    Exception messages can quote request data (a bad value, a path); the frames are source code.
    """
    frames = "".join(traceback.format_tb(exc.__traceback__))
    logger.error("unhandled %s\n%s", type(exc).__name__, frames)


def exception_handler(exc: Exception, context: dict[str, Any]) -> HttpResponse:
    error = to_service_error(exc)
    if error is not None:
        return error_response(error, Response)
    log_unexpected(exc)
    return Response(internal_error_body(), status=500)
