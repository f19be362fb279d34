"""Single sign-on for staff and members through an OpenID Connect provider (Keycloak, Okta,
Azure AD, Google...), on mozilla-django-oidc: its views keep the state, nonce and PKCE verifier
in the session and its backend exchanges the code; this module adds what it leaves out.

- **Discovery**: the provider's endpoints come from ``<SSO_OIDC_ISSUER>/.well-known/
  openid-configuration`` (read once per process, its ``issuer`` checked), not from settings.
- **The ID token** is checked for its signature (the provider's JWKS, RS256), ``aud`` (our
  client id), ``iss`` (the issuer), ``exp`` and ``nonce``; anything else is refused.
- **Who signs in**: the user of the ID token's ``iss`` and ``sub`` (an ``SsoIdentity``), never
  the user whose email matches: whoever controls the address at one organization's provider
  must not become an account of another. The user info must be of the same ``sub``.
- **Who is created, where**: with no identity yet, a valid, verified email (of
  ``SSO_EMAIL_DOMAINS`` when set) that no account here has makes a new person, in one
  transaction with their identity: they join the organization their email's domain names
  (``SSO_ORGANIZATIONS_BY_DOMAIN``) or else ``SSO_ORGANIZATION``, with the role of
  ``SSO_ROLE_CLAIM`` when the claim lists one, else ``SSO_ROLE``; they are staff. An address an
  account has already is refused (``?sso=exists``): that account's owner links it themselves,
  signed in (accounts.sso_link). Later sign-ins never add a membership: memberships are the
  admin's. Superusers never sign in this way.

Everything is off until ``SSO_OIDC_ISSUER`` is set (docs/configuration.md).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import jwt
import requests
from django.conf import settings
from django.core.exceptions import SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponseBase, HttpResponseRedirect
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.utils import import_from_settings
from mozilla_django_oidc.views import (
    OIDCAuthenticationCallbackView,
    OIDCAuthenticationRequestView,
)

from accounts.models import User
from accounts.sso_people import (
    EXISTS,
    FAILED,
    LINK,
    SsoRefused,
    email_acceptable,
    identity_of,
    person_for,
)

logger = logging.getLogger(__name__)

# Where a refused sign-in lands, by its reason (accounts.sso_people): an address an account has
# already is told so, with the password form leading to the link page; a link is refused on it.
LINK_URL = "/oidc/link/"
FAILURE_URLS = {
    FAILED: "/accounts/login/?sso=failed",
    EXISTS: f"/accounts/login/?sso=exists&next={LINK_URL}",
    LINK: f"{LINK_URL}?refused=1",
}
# The session's states of the sign-ins begun to link the signed-in account (accounts.sso_link).
LINK_STATES = "sso_link_states"
# Longer than any provider's code: refused before the provider is asked.
CODE_MAX_LENGTH = 4096

_discovered: dict[str, dict[str, Any]] = {}
_lock = threading.Lock()


def sso_enabled() -> bool:
    return bool(settings.SSO_OIDC_ISSUER)


def discovery() -> dict[str, Any]:
    """The provider's OpenID configuration, fetched once per issuer and process."""
    issuer = settings.SSO_OIDC_ISSUER.rstrip("/")
    with _lock:
        if issuer not in _discovered:
            response = requests.get(
                f"{issuer}/.well-known/openid-configuration",
                timeout=settings.SSO_OIDC_TIMEOUT_SECONDS,
            )
            response.raise_for_status()
            document = response.json()
            if str(document.get("issuer", "")).rstrip("/") != issuer:
                raise SuspiciousOperation("The provider's discovery names another issuer.")
            _discovered[issuer] = document
        return _discovered[issuer]


_ENDPOINTS = {
    "OIDC_OP_AUTHORIZATION_ENDPOINT": "authorization_endpoint",
    "OIDC_OP_TOKEN_ENDPOINT": "token_endpoint",
    "OIDC_OP_USER_ENDPOINT": "userinfo_endpoint",
    "OIDC_OP_JWKS_ENDPOINT": "jwks_uri",
}


