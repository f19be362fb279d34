"""The signer's pages around the signing page: a link that cannot be used (expired, invalid,
voided), the new link asked for from it, and the completion page (``/etch-complete``).

Each is in the signer's language (esign.packets.languages). The error page may be framed by any
page, whatever its origin, so the integrator always hears ``signerError``
(esign/static/esign/error.js posts the error's type and message only, unless the origin is an
allowed one).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from accounts.embedding import allow_framing_by, allow_framing_by_anyone, embed_origins
from core.errors import RateLimited
from esign.links.codes import (
    CodeResult,
    code_check,
    code_pending,
    code_send,
    masked_destination,
    needs_code,
)
from esign.links.emails import WAITING_FOR_LINK, gets_emails, signer_email_resend
from esign.links.tokens import (
    VERIFICATION_REQUIRED,
    SigningRefused,
    signer_of_done_key,
    signer_of_expired_link,
    token_checked,
)
from esign.models import Packet, Signer
from esign.packets.audit import Client
from esign.packets.documents import signer_copies
from esign.packets.groups import GROUP_SIGNED, skipped_for_group
from esign.packets.languages import in_language, page_language_activate
from esign.signing.page_strings import error_messages


def _framed(response: HttpResponse, origins: list[str], language: str) -> HttpResponse:
    """Only the organization's embedding origins (and the service itself) may frame the page."""
    allow_framing_by(response, origins)
    response["Referrer-Policy"] = "no-referrer"
    return in_language(response, language)


def error_page(request: HttpRequest, refused: SigningRefused) -> HttpResponse:
    """The page of a link that cannot be used; the event keeps the wire's English message. A
    link whose signer has a code to enter leads to the code page instead."""
    signer = refused.signer
    if refused.reason == VERIFICATION_REQUIRED and signer is not None:
        query = urlencode({"token": request.GET.get("token", "")})
        return redirect(f"{reverse('esign-code', args=[signer.eid])}?{query}")
    language = page_language_activate(request, signer)
    origins = embed_origins(signer.packet.organization) if signer else []
    match = request.resolver_match
    event: dict[str, Any] = {
        "action": "signerError",
        "errorType": refused.error_type,
        "error": refused.error_type,
        "message": str(refused),
        "signerEid": signer.eid if signer else (match.kwargs.get("signer_eid") if match else None),
    }
    if refused.reason:
        event["reason"] = refused.reason
    token = request.GET.get("token", "")
    # A packet past its expiry gets no new link from the signer: only the sender's extension.
    packet_expired = refused.reason == "packetExpired"
    renewable = (
        refused.error_type == "tokenExpired" and not packet_expired and _renewable(signer, token)
    )
    message = (
        _("This signature request has expired.")
        if packet_expired
        else error_messages().get(refused.error_type, str(refused))
    )
    if refused.reason == GROUP_SIGNED and signer is not None:
        names = ", ".join(member.name for member in skipped_for_group(signer))
        message = _("{names} already signed this step for your group.").format(names=names)
    elif refused.reason == "signerForwarded":
        message = error_messages()["forwarded"]
    response = render(
        request,
        "esign/error.html",
        {
            "message": message,
            "event": event,
            "origins": origins,
            "new_link_url": reverse("esign-new-link", args=[signer.eid])
            if signer and renewable
            else "",
            "token": token if renewable else "",
        },
        status=410 if refused.error_type == "tokenExpired" else 403,
    )
    allow_framing_by_anyone(response)
    response["Referrer-Policy"] = "no-referrer"
    return in_language(response, language)


def _renewable(signer: Signer | None, token: str) -> bool:
    """Whether the expired-link page offers "Email me a new link": the link expired on its own
    and its signer, an email signer whose turn it is, gets emails."""
    if signer is None:
        return False
    expired = signer_of_expired_link(signer_eid=signer.eid, token=token)
    return expired is not None and gets_emails(expired) and expired.status in WAITING_FOR_LINK


@csrf_exempt  # the expired link's token is the credential; a forged post cannot know it
@xframe_options_exempt
@require_POST
def signing_new_link(request: HttpRequest, signer_eid: str) -> HttpResponse:
    """The expired-link page's "Email me a new link": a new link to the signer's own address
    (never to one given here), capped per signer (esign.links.limits.NEW_LINK_PER_HOUR)."""
    token = request.POST.get("token", "")
    signer = signer_of_expired_link(signer_eid=signer_eid, token=token)
    language = page_language_activate(request, signer)
    if signer is None or not _renewable(signer, token):
        response = render(
            request, "esign/new_link.html", {"sent": False, "reason": "unknown"}, status=404
        )
        return in_language(response, language)
    origins = embed_origins(signer.packet.organization)
    try:
        sent = signer_email_resend(
            signer=signer, requested_by="the signer (expired link)", by_signer=True
        )
    except RateLimited as limited:
        response = render(
            request, "esign/new_link.html", {"sent": False, "reason": "often"}, status=429
        )
        response["Retry-After"] = str(limited.retry_after_seconds)
        return _framed(response, origins, language)
    context = {"sent": sent, "reason": "" if sent else "on its way", "to": _masked(signer.email)}
    return _framed(render(request, "esign/new_link.html", context), origins, language)


