"""Admin sign-in lockout: after a few failures a user name, or an address, is locked for a while.

Failures are counted in the "ratelimit" cache, which every server process shares (the same
counters as the API's rate limits), under a hash of the user name (case-folded) and under the
client's address. A count opens with the first failure and lasts ``ADMIN_LOGIN_LOCKOUT_SECONDS``;
at the limit, sign-in is refused without looking at the password until the count expires. A
successful sign-in forgives the user name's earlier failures (not the address's).
"""

from __future__ import annotations

import hashlib
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core.cache import caches
from django.http import HttpRequest

LOCKED_MESSAGE = (
    "Too many failed sign-ins for this account or from this address; try again in at most "
    "%(minutes)d minutes."
)


def client_address(request: HttpRequest) -> str:
    """The client's address: REMOTE_ADDR, or behind a trusted proxy the address it saw last."""
    if settings.TRUST_X_FORWARDED_FOR:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        # The right-most entry is the one our proxy added; those before it are the client's say.
        last = forwarded.rsplit(",", 1)[-1].strip()
        if last:
            return last
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def _keys(username: str, address: str) -> list[tuple[str, int]]:
    digest = hashlib.sha256(username.casefold().encode()).hexdigest()[:32]
    return [
        (f"login:user:{digest}", settings.ADMIN_LOGIN_FAILURE_LIMIT),
        (f"login:address:{address}", settings.ADMIN_LOGIN_ADDRESS_FAILURE_LIMIT),
    ]


def login_locked(*, username: str, address: str) -> bool:
    cache = caches["ratelimit"]
    return any((cache.get(key) or 0) >= limit for key, limit in _keys(username, address))


def login_failed(*, username: str, address: str) -> None:
    cache = caches["ratelimit"]
    timeout = settings.ADMIN_LOGIN_LOCKOUT_SECONDS
    for key, _ in _keys(username, address):
        if not cache.add(key, 1, timeout=timeout):
            try:
                cache.incr(key)
            except ValueError:  # expired between add() and incr()
                cache.add(key, 1, timeout=timeout)


def login_succeeded(*, username: str) -> None:
    user_key = _keys(username, "")[0][0]
    caches["ratelimit"].delete(user_key)


PASSWORD_LOGIN_OFF_MESSAGE = "Sign-in with a password is off here; use single sign-on."  # noqa: S105


class GuardedAdminAuthenticationForm(AdminAuthenticationForm):
    """The admin's sign-in form, refused while the user name or the address is locked."""

    def clean(self) -> dict[str, Any]:
        if settings.SSO_OIDC_ISSUER and not settings.SSO_PASSWORD_LOGIN:
            # Single sign-on only (accounts.sso): no password is checked at all.
            raise forms.ValidationError(PASSWORD_LOGIN_OFF_MESSAGE, code="password_login_off")
        username = str(self.cleaned_data.get("username") or "")
        address = client_address(self.request)
        if login_locked(username=username, address=address):
            raise forms.ValidationError(
                LOCKED_MESSAGE,
                code="locked",
                params={"minutes": max(1, round(settings.ADMIN_LOGIN_LOCKOUT_SECONDS / 60))},
            )
        try:
            cleaned = super().clean()
        except forms.ValidationError:
            login_failed(username=username, address=address)
            raise
        login_succeeded(username=username)
        return cleaned