def sso_setting(name: str, *default: Any) -> Any:
    """mozilla-django-oidc's settings, from ours (SSO_*) and the provider's discovery."""
    if name in _ENDPOINTS:
        return discovery()[_ENDPOINTS[name]]
    fixed: dict[str, Any] = {
        "OIDC_RP_CLIENT_ID": settings.SSO_OIDC_CLIENT_ID,
        "OIDC_RP_CLIENT_SECRET": settings.SSO_OIDC_CLIENT_SECRET,
        "OIDC_RP_SCOPES": settings.SSO_OIDC_SCOPES,
        "OIDC_RP_SIGN_ALGO": "RS256",
        "OIDC_USE_NONCE": True,
        "OIDC_USE_PKCE": True,
        "OIDC_CREATE_USER": True,
        "OIDC_TIMEOUT": settings.SSO_OIDC_TIMEOUT_SECONDS,
        "LOGIN_REDIRECT_URL": "/admin/",
        "LOGIN_REDIRECT_URL_FAILURE": FAILURE_URLS[FAILED],
    }
    if name in fixed:
        return fixed[name]
    return import_from_settings(name, *default)


class SsoAuthenticateView(OIDCAuthenticationRequestView):
    """``/oidc/authenticate/``: off (404) until SSO is configured."""

    get_settings = staticmethod(sso_setting)

    def __init__(self, **kwargs: Any) -> None:
        super(OIDCAuthenticationRequestView, self).__init__(**kwargs)

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not sso_enabled():
            raise Http404
        if not self.configure():
            return HttpResponseRedirect(FAILURE_URLS[FAILED])
        return super().dispatch(request, *args, **kwargs)

    def configure(self) -> bool:
        """The provider's endpoint from its discovery; False when it cannot be had."""
        try:
            self.OIDC_OP_AUTH_ENDPOINT = sso_setting("OIDC_OP_AUTHORIZATION_ENDPOINT")
        except (requests.RequestException, ValueError, KeyError) as error:
            # The provider cannot be reached (or answers no configuration): say so, no 500.
            logger.warning("Single sign-on discovery failed: %s", type(error).__name__)
            return False
        self.OIDC_RP_CLIENT_ID = sso_setting("OIDC_RP_CLIENT_ID")
        return True


class SsoCallbackView(OIDCAuthenticationCallbackView):
    """``/oidc/callback/``: a wrong or replayed state is refused (400) before anything else; a
    refusal lands on the page its reason names (``FAILURE_URLS``)."""

    get_settings = staticmethod(sso_setting)

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not sso_enabled():
            raise Http404
        return super().dispatch(request, *args, **kwargs)

    def get(self, request: HttpRequest) -> HttpResponseBase:
        # A sign-in begun to link the signed-in account: the backend links it, or refuses,
        # but never signs in someone else. Its state is used once, like the sign-in's.
        state = request.GET.get("state")
        links = request.session.get(LINK_STATES)
        if isinstance(links, dict) and state in links:
            linker = links.pop(state)
            request.session[LINK_STATES] = links
            if request.user.is_authenticated and request.user.pk == linker:
                request.sso_linking = request.user  # type: ignore[attr-defined]
        return super().get(request)

    @property
    def failure_url(self) -> str:
        linking = getattr(self.request, "sso_linking", None) is not None
        reason = getattr(self.request, "sso_refusal", None) or (LINK if linking else FAILED)
        return FAILURE_URLS[reason]


