"""What every embedded builder page and endpoint shares: the token from the URL's path, the
framing policy (the organization's embedding origins, accounts.embedding), and the page shown
for a link that opens nothing."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation
from django.utils.translation import gettext
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt

from accounts.embedding import allow_framing_by, allow_framing_by_anyone, embed_origins
from builders.models import EmbedToken
from core.api_errors import error_response
from core.errors import ServiceError

View = Callable[..., HttpResponse]


def framed(response: HttpResponse, row: EmbedToken) -> HttpResponse:
    """Only the organization's embedding origins (and the service) may frame a builder; its
    link's secret never leaves in a Referer."""
    allow_framing_by(response, embed_origins(row.organization))
    response["Referrer-Policy"] = "same-origin"
    return response


def english_builder_page(
    request: HttpRequest, row: EmbedToken, template_name: str, context: dict[str, Any], title: str
) -> HttpResponse:
    """A builder's page for its link ``row``: titled as the link asks (else ``title``), with
    what the link permits, in English, framed as a builder is."""
    context = {
        **context,
        "page_title": row.options.get("pageTitle") or title,
        "can_edit": "edit" in row.permissions,
        "can_publish": "publish" in row.permissions,
    }
    # Its scripts' words have no catalogue yet: the page says it is English, so that a screen
    # reader reads it as English (a page marked lang="de" in English is read with German rules).
    with translation.override(settings.LANGUAGE_CODE):
        response = render(request, template_name, context)
    response["Content-Language"] = settings.LANGUAGE_CODE
    return framed(response, row)


def embed_ids(row: EmbedToken) -> dict[str, Any]:
    """What every event of the builder carries besides its own keys."""
    return {"requestTokenEid": row.eid, "organizationEid": row.organization.eid}


def unusable_page(request: HttpRequest, error: ServiceError) -> HttpResponse:
    """A link that opens nothing (expired, revoked, unknown): a page any parent may frame, which
    tells it ``{action: "embedError", errorType, message}``: nothing secret, so that an
    integrator is not left with a blank frame."""
    event = {"action": "embedError", "errorType": error.name, "message": error.message}
    response = render(
        request,
        "builders/unusable.html",
        {"title": gettext("This link cannot be used"), "message": error.message, "event": event},
        status=error.status,
    )
    allow_framing_by_anyone(response)
    response["Referrer-Policy"] = "no-referrer"
    return response


def builder_endpoint(view: View) -> View:
    """A builder's JSON endpoint: no cookie, no CSRF token (the link's secret in the path is
    the credential, which a forging page does not have); framing rules as the page's;
    errors in the wire shape."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            response = view(request, *args, **kwargs)
        except ServiceError as error:
            response = error_response(error)
        response["Cache-Control"] = "no-store"
        response["Referrer-Policy"] = "same-origin"
        return response

    return csrf_exempt(xframe_options_exempt(wrapped))
