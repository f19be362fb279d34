"""The signer's documents: a document of the packet as a PDF and its pages as pictures, by the
signing link's token (or, for the PDF, the completion page's key), and the signer's lasting copy
once the packet is sealed (the zip of the email's link, and each document of it), by its key.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from core.api_errors import error_response
from core.errors import NotFound, ServiceError
from core.responses import file_response
from esign.engine.errors import PageUnavailable
from esign.engine.pages import page_width
from esign.links.tokens import SigningRefused, signer_from_token, signer_of_done_key
from esign.models import Signer
from esign.packets.documents import document_as_given, document_filename, signer_of_copy_link
from esign.packets.languages import in_language, page_language_activate
from esign.sealing.downloads import document_group_archive
from esign.signing.page_pictures import page_picture
from esign.signing.views import TOKEN_HEADER, _refused


@require_GET
def signing_document(request: HttpRequest, signer_eid: str, alias_id: str) -> HttpResponse:
    """A document of the signer's packet, by the link's token, or by the completion page's key
    (esign.signing.link_views.signing_done) once the signer finished."""
    token = request.META.get(TOKEN_HEADER) or request.GET.get("token", "")
    finished = request.GET.get("key") and not token
    try:
        if finished:
            signer = signer_of_done_key(signer_eid=signer_eid, key=request.GET.get("key", ""))
            if signer is None:
                raise SigningRefused("tokenInvalid", "This link is not valid.")
        else:
            signer = signer_from_token(signer_eid=signer_eid, token=token)
    except SigningRefused as refused:
        return _refused(refused)
    document = signer.packet.documents.filter(alias_id=alias_id).first()
    if document is None:
        return error_response(NotFound("No such document."))
    response = file_response(
        document_as_given(document, signer.packet),
        filename=document_filename(document),
        content_type="application/pdf",
        attachment=request.GET.get("download") == "1",
    )
    response["Cache-Control"] = "no-store"
    return response


@require_GET
def signing_page_image(
    request: HttpRequest, signer_eid: str, alias_id: str, page: int
) -> HttpResponse:
    """A page of a document as a picture (WebP), ``w`` pixels wide (rounded up to one of
    PAGE_WIDTHS), for the signer whose link ``token`` is."""
    token = request.META.get(TOKEN_HEADER) or request.GET.get("token", "")
    try:
        signer = signer_from_token(signer_eid=signer_eid, token=token)
    except SigningRefused as refused:
        return _refused(refused)
    document = signer.packet.documents.filter(alias_id=alias_id).first()
    try:
        width = page_width(int(request.GET.get("w", "800")))
        if document is None:
            raise PageUnavailable("No such document.")
        image = page_picture(
            path=document.current_path, sha256=document.current_sha256, page=page, width=width
        )
    except (ValueError, PageUnavailable):
        return error_response(NotFound("No such page."))
    response = HttpResponse(image, content_type="image/webp")
    # The URL names the document's version: a page signed since has another URL.
    response["Cache-Control"] = "private, max-age=86400"
    return response


@require_GET
def signer_copy(request: HttpRequest, signer_eid: str) -> HttpResponse:
    """The link of the email a signer gets once the packet is sealed: the zip of its sealed
    documents and audit trail, as the integrator downloads it."""
    signer = signer_of_copy_link(signer_eid=signer_eid, key=request.GET.get("key", ""))
    language = page_language_activate(request, signer)
    if signer is None:
        response = HttpResponse(
            _("This link is not valid, or it has expired. Ask the sender for a copy."),
            status=404,
            content_type="text/plain; charset=utf-8",
        )
        return in_language(response, language)
    packet = signer.packet
    try:
        archive = document_group_archive(
            organization=packet.organization, group_eid=packet.document_group.eid, signer=signer
        )
    except ServiceError as error:
        return HttpResponse(error.message, status=error.status, content_type="text/plain")
    response = file_response(
        archive.data, filename=f"{archive.filename}.zip", content_type="application/zip"
    )
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"
    return response


@require_GET
def signer_copy_document(request: HttpRequest, signer_eid: str, alias_id: str) -> HttpResponse:
    """One document of a signer's lasting copy (esign.packets.documents), shown as a PDF: the key of
    the copy link, for a signer who signed."""
    signer = signer_of_copy_link(signer_eid=signer_eid, key=request.GET.get("key", ""))
    language = page_language_activate(request, signer)
    document = None
    if signer is not None and signer.status == Signer.Status.COMPLETED:
        document = signer.packet.documents.filter(alias_id=alias_id).first()
    if signer is None or document is None:
        response = HttpResponse(
            _("This link is not valid, or it has expired. Ask the sender for a copy."),
            status=404,
            content_type="text/plain; charset=utf-8",
        )
        return in_language(response, language)
    response = file_response(
        document_as_given(document, signer.packet),
        filename=document_filename(document),
        content_type="application/pdf",
        attachment=False,
    )
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"
    return response
