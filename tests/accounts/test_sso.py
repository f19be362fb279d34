"""Single sign-on against a real OpenID provider (django-oauth-toolkit in its own process on
127.0.0.1, tests/oidc_provider/): a person signs in with Chromium and lands in the admin and on
their organization's settings page; a wrong audience, a bad signature, a re-used or expired
code, a wrong state or a wrong nonce is refused with nothing created."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import requests
from django.core.exceptions import SuspiciousOperation

from accounts import sso
from accounts.models import Membership, Organization, User
from tests.browser import watched_tab
from tests.oidc_provider.server import Provider, oidc_provider

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-horse-battery"  # noqa: S105 - the test provider's person
PEOPLE = [
    {
        "username": "ada",
        "password": PASSWORD,
        "email": "ada@acme.test",
        "first_name": "Ada",
        "last_name": "Lovelace",
        "roles": ["admin"],
    },
    {"username": "bob", "password": PASSWORD, "email": "bob@acme.test", "roles": []},
]
SECRETS = {"docs": "docs-secret-0123456789", "other": "other-secret-0123456789"}


def _clients(live_url: str) -> list[dict[str, str]]:
    return [
        {"client_id": name, "client_secret": secret, "redirect_uri": f"{live_url}/oidc/callback/"}
        for name, secret in SECRETS.items()
    ]


@pytest.fixture(scope="module")
def provider(tmp_path_factory: pytest.TempPathFactory, live_server: Any) -> Iterator[Provider]:
    with oidc_provider(
        tmp_path_factory.mktemp("oidc"), people=PEOPLE, clients=_clients(live_server.url)
    ) as running:
        yield running


@pytest.fixture
def acme(organization: Organization) -> Organization:
    return organization


@pytest.fixture
def sso_on(settings: Any, provider: Provider, acme: Organization) -> Provider:
    settings.SSO_OIDC_ISSUER = provider.url
    settings.SSO_OIDC_CLIENT_ID = "docs"
    settings.SSO_OIDC_CLIENT_SECRET = SECRETS["docs"]
    settings.SSO_ORGANIZATION = acme.slug
    settings.SSO_ROLE_CLAIM = "roles"
    sso._discovered.clear()
    return provider


def provider_session(provider: Provider, username: str) -> requests.Session:
    """A browser-like session signed in at the provider."""
    session = requests.Session()
    page = session.get(f"{provider.origin}/login/", timeout=30)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    session.post(
        f"{provider.origin}/login/",
        data={"csrfmiddlewaretoken": token, "username": username, "password": PASSWORD},
        headers={"Referer": f"{provider.origin}/login/"},
        timeout=30,
    )
    return session


def start(live_url: str) -> tuple[requests.Session, str]:
    """A sign-in begun at the service: its session and the provider's authorize URL."""
    session = requests.Session()
    answer = session.get(f"{live_url}/oidc/authenticate/", allow_redirects=False, timeout=30)
    assert answer.status_code == 302, answer.text
    return session, answer.headers["Location"]


def callback_of(at_provider: requests.Session, authorize_url: str) -> str:
    """The provider's redirect back to the service (with code and state), not followed."""
    answer = at_provider.get(authorize_url, allow_redirects=False, timeout=30)
    assert answer.status_code == 302, answer.text
    return answer.headers["Location"]


def people() -> list[str]:
    return sorted(User.objects.values_list("username", flat=True))


