"""An existing account is linked to single sign-on only by its user, signed in, confirming it
(``/oidc/link/``), with the provider's account of the same address, and never across
organizations (issue 46, item 1); the link page and its callback answer a redirect or a 4xx to
whatever they are sent (item 12)."""

from __future__ import annotations

from typing import Any

import pytest
import requests
from django.test import Client

from accounts.models import Membership, Organization, SsoIdentity, User
from accounts.services import member_add
from tests.accounts.sso_flow import (
    Idp,
    browser_of,
    csrf_token_of,
    signed_in,
)
from tests.accounts.test_sso import callback_of, provider_session, start

pytestmark = pytest.mark.django_db(transaction=True)

PEOPLE = [
    {"username": "olivia-at-acme", "email": "Olivia@ACME.test"},
    {"username": "staffb-at-acme", "email": "StaffB@Example.com"},
    {"username": "carol", "email": "carol@acme.test"},
]
REFUSED = "/oidc/link/?refused=1"


def link(idp: Idp, live_url: str, browser: requests.Session, username: str) -> requests.Response:
    """The signed-in browser confirms the link, signs in at the provider as ``username``, and
    comes back: the service's last answer."""
    page = browser.get(f"{live_url}/oidc/link/")
    assert page.status_code == 200, page.text
    confirmed = browser.post(
        f"{live_url}/oidc/link/",
        data={"csrfmiddlewaretoken": csrf_token_of(page.text)},
        allow_redirects=False,
    )
    assert confirmed.status_code == 302, confirmed.text
    return browser.get(
        callback_of(provider_session(idp.provider, username), confirmed.headers["Location"])
    )


def test_a_signed_in_user_links_their_account_and_then_signs_in_by_it(
    acme_sso: Idp, live_server: Any, owner: User
) -> None:
    done = link(acme_sso, live_server.url, browser_of(live_server.url, owner), "olivia-at-acme")

    assert done.url == f"{live_server.url}/oidc/link/"
    assert "is linked" in done.text
    identity = SsoIdentity.objects.get()
    assert (identity.user, identity.issuer) == (owner, acme_sso.provider.url)
    later, authorize = start(live_server.url)
    later.get(callback_of(provider_session(acme_sso.provider, "olivia-at-acme"), authorize))
    assert signed_in(later) == owner.username
    assert later.get(f"{live_server.url}/settings/acme/").status_code == 200
    assert list(
        Membership.objects.filter(user=owner).values_list("organization__slug", "role")
    ) == [("acme", "owner")]


def test_an_existing_accounts_address_leads_to_the_link(
    acme_sso: Idp, live_server: Any, owner: User
) -> None:
    """Signing in with single sign-on first says what to do; the password form goes on to the
    link page."""
    browser, authorize = start(live_server.url)

    answer = browser.get(
        callback_of(provider_session(acme_sso.provider, "olivia-at-acme"), authorize)
    )

    assert "sign in with your password" in answer.text.lower()
    assert 'name="next" value="/oidc/link/"' in answer.text
    assert signed_in(browser) is None


def test_a_link_to_another_address_is_refused(acme_sso: Idp, live_server: Any, owner: User) -> None:
    browser = browser_of(live_server.url, owner)

    done = link(acme_sso, live_server.url, browser, "carol")

    assert done.url == f"{live_server.url}{REFUSED}"
    assert 'id="link-refused"' in done.text
    assert signed_in(browser) == owner.username
    assert not SsoIdentity.objects.exists()
    assert not User.objects.filter(email="carol@acme.test").exists()


def test_a_link_never_crosses_organizations(
    acme_sso: Idp, live_server: Any, other_organization: Organization
) -> None:
    """staffb owns globex; acme's provider has their address: they cannot link it, and are
    not made a member of acme."""
    staffb = User.objects.create_user(username="staffb", email="staffb@example.com")
    member_add(organization=other_organization, user=staffb, role="owner")

    done = link(acme_sso, live_server.url, browser_of(live_server.url, staffb), "staffb-at-acme")

    assert done.url == f"{live_server.url}{REFUSED}"
    assert not SsoIdentity.objects.exists()
    assert Membership.objects.filter(user=staffb).count() == 1


def test_an_account_in_two_organizations_is_not_linked(
    acme_sso: Idp, live_server: Any, owner: User, other_organization: Organization
) -> None:
    member_add(organization=other_organization, user=owner, role="member")

    done = link(acme_sso, live_server.url, browser_of(live_server.url, owner), "olivia-at-acme")

    assert done.url == f"{live_server.url}{REFUSED}"
    assert not SsoIdentity.objects.exists()


def test_linking_to_another_accounts_identity_signs_in_no_one_else(
    acme_sso: Idp, live_server: Any, owner: User
) -> None:
    first, authorize = start(live_server.url)
    first.get(callback_of(provider_session(acme_sso.provider, "carol"), authorize))
    carol = User.objects.get(email="carol@acme.test")
    browser = browser_of(live_server.url, owner)

    done = link(acme_sso, live_server.url, browser, "carol")

    assert done.url == f"{live_server.url}{REFUSED}"
    assert signed_in(browser) == owner.username
    assert SsoIdentity.objects.get().user == carol


def test_a_superuser_is_not_linked(acme_sso: Idp, live_server: Any) -> None:
    root = User.objects.create_superuser(
        username="root", email="olivia@acme.test", password="x" * 20
    )
    client = Client()
    client.force_login(root)

    page = client.get("/oidc/link/")
    confirmed = client.post("/oidc/link/")

    assert "cannot be linked" in page.content.decode()
    assert confirmed.status_code == 200
    assert "sso_link_states" not in client.session
    assert not SsoIdentity.objects.exists()


def test_the_link_page_probed(acme_sso: Idp, owner: User) -> None:
    anonymous = Client(enforce_csrf_checks=True)
    signed = Client(enforce_csrf_checks=True)
    signed.force_login(owner)

    assert anonymous.get("/oidc/link/")["Location"].startswith("/accounts/login/?next=")
    assert anonymous.post("/oidc/link/").status_code == 403
    assert signed.post("/oidc/link/").status_code == 403  # no CSRF token: not confirmed
    plain = Client()
    plain.force_login(owner)
    assert plain.put("/oidc/link/").status_code == 405
    assert signed.get("/oidc/link/?refused=" + "1" * 100_000).status_code == 200
    assert "sso_link_states" not in signed.session


def test_the_link_page_is_off_without_single_sign_on(owner: User) -> None:
    client = Client()
    client.force_login(owner)

    assert client.get("/oidc/link/").status_code == 404
