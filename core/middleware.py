"""Request id tagging and the rate-limit headers every API response carries."""

from __future__ import annotations

import re
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.middleware.locale import LocaleMiddleware
from django.utils import translation

from core.eids import random_base62
from core.importmap import import_map_csp_source
from core.logging import reset_request_id, set_request_id

_SAFE_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{8,64}$")

# Pages for people, not API responses: they carry no rate-limit headers.
_NON_API_PREFIXES = ("/admin/", "/static/", "/media/")


class RequestIdMiddleware:
    """Give each request an id (or keep a well-formed X-Request-Id) for logs and the response."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        incoming = request.headers.get("X-Request-Id", "")
        request_id = incoming if _SAFE_REQUEST_ID.match(incoming) else random_base62(16)
        request.request_id = request_id  # type: ignore[attr-defined]
        token = set_request_id(request_id)
        try:
            response = self.get_response(request)
        finally:
            reset_request_id(token)
        response["X-Request-Id"] = request_id
        return response


class RateLimitHeadersMiddleware:
    """Send X-RateLimit-Limit and X-RateLimit-Interval-Ms on every API response, errors included.

    The Node client configures its throttle from the first response it sees. The limit is the
    authenticated key's (recorded by the throttle); before authentication, the development limit.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.path.startswith(_NON_API_PREFIXES):
            return response
        limit = getattr(request, "rate_limit", None) or settings.RATE_LIMIT_DEVELOPMENT
        response.setdefault("X-RateLimit-Limit", str(limit))
        response.setdefault("X-RateLimit-Interval-Ms", str(settings.RATE_LIMIT_INTERVAL_MS))
        return response


# Scripts only from this service's own files: no inline script (but the import map, by its hash:
# core.importmap), no eval, no plug-ins, and no <base> that would move relative script URLs
# elsewhere. Styles are not restricted (the pages' templates set a few inline styles, which
# cannot run code).
def script_policy() -> dict[str, str]:
    return {
        "script-src": f"'self' {import_map_csp_source()}",
        "object-src": "'none'",
        "base-uri": "'self'",
    }


class ContentSecurityPolicyMiddleware:
    """Add ``script_policy()`` to the Content-Security-Policy of every HTML page.

    A page that sets its own policy (``frame-ancestors`` of the embedding origins, see
    accounts.embedding) keeps its directives; the missing ones are added to it.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not response.get("Content-Type", "").startswith("text/html"):
            return response
        policy = response.get("Content-Security-Policy", "")
        present = {part.split()[0] for part in policy.split(";") if part.strip()}
        added = [
            f"{name} {value}" for name, value in script_policy().items() if name not in present
        ]
        response["Content-Security-Policy"] = "; ".join(
            [part.strip() for part in policy.split(";") if part.strip()] + added
        )
        return response


# The paths the API clients call: REST, GraphQL, and a workflow's documents (/download/...).
API_PREFIXES = ("/api/", "/graphql", "/download/")


def is_api_request(request: HttpRequest) -> bool:
    """A request of the API's clients: the API_PREFIXES, and GraphQL POSTed to /.

    They get the API's language and, for what Django refuses before any view (a Host not in
    ALLOWED_HOSTS), the wire shape (``core.views.bad_request``)."""
    path = request.path
    return path.startswith(API_PREFIXES) or (path == "/" and request.method == "POST")


class PageLanguageMiddleware(LocaleMiddleware):
    """Pages for people in their browser's language (Accept-Language, among settings.LANGUAGES).

    The API keeps one language: its messages are part of the wire contract the published clients
    and integrators' code match on, whatever language the calling machine happens to have. A page
    that knows better (a packet or signer given a ``language``) overrides it in its view.
    """

    def process_request(self, request: HttpRequest) -> None:
        if is_api_request(request):
            translation.activate(settings.LANGUAGE_CODE)
            request.LANGUAGE_CODE = settings.LANGUAGE_CODE  # type: ignore[attr-defined]
            return
        chosen = request.GET.get("lang", "").strip().lower()
        if chosen in {code for code, _name in settings.LANGUAGES}:
            # The page's language menu: the reader's choice wins over their browser's, and the
            # cookie keeps it for the next pages (Django's LocaleMiddleware reads it).
            translation.activate(chosen)
            request.LANGUAGE_CODE = chosen  # type: ignore[attr-defined]
            request.language_chosen = chosen  # type: ignore[attr-defined]
            return
        super().process_request(request)

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if is_api_request(request):
            return response
        chosen = getattr(request, "language_chosen", "")
        if chosen:
            response.set_cookie(
                settings.LANGUAGE_COOKIE_NAME,
                chosen,
                max_age=365 * 24 * 3600,
                samesite="Lax",
                secure=request.is_secure(),
                httponly=True,
            )
        return super().process_response(request, response)
