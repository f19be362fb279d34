"""What a webform page posts: read within its size cap (never to a temporary file), and its
inputs, an uploaded image made small enough for its field (workflows.pages.images)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from django.http.multipartparser import MultiPartParserError
from django.utils.translation import gettext

from core.errors import RequestTooLarge, ValidationFailed
from core.uploads import (
    check_declared_size,
    in_memory_upload_handlers,
    size_text,
    upload_exceeded,
)
from workflows.engine.definition import WebformDef, WorkflowDef
from workflows.engine.rules import IMAGE_TYPES, IMAGE_UPLOAD_REFUSED
from workflows.pages.images import uploaded_image_value


def post_cap(definition: WorkflowDef) -> int:
    """The largest post a page of ``definition`` may send: its fields, plus one image file for
    each image field of the page that has the most."""
    images = max(
        (
            sum(1 for f in page.fields if f.type == "imageFile")
            for webform in definition.webforms
            for page in webform.pages
        ),
        default=0,
    )
    return settings.WEBFORM_FIELDS_MAX_BYTES + images * settings.WEBFORM_IMAGE_UPLOAD_MAX_BYTES


def read_post(request: HttpRequest, definition: WorkflowDef | None) -> tuple[int, str] | None:
    """Read a page's post within its cap; the status and message of a refusal, else None.
    Runs before anything reads ``request.POST`` (the body is parsed once, on first use)."""
    limit = post_cap(definition) if definition is not None else settings.WEBFORM_FIELDS_MAX_BYTES
    too_large = gettext(
        "What was sent is larger than this form takes (%(all)s in all, %(image)s for an image), "
        "so nothing was saved. Choose a smaller image and send the page again."
    ) % {"all": size_text(limit), "image": size_text(settings.WEBFORM_IMAGE_UPLOAD_MAX_BYTES)}
    try:
        check_declared_size(request, limit=limit, message=too_large)
    except RequestTooLarge as error:
        return error.status, error.message
    request.upload_handlers = in_memory_upload_handlers(
        request, file_limit=settings.WEBFORM_IMAGE_UPLOAD_MAX_BYTES
    )
    try:
        if upload_exceeded(request):
            return RequestTooLarge.status, too_large
    except MultiPartParserError:
        return ValidationFailed.status, gettext("The page could not be read. Send it again.")
    return None


def posted_values(
    request: HttpRequest, webform: WebformDef, page_index: int
) -> dict[str, str | None]:
    """The page's inputs; an uploaded image becomes the data: URL the image field holds (its
    bytes are checked by the image rule to be the image its type claims)."""
    values: dict[str, str | None] = {k: request.POST.get(k) for k in request.POST}
    for definition in webform.pages[page_index].fields:
        if definition.type != "imageFile":
            continue
        upload = request.FILES.get(f"{definition.key}.file")
        if upload is None:
            continue
        mime = (upload.content_type or "").lower()
        if mime not in IMAGE_TYPES:
            values[definition.key] = IMAGE_UPLOAD_REFUSED  # the image rule says why
            continue
        # A phone's photo is made small enough here (the page's script did it already where
        # it could), in an image worker; the reading stopped at WEBFORM_IMAGE_UPLOAD_MAX_BYTES
        # (read_post).
        values[definition.key] = uploaded_image_value(upload.read(), mime)
    return values
