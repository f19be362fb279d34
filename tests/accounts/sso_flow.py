"""Helpers of the single sign-on identity tests (test_sso_takeover.py, test_sso_link.py): a test
provider (tests/oidc_provider/) whose people the test can change, and the service's sessions as
a browser holds them."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests
from django.contrib.sessions.backends.db import SessionStore

from accounts import sso
from accounts.models import User
from tests.accounts.test_sso import PASSWORD, SECRETS, _clients
from tests.oidc_provider.server import Provider, oidc_provider

__all__ = ["PASSWORD", "Idp", "running_idp", "sso_settings", "signed_in", "browser_of"]


@dataclass(frozen=True)
class Idp:
    provider: Provider
    database: Path  # the provider's SQLite file: its people, which a test may change

    def set_email(self, username: str, email: str) -> None:
        with closing(sqlite3.connect(self.database)) as db, db:
            db.execute("UPDATE auth_user SET email = ? WHERE username = ?", (email, username))


@contextmanager
def running_idp(directory: Path, live_url: str, people: list[dict[str, Any]]) -> Iterator[Idp]:
    people = [{"password": PASSWORD, "roles": [], **person} for person in people]
    with oidc_provider(directory, people=people, clients=_clients(live_url)) as provider:
        yield Idp(provider=provider, database=directory / "provider.sqlite3")


def sso_settings(settings: Any, idp: Idp, organization_slug: str) -> None:
    settings.SSO_OIDC_ISSUER = idp.provider.url
    settings.SSO_OIDC_CLIENT_ID = "docs"
    settings.SSO_OIDC_CLIENT_SECRET = SECRETS["docs"]
    settings.SSO_ORGANIZATION = organization_slug
    sso._discovered.clear()


def signed_in(session: requests.Session) -> str | None:
    """The user name the service's session of this browser is signed in as, if any."""
    key = session.cookies.get("sessionid")
    user_id = SessionStore(session_key=key).get("_auth_user_id") if key else None
    return User.objects.get(pk=user_id).username if user_id else None


def browser_of(live_url: str, user: User) -> requests.Session:
    """A browser signed in to the service as ``user``, by their password."""
    user.set_password(PASSWORD)
    user.save()
    browser = requests.Session()
    page = browser.get(f"{live_url}/accounts/login/")
    signed = browser.post(
        f"{live_url}/accounts/login/",
        data={
            "csrfmiddlewaretoken": csrf_token_of(page.text),
            "username": user.username,
            "password": PASSWORD,
        },
        allow_redirects=False,
    )
    assert signed.status_code == 302, signed.text
    return browser


def csrf_token_of(page: str) -> str:
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert found, page
    return found.group(1)
