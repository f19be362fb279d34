"""Pages for people at the API's own addresses: the start page at ``/`` and the way a path is
shared between a page (GET from a browser) and the API (everything else).

``/`` and ``/graphql`` are GraphQL endpoints the published clients POST to; a browser that opens
them gets a page instead (the start page, GraphiQL), so nobody meets the API's 401 and its
``WWW-Authenticate: Basic`` login prompt. A GET that carries an Authorization header is an API
client, and gets the API's answer as before.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt

View = Callable[..., HttpResponse]


def page_or_api(*, page: View, api: View, browsers_only: bool = False) -> View:
    """One view for a path that is both a page and an API endpoint.

    GET and HEAD without an Authorization header go to ``page`` (with ``browsers_only``, only
    when the client accepts HTML); every other request goes to ``api`` unchanged. CSRF is
    exempt because ``api`` is (DRF views authenticate with API keys, not cookies); ``page``
    only reads.
    """

    @csrf_exempt
    def view(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        if (
            request.method in ("GET", "HEAD")
            and "HTTP_AUTHORIZATION" not in request.META
            and (not browsers_only or "text/html" in request.headers.get("Accept", ""))
        ):
            return page(request, *args, **kwargs)
        return api(request, *args, **kwargs)

    return view


def start_page(request: HttpRequest) -> HttpResponse:
    """What the service is and where to go next: admin, settings, API reference, GraphiQL,
    verification, health."""
    # The address links are built from; a page opened at another one says so, since the links
    # the service hands out (signing, downloads, webhooks) would not lead back here.
    opened_at = request.build_absolute_uri("/").rstrip("/")
    context = {
        "base_url": settings.PUBLIC_BASE_URL,
        "opened_at": opened_at if opened_at != settings.PUBLIC_BASE_URL else "",
        "links": [
            {
                "href": reverse("admin:index"),
                "title": "Admin",
                "text": "PDF templates with their visual editor, workflows, signature packets "
                "and organizations.",
            },
            {
                "href": reverse("settings:index"),
                "title": "Settings",
                "text": "Your organization's API keys, webhooks and payload keys (members).",
            },
            {
                "href": reverse("api-docs"),
                "title": "API reference",
                "text": "The REST endpoints (fill, generate), their bodies, errors and limits.",
                "extra": {"href": reverse("openapi-schema"), "text": "OpenAPI 3 (JSON)"},
            },
            {
                "href": reverse("graphql"),
                "title": "GraphiQL",
                "text": "Explore and run GraphQL queries (for signed-in members).",
                "extra": {"href": reverse("graphql-sdl"), "text": "Schema (SDL)"},
            },
            {
                "href": reverse("pdf-verify"),
                "title": "Verify a signed PDF",
                "text": "Are a PDF's signatures intact and trusted, and did this service seal it?",
            },
            {
                "href": reverse("healthz"),
                "title": "Health check",
                "text": "Is the service up and its database reachable?",
            },
        ],
    }
    return render(request, "core/start.html", context)
