"""The "API keys" section of the organization's admin page: its buttons make a key and answer
with a page that shows it once, for owners and admins of the organization only."""

from __future__ import annotations

import json
import logging
import re

import pytest
from django.apps import apps
from django.contrib.messages import get_messages
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse

from accounts.models import ApiKey, Membership, Organization, User
from accounts.services import api_key_create
from tests.conftest import basic_auth
from tests.staff import staff_by_role, staff_member

pytestmark = pytest.mark.django_db

RAW_KEY = re.compile(r"(?:dev|prod)_[A-Za-z0-9]{40}")
PASSWORD = "pw-keys-123456789"
CURRENT_USER = '{"query":"{ currentUser { eid organizations { slug } } }"}'


def make_staff(username: str, organization: Organization, role: str) -> User:
    return staff_member(organization, username, role, ["accounts"], PASSWORD)


@pytest.fixture
def staff(organization: Organization, other_organization: Organization) -> dict[str, User]:
    roles = ["owner", "admin", "member", "outsider"]
    staff = staff_by_role(organization, other_organization, roles, ["accounts"], PASSWORD)
    staff["superuser"] = User.objects.create_superuser(
        username="root", email="root@example.com", password=PASSWORD
    )
    return staff


def client_of(user: User, **options: bool) -> Client:
    client = Client(**options)
    client.force_login(user)
    return client


def change_url(organization: Organization) -> str:
    return reverse("admin:accounts_organization_change", args=[organization.pk])


def create_url(organization: Organization) -> str:
    return reverse("admin:accounts_organization_create_key", args=[organization.pk])


def graphql_as(raw_key: str):
    return Client(HTTP_AUTHORIZATION=basic_auth(raw_key)).post(
        "/graphql", data=CURRENT_USER, content_type="application/json"
    )


def everything_stored() -> str:
    """Every row of every table, sessions decoded, as one string."""
    rows = [str(list(model._default_manager.values())) for model in apps.get_models()]
    rows += [json.dumps(session.get_decoded(), default=str) for session in Session.objects.all()]
    return "\n".join(rows)


@pytest.mark.parametrize("role", ["owner", "admin", "superuser"])
def test_the_section_and_its_buttons_are_on_the_page_of_a_manager(
    staff, organization, role
) -> None:
    key, _ = api_key_create(organization=organization, kind=ApiKey.Kind.PRODUCTION, name="billing")
    api_key_create(organization=Organization.objects.get(slug="globex"), kind="development")

    page = client_of(staff[role]).get(change_url(organization))

    html = page.content.decode()
    assert page.status_code == 200
    section = html[html.index('id="api-keys"') :]
    assert "Create development key" in section
    assert "Create production key" in section
    assert '<label for="api-key-name">' in section
    assert f'action="{create_url(organization)}"' in html
    assert f"{key.prefix}…" in section
    assert "billing" in section
    assert "active" in section
    assert html.count("…</a></code>") == 1  # Globex's key is not listed
    assert (
        f"{reverse('admin:accounts_apikey_changelist')}?organization__id__exact={organization.pk}"
        in section
    )
    assert "Manage or revoke keys" in section


def test_the_list_shows_revoked_keys_and_links_to_the_organizations_keys(
    staff, organization, other_organization
) -> None:
    key, _ = api_key_create(organization=organization, kind="development")
    key.revoked_at = key.created_at
    key.save()
    globex_key, _ = api_key_create(organization=other_organization, kind="development")
    client = client_of(staff["superuser"])

    html = client.get(change_url(organization)).content.decode()
    assert "revoked" in html[html.index('id="api-keys"') :]

    link = re.search(r'href="([^"]+)">Manage or revoke keys', html).group(1)
    listing = client.get(link.replace("&amp;", "&"))
    assert listing.status_code == 200
    assert key.prefix in listing.content.decode()
    assert globex_key.prefix not in listing.content.decode()


def test_a_member_who_does_not_manage_sees_no_section_and_may_not_post(staff, organization) -> None:
    client = client_of(staff["member"])

    page = client.get(change_url(organization))
    response = client.post(create_url(organization), {"kind": "development"})

    assert page.status_code == 200
    assert 'id="api-keys"' not in page.content.decode()
    assert "Create development key" not in page.content.decode()
    assert response.status_code == 403
    assert not ApiKey.objects.exists()


def test_another_organization_is_not_found(staff, organization, other_organization) -> None:
    response = client_of(staff["outsider"]).post(create_url(organization), {"kind": "production"})
    missing = client_of(staff["owner"]).post(
        reverse("admin:accounts_organization_create_key", args=[999_999]), {"kind": "production"}
    )

    assert response.status_code == 404
    assert missing.status_code == 404
    assert not ApiKey.objects.exists()


def test_only_staff_reach_the_view(organization) -> None:
    response = Client().post(create_url(organization), {"kind": "development"})

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))
    assert not ApiKey.objects.exists()


