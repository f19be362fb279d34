"""A qualified signer's pages after they finish (issue 51): to their provider's consent, back,
their PIN and one-time code, their signature (esign.sealing.qualified).

1. ``qualified_start`` (``GET /api/etch/qualified/<eid>/start?key=``, where the signing page
   sends a qualified signer once their finish is recorded: the key is their completion page's,
   esign.links.tokens.signer_done_key): the OAuth 2.0 authorization request to the provider
   (state and PKCE verifier kept in this browser's session).
2. ``qualified_return`` (``GET /api/etch/qualified/return``, the redirect URI registered at the
   provider): the code for an access token, the signer's credential, and the form for its PIN
   and one-time code.
3. ``qualified_sign`` (``POST /api/etch/qualified/<eid>/sign``): the documents signed with the
   credential; then to the signer's redirect URL or completion page. A wrong PIN or code shows
   the form again with the provider's refusal; an expired authorization or a revoked credential
   says so, with a way to start again.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from esign.engine.csc_client import (
    CscError,
    authorization_url,
    credentials_info,
    credentials_list,
    token,
)
from esign.engine.errors import SealError
from esign.links.tokens import signer_done_key, signer_of_done_key
from esign.models import Signer
from esign.sealing.qualified import needs_qualified_signature
from esign.sealing.qualified import qualified_sign as sign_with_credential
from esign.signature_providers import ProviderChoice, csc_policy, qualified_provider

logger = logging.getLogger(__name__)

SESSION_KEY = "esign_qualified"


def qualified_redirect(signer: Signer, redirect: str | None, done: str) -> str | None:
    """Where the signing page sends ``signer`` once their finish is recorded: to their
    provider's consent first when they sign at the qualified level (then on to ``redirect`` or
    ``done``), else ``redirect`` as before."""
    signer = Signer.objects.select_related("signature_level").get(pk=signer.pk)  # as finished
    if not needs_qualified_signature(signer):
        return redirect
    start = reverse("esign-qualified-start", args=[signer.eid])
    query = urlencode({"key": signer_done_key(signer), "next": redirect or done})
    return f"{settings.PUBLIC_BASE_URL}{start}?{query}"


def _return_uri() -> str:
    return f"{settings.PUBLIC_BASE_URL}{reverse('esign-qualified-return')}"


def _page(request: HttpRequest, context: dict[str, Any], status: int = 200) -> HttpResponse:
    return render(request, "esign/qualified.html", context, status=status)


def _refused(request: HttpRequest, message: str, *, again: str = "") -> HttpResponse:
    return _page(
        request,
        {"title": _("Your signature was not made"), "problem": message, "again": again},
        status=400,
    )


@require_GET
def qualified_start(request: HttpRequest, signer_eid: str) -> HttpResponse:
    key = request.GET.get("key", "")
    signer = signer_of_done_key(signer_eid=signer_eid, key=key)
    if signer is None:
        return _refused(request, _("This link cannot be used. Ask the sender for a new one."))
    after = request.GET.get("next", "")
    ours = after.startswith(f"{settings.PUBLIC_BASE_URL}/")
    if not ours and not (signer.redirect_url and after.startswith(signer.redirect_url)):
        after = ""  # only where the signing page itself would have sent them
    if not needs_qualified_signature(signer):
        return HttpResponseRedirect(after or "/")
    choice = qualified_provider(signer.packet.organization_id)
    if choice is None:
        return _refused(request, _("No signature provider is configured. Tell the sender."))
    consent = authorization_url(
        choice.provider, redirect_uri=_return_uri(), lang=request.LANGUAGE_CODE or ""
    )
    pending = request.session.get(SESSION_KEY, {})
    pending[consent.state] = {
        "signer": signer.eid,
        "key": key,
        "verifier": consent.verifier,
        "next": after,
    }
    request.session[SESSION_KEY] = pending
    return HttpResponseRedirect(consent.url)


def _pending(request: HttpRequest, state: str) -> tuple[dict[str, Any], Signer] | None:
    entry = request.session.get(SESSION_KEY, {}).get(state)
    if not entry:
        return None
    signer = signer_of_done_key(signer_eid=entry["signer"], key=entry["key"])
    return (entry, signer) if signer is not None else None


def _again(entry: dict[str, Any]) -> str:
    start = reverse("esign-qualified-start", args=[entry["signer"]])
    return f"{start}?{urlencode({'key': entry['key'], 'next': entry['next']})}"


@require_GET
def qualified_return(request: HttpRequest) -> HttpResponse:
    state = request.GET.get("state", "")
    found = _pending(request, state)
    if found is None:
        return _refused(request, _("This sign-in did not start here, or it is over."))
    entry, signer = found
    choice = qualified_provider(signer.packet.organization_id)
    if choice is None:
        return _refused(request, _("No signature provider is configured. Tell the sender."))
    if request.GET.get("error") or not request.GET.get("code"):
        return _refused(
            request,
            _("You did not allow your signature provider to sign. Nothing was signed."),
            again=_again(entry),
        )
    policy = csc_policy()
    try:
        access = token(
            choice.provider,
            code=request.GET["code"],
            verifier=entry["verifier"],
            redirect_uri=_return_uri(),
            policy=policy,
        )
        credential_id = credentials_list(choice.provider, access, policy=policy)[0]
        credential = credentials_info(choice.provider, access, credential_id, policy=policy)
    except CscError as error:
        logger.warning("qualified: signer %s: %s (%s)", signer.eid, error.kind, error.detail)
        return _refused(request, _(str(error)), again=_again(entry))
    entry.update({"access": access, "credential": credential_id})
    request.session[SESSION_KEY] = {**request.session.get(SESSION_KEY, {}), state: entry}
    return _form(request, signer, choice, state, pin=credential.pin, otp=credential.otp)


def _form(
    request: HttpRequest,
    signer: Signer,
    choice: ProviderChoice,
    state: str,
    *,
    pin: bool,
    otp: bool,
    problem: str = "",
    status: int = 200,
) -> HttpResponse:
    return _page(
        request,
        {
            "title": _("Sign with your certificate"),
            "signer": signer,
            "provider": choice.name,
            "state": state,
            "pin": pin,
            "otp": otp,
            "problem": problem,
            "documents": [d.title or d.filename for d in signer.packet.documents.all()],
            "action": reverse("esign-qualified-sign", args=[signer.eid]),
        },
        status=status,
    )


@require_POST
def qualified_sign(request: HttpRequest, signer_eid: str) -> HttpResponse:
    state = request.POST.get("state", "")
    found = _pending(request, state)
    if found is None or found[1].eid != signer_eid or "access" not in found[0]:
        return _refused(request, _("This sign-in did not start here, or it is over."))
    entry, signer = found
    choice = qualified_provider(signer.packet.organization_id)
    if choice is None:
        return _refused(request, _("No signature provider is configured. Tell the sender."))
    if not needs_qualified_signature(signer):
        return HttpResponseRedirect(entry["next"] or "/")
    policy = csc_policy()
    credential = None
    try:
        credential = credentials_info(
            choice.provider, entry["access"], entry["credential"], policy=policy
        )
        sign_with_credential(
            signer,
            choice=choice,
            access=entry["access"],
            credential=credential,
            pin=request.POST.get("pin", ""),
            otp=request.POST.get("otp", ""),
        )
    except SealError as error:  # a TSA or the signer CA, for the signatures around theirs
        logger.warning("qualified: signer %s: %s (%s)", signer.eid, error.code, error.log_detail)
        return _refused(
            request,
            _(
                "Your signature could not be made just now. Nothing was signed: try again in a "
                "few minutes."
            ),
            again=_again(entry),
        )
    except CscError as error:
        logger.warning("qualified: signer %s: %s (%s)", signer.eid, error.kind, error.detail)
        if error.kind in ("wrong_pin", "wrong_otp") and credential is not None:
            return _form(
                request,
                signer,
                choice,
                state,
                pin=credential.pin,
                otp=credential.otp,
                problem=_(str(error)),
                status=400,
            )
        return _refused(request, _(str(error)), again=_again(entry))
    sessions = request.session.get(SESSION_KEY, {})
    sessions.pop(state, None)
    request.session[SESSION_KEY] = sessions
    return HttpResponseRedirect(entry["next"] or "/")
