"""The embedded webform builder (``edit-workflow``): the admin's webform builder
(workflows.builder, through its face workflows.embedded: the same page body, scripts and
services) on a link's token, without the admin around it, framed by the organization's
embedding origins.

The token opens one workflow of its organization and one of its webforms (``options.forgeEid``,
else the first); reading needs nothing more, saving needs ``edit``, publishing ``publish``. The
live preview's draft, which the admin keeps in the session, is kept on the token's row (an
iframe has no third-party cookies), which every web process reads. The builder
posts ``weldEdit``, ``weldPublish`` and ``weldError`` to the embedding page (builder.js)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.views.decorators.http import require_GET

from accounts.embedding import embed_origins
from builders.framing import builder_endpoint, embed_ids, english_builder_page, framed
from builders.models import EmbedToken
from builders.tokens import embed_token_open, require
from core.errors import ValidationFailed
from core.json_views import json_view
from workflows import embedded
from workflows.models import Webform

TYPE = EmbedToken.EmbedType.WORKFLOW


def _webform(row: EmbedToken) -> Webform:
    return embedded.webform_of(
        organization=row.organization,
        workflow_eid=row.object_eid,
        webform_eid=row.options.get("forgeEid") or "",
    )


def opened(token: str, action: str | None = None) -> tuple[EmbedToken, Webform]:
    row = embed_token_open(token=token, embed_type=TYPE)
    if action is not None:
        require(row, action)
    return row, _webform(row)


def _keep_draft(row: EmbedToken, drafted: dict[str, Any] | None) -> None:
    EmbedToken.objects.filter(pk=row.pk).update(draft=drafted)


@require_GET
def builder_page(request: HttpRequest, row: EmbedToken, token: str) -> HttpResponse:
    webform = _webform(row)
    _keep_draft(row, None)  # a draft of an earlier visit is not what the page starts with
    urls = {
        name: reverse(f"builders-workflow-{name}", args=[token])
        for name in ("definition", "draft", "preview", "publish")
    }
    ids = {**embed_ids(row), "weldEid": webform.workflow.eid, "forgeEid": webform.eid}
    config = {
        "urls": urls,
        "slug": webform.slug,
        "catalogue": embedded.catalogue_json(),
        "embed": {"origins": embed_origins(row.organization), "ids": ids},
    }
    context = {"original": webform, "builder_config": config}
    return english_builder_page(request, row, "builders/workflow.html", context, webform.name)


@builder_endpoint
def definition(request: HttpRequest, token: str) -> HttpResponse:
    row, webform = opened(token, "edit" if request.method == "POST" else None)
    # json_view (core.json_views) reads the body and passes it: the view is called without it.
    return _definition(request, webform=webform, row=row)  # type: ignore[call-arg]


@json_view(methods=("GET", "POST"), prefix="body")
def _definition(
    request: HttpRequest, body: dict[str, Any], *, webform: Webform, row: EmbedToken
) -> JsonResponse:
    if request.method == "POST":
        embedded.webform_build(webform=webform, data=body.get("webform"))
        _keep_draft(row, None)
        webform.refresh_from_db()
    return JsonResponse(embedded.builder_state(webform))


@builder_endpoint
def draft(request: HttpRequest, token: str) -> HttpResponse:
    row, _webform_row = opened(token, "edit")
    return _draft(request, row=row)  # type: ignore[call-arg]


@json_view(prefix="body")
def _draft(request: HttpRequest, body: dict[str, Any], *, row: EmbedToken) -> HttpResponse:
    drafted = body.get("webform")
    if not isinstance(drafted, dict):
        raise ValidationFailed.single("webform", "Required: the webform as drafted.")
    _keep_draft(row, drafted)
    return HttpResponse(status=204)


@builder_endpoint
def preview(request: HttpRequest, token: str) -> HttpResponse:
    """The previewed page, framed by the builder's page, itself in the integrator's: both."""
    row, webform = opened(token)
    response = embedded.webform_preview(request, webform, row.draft)
    return framed(response, row)


@builder_endpoint
def publish(request: HttpRequest, token: str) -> HttpResponse:
    _row, webform = opened(token, "publish")
    return _publish(request, webform=webform)


@json_view(prefix="body")
def _publish(request: HttpRequest, *, webform: Webform) -> JsonResponse:
    version = embedded.workflow_publish(workflow=webform.workflow)
    return JsonResponse({"version": version.number})
