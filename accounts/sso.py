"""Single sign-on for staff and members through an OpenID Connect provider (Keycloak, Okta,
Azure AD, Google...), on mozilla-django-oidc: its views keep the state, nonce and PKCE verifier
in the session and its backend exchanges the code; this module adds what it leaves out.

- **Discovery**: the provider's endpoints come from ``<SSO_OIDC_ISSUER>/.well-known/
  openid-configuration`` (read once per process, its ``issuer`` checked), not from settings.
- **The ID token** is checked for its signature (the provider's JWKS, RS256), ``aud`` (our
  client id), ``iss`` (the issuer), ``exp`` and ``nonce``; anything else is refused.
- **Who gets in, where**: a verified email, of ``SSO_EMAIL_DOMAINS`` when set; a new person
  joins the organization their email's domain names (``SSO_ORGANIZATIONS_BY_DOMAIN``) or else
  ``SSO_ORGANIZATION``, with the role of ``SSO_ROLE_CLAIM`` when the claim lists one, else
  ``SSO_ROLE``; they are staff (the admin shows them their organizations). A person is created
  only once every check passed, in one transaction. Superusers never sign in this way.

Everything is off until ``SSO_OIDC_ISSUER`` is set (docs/configuration.md).
"""

from __future__ import annotations

import logging
import re
import threading
from typing import Any

import jwt
import requests
from django.conf import settings
from django.contrib.auth.models import Group
from django.core.exceptions import SuspiciousOperation
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponseBase, HttpResponseRedirect
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.utils import import_from_settings
from mozilla_django_oidc.views import (
    OIDCAuthenticationCallbackView,
    OIDCAuthenticationRequestView,
)

from accounts.models import Membership, Organization, User
from accounts.services import member_add

logger = logging.getLogger(__name__)

ROLE_ORDER = [Membership.Role.OWNER, Membership.Role.ADMIN, Membership.Role.MEMBER]

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
        "LOGIN_REDIRECT_URL_FAILURE": "/accounts/login/?sso=failed",
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
        try:
            self.OIDC_OP_AUTH_ENDPOINT = sso_setting("OIDC_OP_AUTHORIZATION_ENDPOINT")
        except (requests.RequestException, ValueError, KeyError) as error:
            # The provider cannot be reached (or answers no configuration): say so, no 500.
            logger.warning("Single sign-on discovery failed: %s", type(error).__name__)
            return HttpResponseRedirect(sso_setting("LOGIN_REDIRECT_URL_FAILURE"))
        self.OIDC_RP_CLIENT_ID = sso_setting("OIDC_RP_CLIENT_ID")
        return super().dispatch(request, *args, **kwargs)


class SsoCallbackView(OIDCAuthenticationCallbackView):
    """``/oidc/callback/``: a wrong or replayed state is refused (400) before anything else."""

    get_settings = staticmethod(sso_setting)

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not sso_enabled():
            raise Http404
        return super().dispatch(request, *args, **kwargs)


class SsoBackend(OIDCAuthenticationBackend):
    """The authorization code exchanged, the ID token checked, the person found or created."""

    get_settings = staticmethod(sso_setting)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # No discovery here: Django makes a backend for every sign-in, passwords included.
        self.UserModel = User
        self.OIDC_RP_IDP_SIGN_KEY = None
        self.OIDC_RP_SIGN_ALGO = "RS256"

    def authenticate(self, request: HttpRequest | None, **kwargs: Any) -> User | None:
        if request is None or not sso_enabled() or "code" not in request.GET:
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
        except SuspiciousOperation as error:
            # A token that does not verify; the reason (never the token) goes to the log.
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

    def verify_claims(self, claims: dict[str, Any]) -> bool:
        email = str(claims.get("email") or "")
        if not email or claims.get("email_verified") is False:
            return False
        domains = [d.lower() for d in settings.SSO_EMAIL_DOMAINS]
        return not domains or _domain(email) in domains

    def filter_users_by_claims(self, claims: dict[str, Any]) -> Any:
        return User.objects.filter(email__iexact=claims["email"])

    def create_user(self, claims: dict[str, Any]) -> User:
        organization = _organization_for(claims)
        with transaction.atomic():
            user = User(
                username=_username_for(claims["email"]),
                email=claims["email"],
                first_name=str(claims.get("given_name") or "")[:150],
                last_name=str(claims.get("family_name") or "")[:150],
                is_staff=True,
            )
            user.set_unusable_password()
            user.save()
            if settings.SSO_STAFF_GROUP:
                user.groups.add(Group.objects.get_or_create(name=settings.SSO_STAFF_GROUP)[0])
            member_add(organization=organization, user=user, role=_role_for(claims))
        logger.info("Single sign-on created user %s in %s", user.username, organization.slug)
        return user

    def update_user(self, user: User, claims: dict[str, Any]) -> User:
        """A person already here joins the organization if they are not in it yet (their role
        there, if any, is kept: it is changed in the admin)."""
        if user.is_superuser:
            # Whoever controls the address at the provider must not become a superuser here.
            raise SuspiciousOperation("A superuser signs in with their password only.")
        organization = _organization_for(claims)
        if not Membership.objects.filter(user=user, organization=organization).exists():
            member_add(organization=organization, user=user, role=_role_for(claims))
        return user


def _domain(email: str) -> str:
    return email.rpartition("@")[2].lower()


def _organization_for(claims: dict[str, Any]) -> Organization:
    by_domain = {k.lower(): v for k, v in settings.SSO_ORGANIZATIONS_BY_DOMAIN.items()}
    slug = by_domain.get(_domain(str(claims["email"])), settings.SSO_ORGANIZATION)
    organization = Organization.objects.filter(slug=slug).first() if slug else None
    if organization is None:
        raise SuspiciousOperation("No organization for this person (SSO_ORGANIZATION...).")
    return organization


def _role_for(claims: dict[str, Any]) -> str:
    listed = claims.get(settings.SSO_ROLE_CLAIM) if settings.SSO_ROLE_CLAIM else None
    values = {
        str(v).lower() for v in (listed if isinstance(listed, list) else [listed] if listed else [])
    }
    for role in ROLE_ORDER:
        if role.value in values:
            return role.value
    return settings.SSO_ROLE


def _username_for(email: str) -> str:
    base = re.sub(r"[^\w.@+-]", "", email)[:140] or "user"
    name, number = base, 1
    while User.objects.filter(username=name).exists():
        number += 1
        name = f"{base}-{number}"
    return name


def sso_context(request: HttpRequest) -> dict[str, Any]:
    """For the sign-in pages: whether to offer single sign-on, and passwords."""
    return {
        "sso_enabled": sso_enabled(),
        "sso_label": settings.SSO_BUTTON_LABEL,
        "password_login": settings.SSO_PASSWORD_LOGIN or not sso_enabled(),
    }