@pytest.mark.browser
def test_a_person_signs_in_and_lands_in_the_admin_and_their_settings(
    sso_on: Provider, browser: Any, live_server: Any, owner: User
) -> None:
    with watched_tab(browser) as tab:
        tab.goto(f"{live_server.url}/admin/login/?next=/admin/")
        tab.click("#sso-login")
        tab.wait_for_url(re.compile(rf"^{re.escape(sso_on.origin)}/login/"))
        tab.fill("#id_username", "ada")
        tab.fill("#id_password", PASSWORD)
        tab.click("button[type=submit]")
        tab.wait_for_url(f"{live_server.url}/admin/")
        admin_heading = tab.locator("#site-name").inner_text()
        tab.goto(f"{live_server.url}/settings/")
        settings_page = tab.content()

    ada = User.objects.get(email="ada@acme.test")
    assert admin_heading
    assert "Acme Inc." in settings_page
    assert (ada.is_staff, ada.is_superuser, ada.has_usable_password()) == (True, False, False)
    assert (ada.first_name, ada.last_name) == ("Ada", "Lovelace")
    membership = Membership.objects.get(user=ada)
    assert (membership.organization.slug, membership.role) == ("acme", "admin")  # the claim


def test_without_a_role_claim_the_default_role(sso_on: Provider, live_server: Any) -> None:
    session, authorize = start(live_server.url)
    done = session.get(callback_of(provider_session(sso_on, "bob"), authorize), timeout=30)

    assert done.url == f"{live_server.url}/admin/"
    bob = User.objects.get(email="bob@acme.test")
    assert Membership.objects.get(user=bob).role == "member"
    # A member's permissions out of the box (accounts.sso_roles): the admin is not empty.
    assert bob.has_perm("templates_app.change_pdftemplate")
    assert bob.has_perm("esign.view_packet")
    assert not bob.has_perm("esign.add_bulkbatch")
    admin_page = session.get(f"{live_server.url}/admin/", timeout=30).text
    assert "/admin/templates_app/pdftemplate/" in admin_page
    assert "/admin/esign/packet/" in admin_page


def test_a_wrong_state_is_refused_and_creates_nothing(sso_on: Provider, live_server: Any) -> None:
    session, authorize = start(live_server.url)
    back = callback_of(provider_session(sso_on, "ada"), authorize)
    query = parse_qs(urlsplit(back).query)
    forged = f"{live_server.url}/oidc/callback/?" + urlencode(
        {"code": query["code"][0], "state": "not-the-state"}
    )

    answer = session.get(forged, timeout=30)

    assert answer.status_code == 400
    assert people() == []


def test_a_re_used_code_is_refused_and_creates_nothing(sso_on: Provider, live_server: Any) -> None:
    first, authorize = start(live_server.url)
    first_state = parse_qs(urlsplit(authorize).query)["state"][0]
    kept = _session_states(first, live_server)[first_state]  # its nonce and PKCE verifier
    back = callback_of(provider_session(sso_on, "bob"), authorize)
    assert first.get(back, timeout=30).url == f"{live_server.url}/admin/"
    User.objects.all().delete()  # bob again would be new: nothing may create him
    code = parse_qs(urlsplit(back).query)["code"][0]
    # The code comes back again, to a new sign-in holding the first one's nonce and verifier:
    # only the code's second use is wrong.
    second, authorize_again = start(live_server.url)
    state = parse_qs(urlsplit(authorize_again).query)["state"][0]
    _session_states_save(second, {state: kept})

    answer = second.get(
        f"{live_server.url}/oidc/callback/?" + urlencode({"code": code, "state": state}),
        timeout=30,
    )

    assert answer.url == f"{live_server.url}/accounts/login/?sso=failed"
    assert "did not sign you in" in answer.text
    assert people() == []


def test_an_expired_code_is_refused_and_creates_nothing(
    settings: Any, tmp_path: Path, live_server: Any, acme: Organization
) -> None:
    # A provider whose codes expire as they are issued (no clock to move in another process).
    with oidc_provider(
        tmp_path, people=PEOPLE, clients=_clients(live_server.url), code_seconds=-1
    ) as expiring:
        settings.SSO_OIDC_ISSUER = expiring.url
        settings.SSO_OIDC_CLIENT_ID = "docs"
        settings.SSO_OIDC_CLIENT_SECRET = SECRETS["docs"]
        settings.SSO_ORGANIZATION = acme.slug
        sso._discovered.clear()
        session, authorize = start(live_server.url)
        answer = session.get(callback_of(provider_session(expiring, "ada"), authorize), timeout=30)

    assert answer.url == f"{live_server.url}/accounts/login/?sso=failed"
    assert people() == []


