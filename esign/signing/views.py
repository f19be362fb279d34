"""The signer's side: the signing page, finishing, declining and forwarding (the page's documents
and the signer's lasting copy are esign.signing.document_views).

A signing link carries its token in the query string; the page sends it back with every
request (header ``X-Signing-Token``), so no cookie is needed, which matters inside an iframe
where third-party cookies are blocked. Every response of these views carries a
Content-Security-Policy ``frame-ancestors`` built from the organization's embedding origins.
"""

from __future__ import annotations

import base64
import binascii
import functools
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import require_GET

from accounts.embedding import allow_framing_by, embed_origins
from core.api_errors import error_response
from core.errors import FieldError, ServiceError, ValidationFailed
from core.json_views import json_object, json_view
from core.uploads import size_text
from esign.engine.pages import PAGE_WIDTHS
from esign.engine.signature_image import SignatureImageUnusable, signature_image
from esign.links.emails import gets_emails
from esign.links.tokens import SigningRefused, signer_done_key, signer_from_token
from esign.models import Packet, PacketDocument, Signer
from esign.packets import lifecycle
from esign.packets.audit import Client
from esign.packets.documents import document_filename, document_page_boxes, signer_copies
from esign.packets.groups import group_size, witnessed_name
from esign.packets.languages import in_language, page_language_activate
from esign.packets.roles import NOT_WAITED_FOR
from esign.signing.attachments import signer_attachments
from esign.signing.declining import signer_decline
from esign.signing.forwarding import ALREADY_A_SIGNER, may_forward, signer_forward
from esign.signing.link_views import error_page
from esign.signing.page_pictures import draw_ahead
from esign.signing.page_strings import signing_strings
from esign.signing.qualified_views import qualified_redirect
from esign.signing.role_strings import role_strings
from esign.signing.turns import (
    Adoption,
    SigningOutcome,
    is_signers_turn,
    signer_complete,
    signer_fields,
    signer_viewed,
)
from esign.signing.updates import others_prefilled

TOKEN_HEADER = "HTTP_X_SIGNING_TOKEN"  # noqa: S105 - a header name, not a secret


def _client(request: HttpRequest) -> Client:
    return Client(
        ip=request.META.get("REMOTE_ADDR"), user_agent=request.META.get("HTTP_USER_AGENT", "")
    )


def _framed(response: HttpResponse, origins: list[str], language: str) -> HttpResponse:
    """Only the organization's embedding origins (and the service itself) may frame the page."""
    allow_framing_by(response, origins)
    response["Referrer-Policy"] = "no-referrer"
    return in_language(response, language)


def completion_keys(outcome: SigningOutcome) -> dict[str, Any]:
    """The keys posted to the parent frame and appended to the redirect URL. Declining is
    finishing too: ``signerComplete`` with ``signerStatus: "declined"``, the one action of a
    signer done with the page that the published frames and the reference know (an action of
    its own fell into switch-based integrators' default branch); docs/esign.md."""
    packet = outcome.packet
    group = packet.document_group
    return {
        "action": "signerComplete",
        "signerEid": outcome.signer.eid,
        "signerStatus": outcome.signer.status,
        "nextSignerEid": outcome.next_signer.eid if outcome.next_signer else None,
        "documentGroupEid": group.eid,
        # The group's status follows the packet's (both change in the same transaction).
        "documentGroupStatus": packet.status,
        "etchPacketEid": packet.eid,
    }


def with_query(url: str, keys: dict[str, Any]) -> str:
    parts = urlsplit(url)
    extra = urlencode({k: v for k, v in keys.items() if v is not None})
    query = f"{parts.query}&{extra}" if parts.query else extra
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))


class LinkRefused(ServiceError):
    """A link that does not let the page's scripts act (403), in the wire shape: its ``name`` is
    the link's errorType (tokenInvalid, tokenExpired, notFound: what the page's ``signerError``
    event says), with the refusal's ``reason`` when it has one."""

    status = 403

    def __init__(self, refused: SigningRefused) -> None:
        self.name = refused.error_type
        self.reason = refused.reason
        super().__init__(str(refused))

    def as_wire(self) -> dict[str, object]:
        wire = super().as_wire()
        if self.reason:
            wire["reason"] = self.reason
        return wire


def _refused(refused: SigningRefused) -> HttpResponse:
    """What the page's scripts get when the token does not let them act."""
    return error_response(LinkRefused(refused))