class SsoBackend(OIDCAuthenticationBackend):
    """The authorization code exchanged, the ID token checked, the person found (by the token's
    issuer and subject) or created (accounts.sso_people)."""

    get_settings = staticmethod(sso_setting)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # No discovery here: Django makes a backend for every sign-in, passwords included.
        self.UserModel = User
        self.OIDC_RP_IDP_SIGN_KEY = None
        self.OIDC_RP_SIGN_ALGO = "RS256"

    def authenticate(self, request: HttpRequest | None, **kwargs: Any) -> User | None:
        if request is None or not sso_enabled() or "code" not in request.GET:
            return None
        if len(request.GET["code"]) > CODE_MAX_LENGTH:
            logger.warning(
                "Single sign-on refused: a code of %d characters", len(request.GET["code"])
            )
            return None
        self.OIDC_OP_TOKEN_ENDPOINT = sso_setting("OIDC_OP_TOKEN_ENDPOINT")
        self.OIDC_OP_USER_ENDPOINT = sso_setting("OIDC_OP_USER_ENDPOINT")
        self.OIDC_OP_JWKS_ENDPOINT = sso_setting("OIDC_OP_JWKS_ENDPOINT")
        self.OIDC_RP_CLIENT_ID = settings.SSO_OIDC_CLIENT_ID
        self.OIDC_RP_CLIENT_SECRET = settings.SSO_OIDC_CLIENT_SECRET
        try:
            return super().authenticate(request, **kwargs)
        except requests.RequestException as error:
            # A code the provider refused (expired, used already): no sign-in, nothing created.
            # The kind only: the provider's answer may quote the request.
            logger.warning("Single sign-on refused by the provider: %s", type(error).__name__)
            return None
        except (SuspiciousOperation, jwt.PyJWTError) as error:
            # A token that does not verify (or none, where the provider answered without one);
            # the reason (never the token) goes to the log.
            logger.warning("Single sign-on refused: %s", error)
            return None

    def _verify_jws(self, payload: Any, key: Any) -> dict[str, Any]:
        """The ID token: signed with the provider's key (RS256 only), for us (``aud``), by the
        issuer (``iss``), not expired (``exp``, ``iat``)."""
        if jwt.get_unverified_header(payload).get("alg") != "RS256":
            raise SuspiciousOperation("The ID token is not signed with RS256.")
        try:
            return jwt.decode(
                payload,
                key,
                algorithms=["RS256"],
                audience=settings.SSO_OIDC_CLIENT_ID,
                issuer=discovery()["issuer"],
                options={"require": ["exp", "iat", "iss", "aud", "sub"]},
                leeway=30,
            )
        except jwt.InvalidTokenError as error:
            raise SuspiciousOperation(f"ID token refused: {type(error).__name__}") from None

    def get_or_create_user(self, access_token: Any, id_token: Any, payload: Any) -> User:
        """``payload`` is the verified ID token: its ``iss`` and ``sub`` name the person; the
        user info (email, names, roles) must be of the same ``sub`` (OpenID Connect Core
        5.3.2), or it could be another person's."""
        try:
            issuer, subject = identity_of(payload)
            claims = self.get_userinfo(access_token, id_token, payload)
            if not isinstance(claims, dict) or claims.get("sub") != subject:
                raise SsoRefused("The user info is not of the ID token's subject.")
            if not self.verify_claims(claims):
                raise SsoRefused("Claims verification failed.")
            return person_for(
                issuer=issuer,
                subject=subject,
                claims=claims,
                linking=getattr(self.request, "sso_linking", None),
            )
        except SsoRefused as refusal:
            # For the callback's failure page (the request is the view's).
            self.request.sso_refusal = refusal.reason
            raise

    def verify_claims(self, claims: dict[str, Any]) -> bool:
        return email_acceptable(claims)

    def filter_users_by_claims(self, claims: dict[str, Any]) -> Any:
        # Never used (get_or_create_user finds people by identity): never a match by email.
        return User.objects.none()


def sso_context(request: HttpRequest) -> dict[str, Any]:
    """For the sign-in pages: whether to offer single sign-on, and passwords."""
    return {
        "sso_enabled": sso_enabled(),
        "sso_label": settings.SSO_BUTTON_LABEL,
        "password_login": settings.SSO_PASSWORD_LOGIN or not sso_enabled(),
    }
