"""The page a generateEmbedURL link opens: /embed/<type>/<token>/, the builder of the token's
type (template_views, packet_views), or a page saying the link cannot be used."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.clickjacking import xframe_options_exempt

from builders import packet_views, template_views, workflow_views
from builders.framing import unusable_page
from builders.models import EmbedToken
from builders.tokens import embed_token_open
from core.errors import ServiceError

PAGES = {
    EmbedToken.EmbedType.PDF_TEMPLATE: template_views.editor_page,
    EmbedToken.EmbedType.ETCH_PACKET: packet_views.builder_page,
    EmbedToken.EmbedType.WORKFLOW: workflow_views.builder_page,
}


@xframe_options_exempt  # framing is governed by the CSP frame-ancestors of builders.framing
def builder_page(request: HttpRequest, embed_type: str, token: str) -> HttpResponse:
    # A token that opens nothing, or whose object is gone since (a template deleted): the page
    # that says so, to the frame's parent too.
    try:
        row = embed_token_open(token=token, embed_type=embed_type)
        return PAGES[EmbedToken.EmbedType(row.embed_type)](request, row, token)
    except ServiceError as error:
        return unusable_page(request, error)
