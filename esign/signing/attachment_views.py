"""The signing page's attachments: attaching a file to an attachment field, removing it.

``POST /api/etch/sign/<signer eid>/attachments`` (multipart: ``fieldId``, ``file``) and
``.../attachments/remove`` (JSON ``{fieldId}``), with the link's token in ``X-Signing-Token``
like the page's other requests. A body larger than ESIGN_ATTACHMENT_MAX_BYTES (and a little for
the form) is refused (413) before it is read; the file is read into memory only, stopped past
the cap. Refusals are the wire's problem shape, in the signer's language.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _

from core.errors import RequestTooLarge, ValidationFailed
from core.parsers import decode_json
from core.uploads import (
    check_declared_size,
    in_memory_upload_handlers,
    size_text,
    upload_exceeded,
)
from esign.models import Signer
from esign.signing.attachments import attachment_add, attachment_remove, signer_attachments
from esign.signing.views import _client, signer_post

# What a multipart body carries besides the file: its boundaries, headers and the field id.
FORM_OVERHEAD_BYTES = 64 * 1024


def _answer(signer: Signer) -> JsonResponse:
    return JsonResponse({"attachments": signer_attachments(signer)})


@signer_post
def attachment_upload(request: HttpRequest, signer: Signer) -> HttpResponse:
    limit = int(settings.ESIGN_ATTACHMENT_MAX_BYTES)
    too_large = _("The file is larger than the limit of {size}.").format(size=size_text(limit))
    check_declared_size(request, limit=limit + FORM_OVERHEAD_BYTES, message=too_large)
    request.upload_handlers = in_memory_upload_handlers(request, file_limit=limit)
    if upload_exceeded(request):
        raise RequestTooLarge(too_large)
    upload = request.FILES.get("file")
    field_id = request.POST.get("fieldId", "")
    if upload is None:
        raise ValidationFailed.single("file", _("Choose a file to attach."))
    attachment_add(
        signer=signer,
        field_id=field_id,
        filename=upload.name or "",
        data=upload.read(),
        client=_client(request),
    )
    return _answer(signer)


@signer_post
def attachment_delete(request: HttpRequest, signer: Signer) -> HttpResponse:
    check_declared_size(request, limit=4096, message=_("The request is too large."))
    body = decode_json(request.body or b"{}")
    field_id = body.get("fieldId") if isinstance(body, dict) else None
    if not isinstance(field_id, str):
        raise ValidationFailed.single("fieldId", "Required")
    attachment_remove(signer=signer, field_id=field_id, client=_client(request))
    return _answer(signer)