def test_a_wrong_nonce_is_refused_and_creates_nothing(sso_on: Provider, live_server: Any) -> None:
    """Two sign-ins begun in one session: the code of the second comes back with the state of
    the first, whose nonce is not the token's (the PKCE verifier is the second's, so only the
    nonce is wrong)."""
    session, first_authorize = start(live_server.url)
    second = session.get(f"{live_server.url}/oidc/authenticate/", allow_redirects=False)
    at_provider = provider_session(sso_on, "ada")
    back = callback_of(at_provider, second.headers["Location"])
    first_state = parse_qs(urlsplit(first_authorize).query)["state"][0]
    second_state = parse_qs(urlsplit(back).query)["state"][0]
    code = parse_qs(urlsplit(back).query)["code"][0]
    # Swap the two states' entries: the first state now holds the second's PKCE verifier.
    states = _session_states(session, live_server)
    states[first_state]["code_verifier"] = states[second_state]["code_verifier"]
    _session_states_save(session, states)

    answer = session.get(
        f"{live_server.url}/oidc/callback/?" + urlencode({"code": code, "state": first_state}),
        timeout=30,
    )

    assert answer.url == f"{live_server.url}/accounts/login/?sso=failed"
    assert people() == []


def _session_of(session: requests.Session) -> Any:
    from django.contrib.sessions.backends.db import SessionStore

    return SessionStore(session_key=session.cookies["sessionid"])


def _session_states(session: requests.Session, live_server: Any) -> dict[str, Any]:
    return dict(_session_of(session)["oidc_states"])


def _session_states_save(session: requests.Session, states: dict[str, Any]) -> None:
    store = _session_of(session)
    store["oidc_states"] = states
    store.save()


def _token_for(provider: Provider, client_id: str, redirect_uri: str) -> dict[str, Any]:
    """A real ID token from the provider for ``client_id`` (the code flow with PKCE)."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=")
    at_provider = provider_session(provider, "ada")
    back = at_provider.get(
        f"{provider.url}/authorize/?"
        + urlencode(
            {
                "response_type": "code",
                "client_id": client_id,
                "redirect_uri": redirect_uri,
                "scope": "openid email",
                "state": "s",
                "nonce": "n",
                "code_challenge": challenge.decode(),
                "code_challenge_method": "S256",
            }
        ),
        allow_redirects=False,
        timeout=30,
    ).headers["Location"]
    return requests.post(
        f"{provider.url}/token/",
        data={
            "grant_type": "authorization_code",
            "code": parse_qs(urlsplit(back).query)["code"][0],
            "redirect_uri": redirect_uri,
            "client_id": client_id,
            "client_secret": SECRETS[client_id],
            "code_verifier": verifier,
        },
        timeout=30,
    ).json()


def test_an_id_token_for_another_client_is_refused(sso_on: Provider, live_server: Any) -> None:
    token = _token_for(sso_on, "other", f"{live_server.url}/oidc/callback/")["id_token"]
    mine = _token_for(sso_on, "docs", f"{live_server.url}/oidc/callback/")["id_token"]
    backend = sso.SsoBackend()
    backend.OIDC_OP_JWKS_ENDPOINT = sso.discovery()["jwks_uri"]

    assert backend.verify_token(mine, nonce="n")["email"] == "ada@acme.test"
    with pytest.raises(SuspiciousOperation, match="InvalidAudienceError"):
        backend.verify_token(token, nonce="n")


def test_a_token_with_a_bad_signature_is_refused(sso_on: Provider, live_server: Any) -> None:
    token = _token_for(sso_on, "docs", f"{live_server.url}/oidc/callback/")["id_token"]
    header, payload, signature = token.split(".")
    flipped = ("A" if signature[10] != "A" else "B").join([signature[:10], signature[11:]])
    backend = sso.SsoBackend()
    backend.OIDC_OP_JWKS_ENDPOINT = sso.discovery()["jwks_uri"]

    with pytest.raises(SuspiciousOperation, match="InvalidSignatureError"):
        backend.verify_token(f"{header}.{payload}.{flipped}", nonce="n")


def test_the_whole_flow_refuses_a_token_for_another_client(
    sso_on: Provider, live_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The callback itself, given (as by a provider that mixed up its clients) a genuine token
    for another client: refused, nothing created."""
    foreign = _token_for(sso_on, "other", f"{live_server.url}/oidc/callback/")
    monkeypatch.setattr(sso.SsoBackend, "get_token", lambda self, payload: foreign)
    session, authorize = start(live_server.url)

    answer = session.get(callback_of(provider_session(sso_on, "ada"), authorize), timeout=30)

    assert answer.url == f"{live_server.url}/accounts/login/?sso=failed"
    assert people() == []


