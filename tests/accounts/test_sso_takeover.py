"""Single sign-on finds people by the provider's issuer and subject, never by email (issue 46,
item 1): an address another organization's account has does not sign in to that account, nor
give it a membership; a returning person is who their identity is, whatever address the
provider now says; a malformed or oversized address is refused; and the callback answers a
redirect or a 4xx to whatever it is sent, never a 500 (item 12)."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from django.test import Client

from accounts import sso
from accounts.models import Membership, Organization, SsoIdentity, User
from accounts.services import member_add
from tests.accounts.sso_flow import Idp, signed_in
from tests.accounts.test_sso import callback_of, provider_session, start

pytestmark = pytest.mark.django_db(transaction=True)

LONG_EMAIL = "a" * 4990 + "@acme.test"  # 5,000 characters: the column holds 254
PEOPLE = [
    {"username": "staffb-at-acme", "email": "StaffB@Example.com"},
    {"username": "carol", "email": "carol@acme.test"},
    {"username": "dave", "email": "dave@acme.test"},
    {"username": "dave-again", "email": "dave@acme.test"},
    {"username": "erin", "email": "erin@acme.test"},
    {"username": "mallory", "email": "x@evil.test@acme.test"},
    {"username": "long", "email": LONG_EMAIL},
]
FAILED = "/accounts/login/?sso=failed"
EXISTS = "/accounts/login/?sso=exists&next=/oidc/link/"


@pytest.fixture
def staffb(other_organization: Organization) -> User:
    """The owner of another organization, whose address acme's provider also has."""
    user = User.objects.create_user(
        username="staffb", email="staffb@example.com", password="staffb-Pass-123456789"
    )
    member_add(organization=other_organization, user=user, role="owner")
    return user


def sign_in(idp: Idp, live_url: str, username: str) -> tuple[Any, Any]:
    """A whole sign-in as ``username`` at the provider: the browser and the service's answer."""
    session, authorize = start(live_url)
    answer = session.get(callback_of(provider_session(idp.provider, username), authorize))
    return session, answer


def test_an_address_of_another_organizations_account_does_not_sign_in_to_it(
    acme_sso: Idp, live_server: Any, staffb: User, other_organization: Organization
) -> None:
    browser, answer = sign_in(acme_sso, live_server.url, "staffb-at-acme")

    assert answer.url == f"{live_server.url}{EXISTS}"
    assert "An account with this email address already exists" in answer.text
    assert signed_in(browser) is None
    assert Membership.objects.filter(user=staffb).count() == 1  # globex's only
    assert not SsoIdentity.objects.exists()
    assert sorted(User.objects.values_list("username", flat=True)) == ["staffb"]
    for page in ("/settings/", f"/settings/{other_organization.slug}/"):
        reached = browser.get(f"{live_server.url}{page}", allow_redirects=False)
        assert reached.status_code == 302
        assert reached.headers["Location"].startswith("/accounts/login/")


def test_a_returning_person_is_their_identity_whatever_address_the_provider_says(
    acme_sso: Idp, live_server: Any, owner: User
) -> None:
    first, _ = sign_in(acme_sso, live_server.url, "erin")
    erin = User.objects.get(username=signed_in(first))
    # The provider now says erin has the address of acme's owner (olivia@acme.test).
    acme_sso.set_email("erin", "Olivia@ACME.test")
    try:
        again, answer = sign_in(acme_sso, live_server.url, "erin")
    finally:
        acme_sso.set_email("erin", "erin@acme.test")

    assert answer.url == f"{live_server.url}/admin/"
    assert signed_in(again) == erin.username == "erin@acme.test"
    assert User.objects.count() == 2  # olivia and erin: nobody new, nobody else signed in
    identity = SsoIdentity.objects.get()
    assert (identity.issuer, identity.user) == (acme_sso.provider.url, erin)
    assert User.objects.get(pk=erin.pk).email == "erin@acme.test"


def test_another_subject_with_a_linked_persons_address_is_refused(
    acme_sso: Idp, live_server: Any
) -> None:
    first, _ = sign_in(acme_sso, live_server.url, "dave")
    second, answer = sign_in(acme_sso, live_server.url, "dave-again")

    assert signed_in(first) == "dave@acme.test"
    assert answer.url == f"{live_server.url}{EXISTS}"
    assert signed_in(second) is None
    assert User.objects.count() == 1
    assert SsoIdentity.objects.count() == 1


def test_a_returning_person_gains_no_membership(
    acme_sso: Idp,
    live_server: Any,
    organization: Organization,
    other_organization: Organization,
) -> None:
    """Memberships are made with the account; then they are the admin's: someone removed from
    acme, now in globex only, signs in and is not put back in acme."""
    sign_in(acme_sso, live_server.url, "carol")
    carol = User.objects.get(email="carol@acme.test")
    Membership.objects.filter(user=carol).delete()
    member_add(organization=other_organization, user=carol, role="member")

    browser, _ = sign_in(acme_sso, live_server.url, "carol")

    assert signed_in(browser) == carol.username
    assert list(Membership.objects.filter(user=carol).values_list("organization__slug")) == [
        ("globex",)
    ]


