"""Single sign-on for staff and members through an OpenID Connect provider (Keycloak, Okta,
Azure AD, Google...), on mozilla-django-oidc: its views keep the state, nonce and PKCE verifier
in the session and its backend exchanges the code; this module adds what it leaves out.

- **The provider is asked through core.engine.fetch**, as every outbound URL is (discovery, the
  token, the keys, the user info): one deadline of ``SSO_OIDC_TIMEOUT_SECONDS``, 1 MiB at most,
  no redirects, proxies ignored, every address checked (``provider_policy``).
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

import json
import logging
import threading
from typing import Any
from urllib.parse import urlencode, urlsplit

import jwt
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
from core.engine.fetch import Fetched, FetchError, FetchPolicy, fetch, post

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
# Far more than a discovery document, a key set, a token or a person's claims ever take.
PROVIDER_MAX_BYTES = 1024 * 1024

_discovered: dict[str, dict[str, Any]] = {}
_lock = threading.Lock()


def sso_enabled() -> bool:
    return bool(settings.SSO_OIDC_ISSUER)


class ProviderError(Exception):
    """The provider could not be asked, or did not answer what was asked. The message says which
    (a fetch error's code, a status), never the answer: it may quote the request."""


def provider_policy() -> FetchPolicy:
    """How the provider is asked. Its endpoints are fixed URLs (the issuer's, and what its
    discovery names): a redirect is refused rather than followed with a code or a token. The
    issuer's host is let through even when private, as if in FETCH_ALLOW_HOSTS: the operator
    named it (SSO_OIDC_ISSUER), and a provider on the intranet is common. An endpoint the
    discovery puts on another host passes the guard like any URL: public, or in FETCH_ALLOW_*."""
    issuer_host = urlsplit(settings.SSO_OIDC_ISSUER).hostname
    allow_hosts = {*settings.FETCH_ALLOW_HOSTS, *([issuer_host] if issuer_host else [])}
    return FetchPolicy(
        deadline_seconds=settings.SSO_OIDC_TIMEOUT_SECONDS,
        max_bytes=PROVIDER_MAX_BYTES,
        allow_hosts=frozenset(allow_hosts),
        allow_networks=tuple(settings.FETCH_ALLOW_NETWORKS),
        user_agent="docautomation-sso/1",
    )


def _get(url: str, headers: dict[str, str] | None = None) -> Fetched:
    try:
        return fetch(url, provider_policy(), headers=headers)
    except FetchError as error:
        raise ProviderError(error.code) from error
    except ValueError as error:  # a header of characters no header may have (a bad token)
        raise ProviderError("bad header") from error


def _json(data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError as error:  # UnicodeDecodeError included
        raise ProviderError("no JSON") from error


def discovery() -> dict[str, Any]:
    """The provider's OpenID configuration, fetched once per issuer and process."""
    issuer = settings.SSO_OIDC_ISSUER.rstrip("/")
    with _lock:
        if issuer not in _discovered:
            document = _json(_get(f"{issuer}/.well-known/openid-configuration").data)
            if not isinstance(document, dict):
                raise ProviderError("no configuration")
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
        except (ProviderError, KeyError) as error:
            # The provider cannot be reached (or answers no configuration): say so, no 500.
            reason = error if isinstance(error, ProviderError) else type(error).__name__
            logger.warning("Single sign-on discovery failed: %s", reason)
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
        except ProviderError as error:
            # A code the provider refused (expired, used already): no sign-in, nothing created.
            # The kind only: the provider's answer may quote the request.
            logger.warning("Single sign-on refused by the provider: %s", error)
            return None
        except (SuspiciousOperation, jwt.PyJWTError) as error:
            # A token that does not verify (or none, where the provider answered without one);
            # the reason (never the token) goes to the log.
            logger.warning("Single sign-on refused: %s", error)
            return None

    # mozilla-django-oidc asks the provider with requests; these three ask through
    # core.engine.fetch instead (provider_policy), and do what its own did with the answers.

    def get_token(self, payload: dict[str, Any]) -> dict[str, Any]:
        """The code exchanged (client_secret_post, as mozilla-django-oidc's default)."""
        try:
            answer = post(
                self.OIDC_OP_TOKEN_ENDPOINT,
                urlencode(payload).encode(),
                provider_policy(),
                headers={"Content-Type": "application/x-www-form-urlencoded"},
            )
        except FetchError as error:
            raise ProviderError(error.code) from error
        if answer.status != 200 or answer.truncated:
            raise ProviderError(f"token endpoint status {answer.status}")
        token = _json(answer.body)
        if not isinstance(token, dict):
            raise ProviderError("no token")
        return token

    def retrieve_matching_jwk(self, token: Any) -> jwt.PyJWK:
        """The provider's key that signed ``token``: of its ``kid``, and of its ``alg`` when the
        key names one (mozilla-django-oidc's rule, the last such key of the set)."""
        keys = _json(_get(self.OIDC_OP_JWKS_ENDPOINT).data)
        header = jwt.get_unverified_header(token)
        key = None
        for jwk in keys["keys"]:
            if jwk["kid"] != str(header["kid"]):
                continue
            if "alg" in jwk and jwk["alg"] != str(header["alg"]):
                continue
            key = jwk
        if key is None:
            raise SuspiciousOperation("Could not find a valid JWKS.")
        return jwt.PyJWK(key)

    def get_userinfo(self, access_token: Any, id_token: Any, payload: Any) -> Any:
        """The person's claims, as JSON or as a signed JWT (OpenID Connect Core 5.3.2)."""
        answer = _get(self.OIDC_OP_USER_ENDPOINT, {"Authorization": f"Bearer {access_token}"})
        if answer.content_type == "application/jwt":
            return self.verify_token(answer.data.decode())
        return _json(answer.data)

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