def test_password_sign_in_off_leaves_only_single_sign_on(
    sso_on: Provider, settings: Any, client: Any, owner: User
) -> None:
    owner.set_password(PASSWORD)
    owner.is_staff = True
    owner.save()
    settings.SSO_PASSWORD_LOGIN = False

    page = client.get("/admin/login/")
    members_page = client.get("/accounts/login/")
    refused = client.post("/admin/login/", {"username": owner.username, "password": PASSWORD})
    refused_too = client.post(
        "/accounts/login/", {"username": owner.username, "password": PASSWORD}
    )

    for shown in (page, members_page):
        assert 'id="sso-login"' in shown.content.decode()
        assert 'name="password"' not in shown.content.decode()
    assert "Sign-in with a password is off" in refused.content.decode()
    assert refused_too.status_code == 200
    assert "_auth_user_id" not in client.session


def test_single_sign_on_is_off_until_configured(client: Any) -> None:
    assert client.get("/oidc/authenticate/").status_code == 404
    assert 'id="sso-login"' not in client.get("/admin/login/").content.decode()


def test_a_superusers_address_does_not_sign_in(sso_on: Provider, live_server: Any) -> None:
    root = User.objects.create_superuser(username="root", email="ADA@acme.test", password="x" * 20)
    session, authorize = start(live_server.url)

    answer = session.get(callback_of(provider_session(sso_on, "ada"), authorize), timeout=30)

    assert answer.url == f"{live_server.url}/accounts/login/?sso=failed"
    assert people() == ["root"]
    assert not Membership.objects.filter(user=root).exists()


def test_an_unreachable_provider_is_a_failed_sign_in_not_an_error(
    settings: Any, client: Any
) -> None:
    settings.SSO_OIDC_ISSUER = "http://127.0.0.1:9/nowhere"
    settings.SSO_OIDC_CLIENT_ID = "docs"
    settings.SSO_OIDC_CLIENT_SECRET = "s"
    sso._discovered.clear()

    answer = client.get("/oidc/authenticate/")

    assert (answer.status_code, answer["Location"]) == (302, "/accounts/login/?sso=failed")


def test_the_domain_rule_chooses_the_organization(
    sso_on: Provider, settings: Any, live_server: Any, other_organization: Organization
) -> None:
    settings.SSO_ORGANIZATIONS_BY_DOMAIN = {"ACME.test": other_organization.slug}
    session, authorize = start(live_server.url)

    session.get(callback_of(provider_session(sso_on, "bob"), authorize), timeout=30)

    membership = Membership.objects.get(user__email="bob@acme.test")
    assert membership.organization == other_organization


def test_an_address_outside_the_allowed_domains_is_refused(
    sso_on: Provider, settings: Any, live_server: Any
) -> None:
    settings.SSO_EMAIL_DOMAINS = ["example.com"]
    session, authorize = start(live_server.url)

    answer = session.get(callback_of(provider_session(sso_on, "bob"), authorize), timeout=30)

    assert answer.url == f"{live_server.url}/accounts/login/?sso=failed"
    assert people() == []