def test_a_superusers_identity_does_not_sign_in(acme_sso: Idp, live_server: Any) -> None:
    sign_in(acme_sso, live_server.url, "carol")
    User.objects.filter(email="carol@acme.test").update(is_superuser=True)

    browser, answer = sign_in(acme_sso, live_server.url, "carol")

    assert answer.url == f"{live_server.url}{FAILED}"
    assert signed_in(browser) is None


@pytest.mark.parametrize("username", ["mallory", "long"])
def test_a_malformed_or_oversized_address_is_refused(
    acme_sso: Idp, live_server: Any, settings: Any, username: str
) -> None:
    settings.SSO_EMAIL_DOMAINS = ["acme.test"]  # what follows the last @ is acme.test

    browser, answer = sign_in(acme_sso, live_server.url, username)

    assert answer.url == f"{live_server.url}{FAILED}"
    assert signed_in(browser) is None
    assert not User.objects.exists()
    assert not SsoIdentity.objects.exists()


@pytest.mark.parametrize(
    ("claims", "accepted"),
    [
        ({"email": "ada@acme.test", "email_verified": True}, True),
        ({"email": "ADA@Acme.Test"}, True),
        ({"email": "x@evil.test@acme.test", "email_verified": True}, False),
        ({"email": LONG_EMAIL, "email_verified": True}, False),
        ({"email": "a" * 245 + "@acme.test"}, False),  # 255: one past the column
        ({"email": "ada@acme.test", "email_verified": False}, False),
        ({"email": "ada@acme.test", "email_verified": "false"}, False),
        ({"email": ["ada@acme.test"]}, False),
        ({"email": "ada@acme.test\n"}, False),
        ({"email": "ada@evil.test"}, False),
        ({}, False),
    ],
)
def test_which_addresses_pass(settings: Any, claims: dict[str, Any], accepted: bool) -> None:
    settings.SSO_EMAIL_DOMAINS = ["acme.test"]

    assert sso.SsoBackend().verify_claims(claims) is accepted


# --- The callback, probed: a redirect or a 4xx, never a 500, nothing created ------------------


def begun(client: Client) -> str:
    """A sign-in begun in the test client's session: its state."""
    answer = client.get("/oidc/authenticate/")
    assert answer.status_code == 302
    return parse_qs(urlsplit(answer["Location"]).query)["state"][0]


@pytest.fixture
def token_requests(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The code exchanges the backend asked of the provider (none, here: it refuses first)."""
    asked: list[Any] = []
    monkeypatch.setattr(sso.SsoBackend, "get_token", lambda self, payload: asked.append(payload))
    return asked


@pytest.mark.parametrize(
    "query",
    [
        {},
        {"state": "x"},
        {"code": "x"},
        {"code": "", "state": ""},
        {"code": "x", "state": "x"},  # no sign-in begun in this session
        {"error": "access_denied"},
        {"code": "\x00\ud800", "state": "\x00"},
    ],
)
def test_the_callback_without_a_sign_in_begun_fails_politely(
    acme_sso: Idp, token_requests: list[Any], query: dict[str, str]
) -> None:
    answer = Client().get("/oidc/callback/?" + urlencode(query, errors="surrogatepass"))

    assert (answer.status_code, answer["Location"]) == (302, FAILED)
    assert token_requests == []


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ({"code": "x", "state": "not-the-state"}, 400),
        ({"code": "x", "state": "s" * 100_000}, 400),
        ({"code": "c" * 100_000, "state": "<state>"}, 302),
        ({"error": "access_denied", "state": "<state>"}, 302),
    ],
)
def test_the_callback_with_a_sign_in_begun_refuses_garbage(
    acme_sso: Idp, token_requests: list[Any], query: dict[str, str], status: int
) -> None:
    client = Client()
    state = begun(client)
    sent = {name: state if value == "<state>" else value for name, value in query.items()}

    answer = client.get("/oidc/callback/?" + urlencode(sent))

    assert answer.status_code == status
    if status == 302:
        assert answer["Location"] == FAILED
        assert state not in client.session["oidc_states"]  # used: it cannot come back
    assert token_requests == []
    assert not User.objects.exists()


def test_the_callback_with_too_many_parameters_is_a_400(acme_sso: Idp) -> None:
    client = Client()
    begun(client)

    answer = client.get("/oidc/callback/?" + "&".join(f"p{n}=1" for n in range(2000)))

    assert answer.status_code == 400


def test_a_replayed_callback_is_refused_and_signs_in_no_one_else(
    acme_sso: Idp, live_server: Any
) -> None:
    session, authorize = start(live_server.url)
    back = callback_of(provider_session(acme_sso.provider, "carol"), authorize)
    assert session.get(back).url == f"{live_server.url}/admin/"

    again = session.get(back, allow_redirects=False)
    elsewhere = Client().get(urlsplit(back).path + "?" + urlsplit(back).query)

    assert again.status_code == 400  # the state was used
    assert (elsewhere.status_code, elsewhere["Location"]) == (302, FAILED)
    assert User.objects.count() == 1
    assert SsoIdentity.objects.count() == 1


def test_the_callback_accepts_get_only(acme_sso: Idp) -> None:
    assert Client().post("/oidc/callback/", {"code": "x", "state": "x"}).status_code == 405
