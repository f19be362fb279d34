"""One way in for the JSON views that are not DRF's: the editors' endpoints in the admin (template
editor, webform builder) and the signing page's actions.

``json_view`` answers a method the view does not take with DRF's 405 (``MethodNotAllowedError``,
an Allow header), reads a body of a method that has one as a JSON object within a size cap (a
larger ``Content-Length`` refused before anything is read), and renders every ``ServiceError``
the view raises by the one renderer of the API's errors (``core.api_errors.error_response``): the
wire shape (``{"name", "message"}`` or ``{"name": "ValidationError", "fields": [...]}``) with its
status and headers.
The view receives the object as its ``body`` keyword when it declares one.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from core.api_errors import MethodNotAllowed, error_response
from core.errors import RequestTooLarge, ServiceError, ValidationFailed
from core.parsers import check_json_value, too_deep
from core.uploads import check_declared_size, size_text

View = TypeVar("View", bound=Callable[..., HttpResponse])
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


def json_object(request: HttpRequest, *, limit: int, prefix: str = "") -> dict[str, Any]:
    """The request's body as a JSON object of at most ``limit`` bytes, nested no deeper than the
    API allows and holding only text (``core.parsers.check_json_value``); errors name the
    property under ``prefix``."""
    message = f"The request is larger than the limit of {size_text(limit)}."
    check_declared_size(request, limit=limit, message=message)
    if len(request.body) > limit:
        raise RequestTooLarge(message)
    try:
        body = json.loads(request.body or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise ValidationFailed.single(prefix, "The body is not valid JSON.") from None
    except RecursionError:
        raise ValidationFailed.single(prefix, too_deep(settings.API_JSON_MAX_DEPTH)) from None
    check_json_value(body, max_depth=settings.API_JSON_MAX_DEPTH, prefix=prefix)
    if not isinstance(body, dict):
        raise ValidationFailed.single(prefix, "The body must be a JSON object.")
    return body


def json_view(
    *,
    methods: tuple[str, ...] = ("POST",),
    limit_setting: str = "API_JSON_BODY_LIMIT",
    prefix: str = "",
) -> Callable[[View], View]:
    """Decorate a view answering JSON: ``methods`` it takes (others: 405), the setting naming the
    body's size cap, and the property its body's errors are named under (the admin's editors
    say ``body``; the signing page's actions name the key itself)."""

    def decorate(view: View) -> View:
        # The function itself: a wrapper (functools.wraps) names what it takes, not what it wraps.
        wants_body = "body" in inspect.signature(view, follow_wrapped=False).parameters

        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.method not in methods:
                return error_response(MethodNotAllowed.of(request.method, methods))
            try:
                if wants_body:
                    kwargs["body"] = (
                        json_object(request, limit=getattr(settings, limit_setting), prefix=prefix)
                        if request.method in BODY_METHODS
                        else {}
                    )
                return view(request, *args, **kwargs)
            except ServiceError as error:
                return error_response(error)

        return wrapped  # type: ignore[return-value]

    return decorate