def _finished(signer: Signer, keys: dict[str, Any]) -> JsonResponse:
    """The answer to signing or declining: the event for the embedding app, where to go, and
    the event's legacy string (legacyURL): a page that exists, the redirect URL when there is
    one, else the completion page, whose key shows the signer their documents; and, to a
    signer who signed, their lasting copy (copies: esign.packets.documents)."""
    redirect = with_query(signer.redirect_url, keys) if signer.redirect_url else None
    done = with_query(
        f"{settings.PUBLIC_BASE_URL}{reverse('esign-done')}",
        {**keys, "key": signer_done_key(signer)},
    )
    if keys["signerStatus"] == Signer.Status.COMPLETED:
        # A qualified signer signs at their provider first (issue 51), then goes on.
        redirect = qualified_redirect(signer, redirect, done)
    body: dict[str, Any] = {"event": keys, "redirectURL": redirect, "legacyURL": redirect or done}
    if keys["signerStatus"] == Signer.Status.COMPLETED:
        body["copies"] = signer_copies(signer)  # the done state's lasting links
    return JsonResponse(body)


# Compressed (a third of its bytes on a slow link). BREACH needs a secret and input of the
# attacker's in one compressed response: the page's one secret is the link's token, and what
# the page shows of the request is that token itself (an attacker who can choose it already has
# it) and withinIframe, as true or false; the rest is the sender's. Django's GZipMiddleware adds
# random bytes to every response's gzip header besides (Heal The Breach).
@gzip_page
@xframe_options_exempt  # framing is governed by the CSP frame-ancestors of _framed
@require_GET
def signing_page(request: HttpRequest, signer_eid: str) -> HttpResponse:
    token = request.GET.get("token", "")
    try:
        signer = signer_from_token(signer_eid=signer_eid, token=token)
    except SigningRefused as refused:
        return error_page(request, refused)
    language = page_language_activate(request, signer, remember=True)
    packet = signer.packet
    origins = embed_origins(packet.organization)
    signer_viewed(signer=signer, client=_client(request))
    shown = list(packet.documents.all())
    if shown:
        # Its picture is asked for as soon as the browser reads the HTML (page_pictures).
        first = shown[0]
        draw_ahead(path=first.current_path, sha256=first.current_sha256, page=0, width=800)
    documents = [_shown_document(signer, document, token) for document in shown]
    waiting_for = [
        other.name
        for other in packet.signers.all()
        if other.routing_order < signer.routing_order
        and other.status not in lifecycle.FINISHED_SIGNER
        and other.role not in NOT_WAITED_FOR
    ]
    config = {
        "signerEid": signer.eid,
        "signerName": signer.name,
        "signerStatus": signer.status,
        # Extension: "approver" approves or rejects, "viewer" reads (esign.packets.roles).
        "role": signer.role,
        # Extension (allowUpdates, esign.signing.updates): whether the signer may change the
        # sender's values of their fields, and the other signers' values not stamped yet.
        "allowUpdates": signer.allow_updates,
        "prefilled": others_prefilled(signer),
        "packetStatus": packet.status,
        "signatureMode": signer.signature_mode,
        "acceptEachField": signer.accept_each_field,
        "canSign": is_signers_turn(signer),
        "waitingFor": waiting_for,
        "documents": [
            {key: value for key, value in document.items() if key != "first_page"}
            for document in documents
        ],
        "pageWidths": PAGE_WIDTHS,
        "pageSizes": PAGE_SIZES,
        "fields": signer_fields(signer),
        "completeUrl": reverse("esign-complete", args=[signer.eid]),
        "declineUrl": reverse("esign-decline", args=[signer.eid]),
        # Extension: handing one's turn to someone else (esign.signing.forwarding).
        "canForward": may_forward(signer),
        "forwardUrl": reverse("esign-forward", args=[signer.eid]),
        "redirectUrl": signer.redirect_url,
        "origins": origins,
        "withinIframe": request.GET.get("withinIframe") == "true",
        "isTest": packet.is_test,
        "sealed": packet.seal_status == Packet.SealStatus.SEALED,
        "getsEmails": gets_emails(signer),
        # A signer who signed: their lasting copy (esign.packets.documents) rather than links by the
        # token.
        "copies": signer_copies(signer) if signer.status == Signer.Status.COMPLETED else None,
        "publicBaseUrl": settings.PUBLIC_BASE_URL,
        # Extension: the files the signer is asked to attach (esign.signing.attachments).
        "attachments": signer_attachments(signer),
        "attachmentUrl": reverse("esign-attachment-upload", args=[signer.eid]),
        "attachmentRemoveUrl": reverse("esign-attachment-remove", args=[signer.eid]),
    }
    response = render(
        request,
        "esign/sign.html",
        {
            "signer": signer,
            "packet": packet,
            "config": config,
            "token": token,
            "documents": documents,
            "page_sizes": PAGE_SIZES,
            "modules": SIGNING_MODULES,
            "strings": signing_strings() | role_strings(signer),
            # Extensions (esign.packets.groups): whom a witness witnesses; a group's size.
            "witnessed": witnessed_name(signer),
            "group_size": group_size(signer),
        },
    )
    return _framed(response, origins, language)


