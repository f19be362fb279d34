"""The embedded packet builder (``edit-etch-packet``): documents (the templates the token names,
or PDFs and Word files uploaded), fields placed on their pages, signers and their routing order,
then one POST that creates the packet through createEtchPacket's own code
(esign.packets.parse_packet_input, then esign.sending.packet_create), as the token's
organization, a test packet when the token came from a development key.

The token opens the organization (its eid is the organization's); it may use only the templates
it names (``options.castEids``); ``send`` sends the packet, ``edit`` alone saves it as a draft;
it makes one packet (a second send is a Conflict).
The page posts ``etchPacketSent`` (or ``etchPacketSaved`` for a draft) and ``etchPacketError``
to the embedding page (static/builders/packet.js)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_GET

from accounts.embedding import embed_origins
from builders.framing import builder_endpoint, embed_ids, framed
from builders.models import EmbedToken
from builders.tokens import EmbedForbidden, embed_token_open, require
from core.api_errors import MethodNotAllowed
from core.engine.field_types import field_types_json
from core.errors import Conflict, ValidationFailed
from core.json_views import json_object
from core.responses import file_response
from esign.models import Packet
from esign.packets import parse_packet_input
from esign.sending import packet_create
from templates_app import services
from templates_app.models import PdfTemplate

TYPE = EmbedToken.EmbedType.ETCH_PACKET
# What the builder places on a page: the hosted API's signer field types, with their size in
# points when placed (the signing types' sizes are the editor's, core.engine.field_types).
PLACED_TYPES = {
    "signature": (gettext_lazy("Signature"), (180, 36)),
    "initial": (gettext_lazy("Initials"), (48, 28)),
    "signatureDate": (gettext_lazy("Date signed"), (90, 18)),
    "fullName": (gettext_lazy("Signer name"), (160, 18)),
    "text": (gettext_lazy("Text"), (160, 18)),
    "date": (gettext_lazy("Date"), (90, 18)),
    "checkbox": (gettext_lazy("Checkbox"), (14, 14)),
}
PENDING = "pending"
# The keys of a builder's request that reach createEtchPacket; anything else is refused.
FILE_KEYS = frozenset({"id", "title", "castEid", "file", "fields"})
SIGNER_KEYS = frozenset({"id", "name", "email", "signerType", "routingOrder", "fields"})


def _opened(token: str) -> EmbedToken:
    return embed_token_open(token=token, embed_type=TYPE)


def strings() -> dict[str, str]:
    """The script's sentences, in the reader's language (packet.js has no copy)."""
    return {
        "signer": gettext("Signer %(n)s"),
        "document": gettext("Document %(n)s"),
        "page": gettext("Page %(n)s"),
        "placeHint": gettext("Tap or click a page to place a %(type)s for %(signer)s."),
        "placeOn": gettext("Page %(n)s: place a %(type)s for %(signer)s"),
        "moveField": gettext("%(field)s: drag it, or move it with the arrow keys"),
        "remove": gettext("Remove"),
        "noSigner": gettext("Add a signer first."),
        "noDocument": gettext("Add a document first."),
        "notPdf": gettext("Choose a PDF file."),
        "sending": gettext("Sending…"),
        "sent": gettext("Sent: the packet is on its way to its signers."),
        "saved": gettext("Saved as a draft."),
        "refused": gettext("Not sent:"),
        "checkMarked": gettext("Check the boxes marked in red."),
        "unassigned": gettext("Nobody"),
        "fieldOf": gettext("%(type)s on page %(page)s"),
        "name": gettext("Name"),
        "email": gettext("Email"),
        "nameOf": gettext("Name of %(signer)s"),
        "emailOf": gettext("Email of %(signer)s"),
        "typeOf": gettext("How %(signer)s signs"),
        "byEmail": gettext("By email"),
        "embedded": gettext("In your app"),
        "order": gettext("Order"),
    }


def _allowed_template(row: EmbedToken, eid: str) -> PdfTemplate:
    """One of the templates the token names; any other, even of the organization, is refused
    as if absent."""
    if eid not in row.options.get("castEids", []):
        raise EmbedForbidden(f"This link does not allow the template '{eid}'.")
    return services.template_get(organization=row.organization, eid=eid)


@require_GET
def builder_page(request: HttpRequest, row: EmbedToken, token: str) -> HttpResponse:
    templates = [
        {"eid": t.eid, "title": t.title}
        for t in (_allowed_template(row, eid) for eid in row.options.get("castEids", []))
    ]
    sizes = {t["name"]: t.get("defaultSize") for t in field_types_json()}
    config = {
        "templates": templates,
        "fieldTypes": [
            {"name": name, "label": str(label), "size": sizes.get(name) or list(size)}
            for name, (label, size) in PLACED_TYPES.items()
        ],
        "strings": strings(),
        "send": "send" in row.permissions,
        "urls": {
            "send": reverse("builders-packet-send", args=[token]),
            "template": reverse("builders-packet-template", args=[token, "EID"]),
            "templatePdf": reverse("builders-packet-template-pdf", args=[token, "EID"]),
            "pdfjs": static("vendor/pdfjs/pdf.min.mjs"),
            "pdfjsWorker": static("vendor/pdfjs/pdf.worker.min.mjs"),
        },
        "embed": {"origins": embed_origins(row.organization), "ids": embed_ids(row)},
    }
    context = {"config": config, "page_title": row.options.get("pageTitle") or ""}
    return framed(render(request, "builders/packet.html", context), row)


@builder_endpoint
@require_GET
def template_fields(request: HttpRequest, token: str, eid: str) -> HttpResponse:
    """The template's signer fields (of the version a packet uses), to give them to signers."""
    template = _allowed_template(_opened(token), eid)
    version = services.template_version_select(template=template, version_number=None)
    spec = services.version_spec(version)
    fields = [
        {"id": f.id, "type": f.type, "page": f.page, "rect": f.rect.to_json(), "alias": f.alias}
        for f in spec.fields
        if f.is_signer
    ]
    return JsonResponse({"eid": template.eid, "title": template.title, "fields": fields})


