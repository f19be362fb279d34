"""``/oidc/link/``: a signed-in user links their own account to single sign-on, as the only way
an account made otherwise ever signs in through the provider (accounts.sso never links by email).

GET shows what will be linked; POST (the user's confirmation, CSRF-checked) begins a sign-in at
the provider whose state is remembered as this user's link. The callback then links the identity
the provider signs in to this account only if the provider's address is the account's and the
account is in the provider's organization and no other (accounts.sso_people); it never signs in
another account. Superusers are never linked."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponseBase
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from accounts.models import SsoIdentity, User
from accounts.sso import LINK_STATES, LINK_URL, SsoAuthenticateView, sso_enabled

# The sign-ins to link one session may have begun and not finished; the oldest are forgotten.
MAX_LINK_STATES = 5


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def sso_link(request: HttpRequest) -> HttpResponseBase:
    if not sso_enabled():
        raise Http404
    user = request.user
    if not isinstance(user, User):  # login_required let no one else in
        raise Http404
    # The token's issuer is the discovery's, which may end with a slash the setting has not.
    issuers = [settings.SSO_OIDC_ISSUER, f"{settings.SSO_OIDC_ISSUER}/"]
    linked = SsoIdentity.objects.filter(user_id=user.pk, issuer__in=issuers).exists()
    context: dict[str, Any] = {
        "linked": linked,
        "refused": request.GET.get("refused") == "1",
        "superuser": user.is_superuser,
    }
    if request.method == "GET" or linked or user.is_superuser:
        return render(request, "accounts/sso_link.html", context)
    start = SsoAuthenticateView()
    start.setup(request)
    if not start.configure():
        context["unreachable"] = True
        return render(request, "accounts/sso_link.html", context, status=502)
    response = start.get(request)
    state = parse_qs(urlsplit(response["Location"]).query)["state"][0]
    links = dict(request.session.get(LINK_STATES) or {})
    links[state] = user.pk
    request.session[LINK_STATES] = dict(list(links.items())[-MAX_LINK_STATES:])
    # Back here once linked: the page says so.
    request.session["oidc_login_next"] = LINK_URL
    return response