# How wide a page is shown, for the browser's choice among the pictures' widths (srcset): the
# column, 880 px from 912 px up, else the window less its margins. Past a device pixel ratio of 2
# the column is said to be a third narrower, so that a DPR-3 phone downloads a picture about
# twice as wide as the column (800 px for 358 px) instead of three times (1200 px): as sharp to
# the eye at arm's length, and a third of the bytes on a slow link, which is what decides when
# the first page shows. sign.js gives the later pages the same sizes.
# sign.js and every module it imports, preloaded by the page's head.
SIGNING_MODULES = (
    "esign/sign.js",
    "esign/adopt.js",
    "esign/attachments.js",
    "esign/pad.js",
    "esign/controls.js",
    "esign/fields.js",
    "esign/strings.js",
    "esign/documents.js",
    "esign/outcome.js",
    "esign/review.js",
    "esign/prefilled.js",
    "esign/progress.js",
    "esign/forward.js",
    "esign/embed.js",
    "common/dom.js",
    "common/page-box.js",
    "embed/parent.js",
)
PAGE_SIZES = (
    "(min-resolution: 2.01dppx) and (min-width: 912px) 587px, "
    "(min-resolution: 2.01dppx) calc((100vw - 32px) * 2 / 3), "
    "(min-width: 912px) 880px, calc(100vw - 32px)"
)


def _shown_document(signer: Signer, document: PacketDocument, token: str) -> dict[str, Any]:
    """A document as the signing page shows it: its pages as pictures drawn on the server, in
    the widths of PAGE_WIDTHS (the browser picks one by the column's width on its screen), and
    the pages' boxes for placing the fields over them, as runs of equal pages so that the page
    does not grow with a long document's page count. The pictures' URLs carry the link's token
    (an <img> sends no header) and the document's version, so a browser may keep them; the
    script builds them (documents.js) but for the first page's (``first_page``), which is in
    the HTML so that the browser asks for it before any script runs."""
    title = document.title or document.filename
    boxes = document_page_boxes(document)
    version = document.current_sha256[:16]
    first_url = reverse("esign-page-image", args=[signer.eid, document.alias_id, 0])

    def src(width: int) -> str:
        return f"{first_url}?{urlencode({'w': width, 'v': version, 'token': token})}"

    runs: list[dict[str, Any]] = []
    for box in boxes:
        shape = {"view": list(box.view), "rotate": box.rotate}
        if runs and runs[-1]["view"] == shape["view"] and runs[-1]["rotate"] == box.rotate:
            runs[-1]["count"] += 1
        else:
            runs.append({**shape, "count": 1})
    first_page = None
    if boxes:
        first_page = {
            "label": _("{title}, page {number} of {total}").format(
                title=title, number=1, total=len(boxes)
            ),
            "ratio": f"{boxes[0].width:g} / {boxes[0].height:g}",
            "src": src(800),
            "srcset": ", ".join(f"{src(width)} {width}w" for width in PAGE_WIDTHS),
        }
    return {
        "id": document.alias_id,
        "title": title,
        "url": reverse("esign-document", args=[signer.eid, document.alias_id]),
        "filename": document_filename(document),
        # The pictures' URL but its last part, "<page>.webp".
        "pagesUrl": first_url.removesuffix("0.webp"),
        "version": version,
        "pageCount": len(boxes),
        "pages": runs,
        "first_page": first_page,
    }