def _masked(email: str) -> str:
    """a***@example.com: enough for the signer to recognize their address."""
    local, _at, domain = email.partition("@")
    return f"{local[:1]}***@{domain}"


@xframe_options_exempt  # framing is governed by the CSP frame-ancestors of _framed
@require_GET
def signing_done(request: HttpRequest) -> HttpResponse:
    """``/etch-complete``: where the legacy string of an event leads (the one
    @anvilco/react-signature-frame hands its integrator, who follows it) when the signer has no
    redirect URL. With the key the server gave at finishing, the signer's outcome and their
    documents; without it (a link that could not be used), what went wrong; never a 404."""
    query = request.GET
    signer = signer_of_done_key(signer_eid=query.get("signerEid", ""), key=query.get("key", ""))
    language = page_language_activate(request, signer)
    context: dict[str, Any] = {"documents": [], "title": _("Done"), "text": ""}
    if signer is not None:
        context.update(_outcome(signer))
        origins = embed_origins(signer.packet.organization)
    else:
        origins = []
        if query.get("action") == "signerError":
            context["title"] = _("This signing link cannot be used")
            context["text"] = error_messages().get(
                query.get("errorType", ""), _("Ask the sender for a new link.")
            )
        else:
            context["text"] = _("You can close this page.")
    return _framed(render(request, "esign/done.html", context), origins, language)


def _outcome(signer: Signer) -> dict[str, Any]:
    """What the completion page says to ``signer`` and the documents it offers them."""
    if signer.status == Signer.Status.DECLINED:
        return {
            "title": _("You declined to sign"),
            "text": _("The sender has been told. You can close this page."),
        }
    packet = signer.packet
    sealed = packet.seal_status == Packet.SealStatus.SEALED
    documents = signer_copies(signer)  # lasting links, each opening its PDF
    if sealed:
        note = _("The signed documents, sealed by the service: keep them for your records.")
    else:
        note = _(
            "The documents with every signature given so far. Once everybody has signed and "
            "the documents are sealed, this link gives you the sealed copies."
        )
    return {
        "title": _("Done"),
        "text": _("You signed. Download your copy below."),
        "note": note,
        "documents": documents,
    }


@csrf_exempt  # the link's token (posted with the form) is the credential, as on the signing page
@xframe_options_exempt  # framing is governed by the CSP frame-ancestors of _framed
def signing_code(request: HttpRequest, signer_eid: str) -> HttpResponse:
    """The one-time code a signer with ``verify`` enters before the documents
    (esign.links.codes): "Send me a code", then the code; a right one leads to the signing
    page, a wrong one says so, a locked or over-sent one says how long to wait."""
    token = request.POST.get("token") or request.GET.get("token", "")
    try:
        row = token_checked(signer_eid=signer_eid, token=token)
    except SigningRefused as refused:
        return error_page(request, refused)
    signer = row.signer
    language = page_language_activate(request, signer)
    origins = embed_origins(signer.packet.organization)
    signing = f"{reverse('esign-verify', args=[signer.eid])}?{urlencode({'token': token})}"
    if not needs_code(signer, row):
        return redirect(signing)
    client = Client(
        ip=request.META.get("REMOTE_ADDR"), user_agent=request.META.get("HTTP_USER_AGENT", "")
    )
    context: dict[str, Any] = {
        "token": token,
        "to": masked_destination(signer),
        "problem": "",
        # Whose request it is, before the signer sees anything else of it.
        "packet": signer.packet,
        "sender": signer.packet.organization.name,
    }
    status = 200
    if request.method == "POST" and request.POST.get("action") == "send":
        outcome = code_send(signer=signer, client=client)
        if outcome.failed:
            context["problem"] = _("The code could not be sent. Try again in a moment.")
            status = 503
        elif not outcome.sent:
            context["problem"] = _("Too many codes or tries. Try again in %(minutes)s minutes.") % {
                "minutes": max(1, (outcome.wait_seconds + 59) // 60)
            }
            status = 429
    elif request.method == "POST":
        result = code_check(
            signer=signer, token=row, code=request.POST.get("code", ""), client=client
        )
        if result == CodeResult.RIGHT:
            return redirect(signing)
        context["problem"] = {
            CodeResult.WRONG: _("That code is not right. Check it and try again."),
            CodeResult.LOCKED: _("Too many wrong tries. Send yourself a new code in a while."),
            CodeResult.NONE: _("That code has expired. Send yourself a new one."),
        }[result]
        status = 400
    context["pending"] = code_pending(signer)
    response = render(request, "esign/verify_code.html", context, status=status)
    return _framed(response, origins, language)