@pytest.mark.parametrize("kind", ["development", "production"])
def test_a_button_makes_a_key_that_works_and_shows_it_once(
    staff, organization, kind, caplog
) -> None:
    caplog.set_level(logging.DEBUG)
    client = client_of(staff["owner"])

    response = client.post(create_url(organization), {"kind": kind, "name": " billing "})

    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    html = response.content.decode()
    [raw_key] = RAW_KEY.findall(html)
    assert html.count(raw_key) == 1
    assert raw_key.startswith("dev_" if kind == "development" else "prod_")
    key = ApiKey.objects.get()
    assert (key.organization, key.kind, key.name, key.user) == (
        organization,
        kind,
        "billing",
        staff["owner"],
    )
    assert key.prefix == raw_key[:10]
    assert "stored only as a hash" in html
    assert "will not be shown again" in html
    assert f'href="{change_url(organization)}#api-keys"' in html
    assert 'id="copy-key"' in html
    # Nowhere else: not in the database, the session, a message, a cookie or a log.
    assert raw_key not in everything_stored()
    assert list(get_messages(response.wsgi_request)) == []
    assert all(raw_key not in morsel.value for morsel in response.cookies.values())
    assert raw_key not in caplog.text
    # It authenticates, as the owner, for Acme.
    answer = graphql_as(raw_key)
    assert answer.status_code == 200
    assert answer.json()["data"]["currentUser"]["organizations"] == [{"slug": "acme"}]


def test_the_page_answers_once_a_reload_is_a_new_key(staff, organization) -> None:
    client = client_of(staff["owner"])

    first = RAW_KEY.findall(
        client.post(create_url(organization), {"kind": "development"}).content.decode()
    )
    page = client.get(change_url(organization)).content.decode()

    assert len(first) == 1
    assert first[0] not in page
    assert ApiKey.objects.get().prefix in page


def test_a_key_without_a_name_says_who_made_it_and_acts_for_the_owner(staff, organization) -> None:
    # The superuser is no member of Acme: the key acts for Acme's owner.
    client_of(staff["superuser"]).post(create_url(organization), {"kind": "production"})

    key = ApiKey.objects.get()
    assert key.name == "created by root"
    assert key.user == staff["owner"]


def test_a_long_user_name_is_cut_to_the_longest_key_name(organization, staff) -> None:
    long_name = "x" * 150
    user = make_staff(long_name, organization, Membership.Role.OWNER)

    response = client_of(user).post(create_url(organization), {"kind": "development"})

    assert response.status_code == 200
    assert ApiKey.objects.get().name == f"created by {long_name}"[:100]


def test_get_is_not_allowed(staff, organization) -> None:
    response = client_of(staff["owner"]).get(create_url(organization) + "?kind=development")

    assert response.status_code == 405
    assert response["Allow"] == "POST"
    assert not ApiKey.objects.exists()


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"kind": "staging"}, "Choose a development or a production key."),
        ({}, "Choose a development or a production key."),
        ({"kind": "development", "name": "n" * 101}, "at most 100 characters"),
    ],
)
def test_a_bad_kind_or_name_makes_no_key(staff, organization, data, problem) -> None:
    response = client_of(staff["owner"]).post(create_url(organization), data, follow=True)

    assert not ApiKey.objects.exists()
    assert response.redirect_chain == [(change_url(organization) + "#api-keys", 302)]
    shown = response.content.decode()  # in a message on the organization's page
    assert "No key was created." in shown
    assert problem in shown


def test_the_form_on_the_page_posts_with_its_csrf_token(staff, organization) -> None:
    client = client_of(staff["owner"], enforce_csrf_checks=True)
    html = client.get(change_url(organization)).content.decode()
    form = re.search(r'<form id="api-key-create"[^>]*>(.*?)</form>', html, re.S).group(1)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)

    refused = client.post(create_url(organization), {"kind": "development"})
    made = client.post(
        create_url(organization), {"kind": "development", "csrfmiddlewaretoken": token}
    )

    assert refused.status_code == 403
    assert made.status_code == 200
    assert ApiKey.objects.get().kind == "development"
    # The name field and the buttons belong to that form, which is outside the page's own form.
    assert html.count('form="api-key-create"') == 3
    between = html[html.index('id="organization_form"') : html.index('<form id="api-key-create"')]
    assert between.count("</form>") == 1
    assert "<form" not in between


def test_the_actions_still_make_keys_in_bulk(staff, organization, other_organization) -> None:
    response = client_of(staff["superuser"]).post(
        reverse("admin:accounts_organization_changelist"),
        {
            "action": "create_development_key",
            "_selected_action": [organization.pk, other_organization.pk],
        },
        follow=True,
    )

    shown = " ".join(str(m) for m in get_messages(response.wsgi_request))
    assert RAW_KEY.findall(shown) == []  # never in a message: they may live in a cookie
    # One page shows both, each once.
    page = response.content.decode()
    assert len(RAW_KEY.findall(page)) == 2
    assert len(set(RAW_KEY.findall(page))) == 2
    assert set(ApiKey.objects.values_list("organization__slug", "kind")) == {
        ("acme", "development"),
        ("globex", "development"),
    }
    assert set(ApiKey.objects.values_list("name", flat=True)) == {"created by root"}
