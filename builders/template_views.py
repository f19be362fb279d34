"""The embedded PDF template editor (``edit-pdf-template``): the admin's visual editor
(templates_app.editor: the same page body, scripts and endpoints) on a link's token instead of
a staff login, without the admin around it, framed by the organization's embedding origins.

The token opens one template of its organization; reading it (and its filled preview, fill's)
needs nothing more, saving needs ``edit`` and publishing ``publish`` (builders.tokens.require).
The editor posts ``castEdit``, ``castPublish`` and ``castError`` to the embedding page
(editor.js, ``embed``)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_GET

from accounts.embedding import embed_origins
from builders.framing import builder_endpoint, embed_ids, english_builder_page
from builders.models import EmbedToken
from builders.tokens import embed_token_open, require
from fill import admin as fill_admin
from templates_app import editor
from templates_app.models import PdfTemplate
from templates_app.services import template_get

TYPE = EmbedToken.EmbedType.PDF_TEMPLATE


def opened(token: str, action: str | None = None) -> tuple[EmbedToken, PdfTemplate]:
    """The token's row and its template (NotFound when the token opens nothing; EmbedForbidden
    when it does not grant ``action``)."""
    row = embed_token_open(token=token, embed_type=TYPE)
    if action is not None:
        require(row, action)
    return row, template_get(organization=row.organization, eid=row.object_eid)


@require_GET
def editor_page(request: HttpRequest, row: EmbedToken, token: str) -> HttpResponse:
    template = template_get(organization=row.organization, eid=row.object_eid)
    urls = {
        name: reverse(f"builders-template-{name}", args=[token])
        for name in ("spec", "pdf", "publish", "detect", "preview")
    }
    config = editor.editor_config(template, {**urls, "change": ""})
    config["embed"] = {"origins": embed_origins(row.organization), "ids": embed_ids(row)}
    context = {"original": template, "editor_config": config}
    return english_builder_page(request, row, "builders/editor.html", context, template.title)


@builder_endpoint
def editor_pdf(request: HttpRequest, token: str) -> HttpResponse:
    return editor.editor_pdf(request, opened(token)[1])


@builder_endpoint
def editor_spec(request: HttpRequest, token: str) -> HttpResponse:
    _row, template = opened(token, "edit" if request.method == "POST" else None)
    # json_view (core.json_views) reads the body and passes it: the view is called without it.
    return editor.editor_spec(request, template)  # type: ignore[call-arg]


@builder_endpoint
def editor_publish(request: HttpRequest, token: str) -> HttpResponse:
    return editor.editor_publish(request, opened(token, "publish")[1])


@builder_endpoint
def editor_preview(request: HttpRequest, token: str) -> HttpResponse:
    """The working version filled (fill's own preview, which the admin's editor uses): it
    changes nothing, so any token of the template may ask."""
    return fill_admin.editor_preview(request, opened(token)[1])  # type: ignore[call-arg]


@builder_endpoint
def editor_detect(request: HttpRequest, token: str) -> HttpResponse:
    return editor.editor_detect(request, opened(token, "edit")[1])  # type: ignore[call-arg]