@builder_endpoint
@require_GET
def template_pdf(request: HttpRequest, token: str, eid: str) -> HttpResponse:
    template = _allowed_template(_opened(token), eid)
    version = services.template_version_select(template=template, version_number=None)
    return file_response(
        services.version_pdf(version),
        filename=f"{template.eid}.pdf",
        content_type="application/pdf",
        attachment=False,
    )


def _only(raw: Any, keys: frozenset[str], path: str) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise ValidationFailed.single(path, "Must be an object.")
    unknown = sorted(set(raw) - keys)
    if unknown:
        raise ValidationFailed.single(path, f"Not accepted here: {', '.join(unknown)}.")
    return dict(raw)


def packet_arguments(row: EmbedToken, body: Mapping[str, Any]) -> dict[str, Any]:
    """createEtchPacket's arguments from the builder's request: its name, files and signers
    (only the keys the builder sets), templates only among those the token names, a draft
    unless the token grants ``send``, a test packet when its options say so."""
    files, signers = body.get("files"), body.get("signers")
    if not isinstance(files, list) or not files:
        raise ValidationFailed.single("files", "Add at least one document.")
    if not isinstance(signers, list) or not signers:
        raise ValidationFailed.single("signers", "Add at least one signer.")
    checked_files = [_only(f, FILE_KEYS, f"files.{n}") for n, f in enumerate(files)]
    for file in checked_files:
        if file.get("castEid") is not None:
            _allowed_template(row, str(file["castEid"]))
    return {
        "name": body.get("name"),
        "files": checked_files,
        "signers": [_only(s, SIGNER_KEYS, f"signers.{n}") for n, s in enumerate(signers)],
        "isDraft": "send" not in row.permissions,
        "isTest": bool(row.options.get("isTest")),
    }


def _answer(packet: Packet) -> dict[str, Any]:
    return {
        "etchPacketEid": packet.eid,
        "documentGroupEid": packet.document_group.eid,
        "status": packet.status,
        "signers": [
            {"eid": s.eid, "aliasId": s.alias_id, "routingOrder": s.routing_order}
            for s in packet.signers.order_by("routing_order", "id")
        ],
    }


@builder_endpoint
def send(request: HttpRequest, token: str) -> HttpResponse:
    """POST ``{name, files, signers}`` (createEtchPacket's shapes): the packet, made as the
    token's organization. Answers ``{etchPacketEid, documentGroupEid, status, signers}``."""
    if request.method != "POST":
        raise MethodNotAllowed.of(request.method, ("POST",))  # as DRF's 405 (builder_endpoint)
    row = _opened(token)
    require(row, "edit")
    body = json_object(request, limit=settings.API_MULTIPART_BODY_LIMIT)
    arguments = packet_arguments(row, body)
    packet_input = parse_packet_input(arguments)
    # One packet a link: claimed before it is made (two sends at once make one), given back if
    # it is refused, so that the user can correct it and send again.
    claimed = EmbedToken.objects.filter(pk=row.pk, made_eid="").update(made_eid=PENDING)
    if not claimed:
        raise Conflict("This link has made its packet already: ask for a new link.")
    try:
        packet = packet_create(
            organization=row.organization, watermark=row.watermark, packet_input=packet_input
        )
    except BaseException:
        EmbedToken.objects.filter(pk=row.pk, made_eid=PENDING).update(made_eid="")
        raise
    EmbedToken.objects.filter(pk=row.pk).update(made_eid=packet.eid)
    return JsonResponse(_answer(packet))