def _adoption(body: dict[str, Any]) -> Adoption:
    signature = body.get("signature") or {}
    if not isinstance(signature, dict):
        raise ValidationFailed.single("signature", "Must be {drawn} or {typed}.")
    drawn = signature.get("drawn")
    png = None
    if isinstance(drawn, str) and drawn:
        prefix = "data:image/png;base64,"
        if not drawn.startswith(prefix):
            raise ValidationFailed.single("signature.drawn", "Must be a PNG data URL.")
        try:
            png = base64.b64decode(drawn[len(prefix) :], validate=True)
        except (binascii.Error, ValueError):
            raise ValidationFailed.single("signature.drawn", "Not valid base64.") from None
        limit = settings.SIGNING_SIGNATURE_MAX_BYTES
        if len(png) > limit or not png.startswith(b"\x89PNG\r\n\x1a\n"):
            raise ValidationFailed.single(
                "signature.drawn", f"Must be a PNG of at most {size_text(limit)}."
            )
        # Decoded here, by its declared size a pad's at most, so that stamping (after the
        # signature is stored) never meets a PNG it cannot draw.
        try:
            signature_image(png)
        except SignatureImageUnusable as unusable:
            raise ValidationFailed.single("signature.drawn", str(unusable)) from None
    typed = signature.get("typed")
    initials = body.get("initials")
    return Adoption(
        drawn_png=png,
        typed=typed.strip()[:255] if isinstance(typed, str) else "",
        initials=initials.strip()[:32] if isinstance(initials, str) else "",
    )


def signer_post(
    view: Callable[[HttpRequest, Signer], HttpResponse],
) -> Callable[[HttpRequest, str], HttpResponse]:
    """A signer's POST from the signing page (finishing, declining, forwarding, attaching): the
    signer by the token in the request's header (a link that cannot be used answers as the page
    does), the page's language the signer's, and every refusal ``view`` raises answered in the
    wire shape (``core.json_views``, as every JSON view answers)."""

    @csrf_exempt  # authenticated by the signing token in a header, never by a cookie
    @json_view()
    @functools.wraps(view)
    def wrapped(request: HttpRequest, signer_eid: str) -> HttpResponse:
        token = request.META.get(TOKEN_HEADER, "")
        try:
            signer = signer_from_token(signer_eid=signer_eid, token=token)
        except SigningRefused as refused:
            return _refused(refused)
        # What the page shows of a refusal is in the signer's language, as the page itself.
        page_language_activate(request, signer)
        return view(request, signer)

    return wrapped


def signer_json(request: HttpRequest) -> dict[str, Any]:
    """The signer's JSON body, within SIGNING_BODY_MAX_BYTES."""
    return json_object(request, limit=settings.SIGNING_BODY_MAX_BYTES)


@signer_post
def signing_complete(request: HttpRequest, signer: Signer) -> HttpResponse:
    body = signer_json(request)
    values = body.get("values") or {}
    if not isinstance(values, dict):
        raise ValidationFailed.single("values", "Must be an object.")
    outcome = signer_complete(
        signer=signer, adoption=_adoption(body), values=values, client=_client(request)
    )
    return _finished(signer, completion_keys(outcome))


@signer_post
def signing_decline(request: HttpRequest, signer: Signer) -> HttpResponse:
    reason = signer_json(request).get("reason")
    outcome = signer_decline(
        signer=signer, reason=reason if isinstance(reason, str) else "", client=_client(request)
    )
    return _finished(signer, completion_keys(outcome))


@signer_post
def signing_forward(request: HttpRequest, signer: Signer) -> HttpResponse:
    """The signer hands their turn to someone else, JSON ``{name, email}``
    (esign.signing.forwarding): who it went to, or the refusal in the wire's shape (400 naming
    ``name``/``email``, 409)."""
    body = signer_json(request)
    try:
        successor = signer_forward(
            signer=signer, name=body.get("name"), email=body.get("email"), client=_client(request)
        )
    except ValidationFailed as invalid:
        raise _forward_problems(invalid) from None
    return JsonResponse(
        {
            "signerEid": signer.eid,
            "signerStatus": Signer.Status.FORWARDED,
            "forwardedTo": {"name": successor.name, "email": successor.email},
        }
    )


def _forward_problems(invalid: ValidationFailed) -> ValidationFailed:
    """The forward's problems as the signer reads them, in their language (the API's stay the
    wire's English)."""
    messages = {
        "name": _("Enter the name of the person who will sign."),
        "email": _("Enter their email address, like name@example.com."),
    }
    return ValidationFailed(
        FieldError(
            property=problem.property,
            message=_("This person is already a signer of these documents.")
            if problem.message == ALREADY_A_SIGNER
            else messages.get(problem.property, problem.message),
        )
        for problem in invalid.fields
    )
