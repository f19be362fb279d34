"""The organization admin creates API keys and payload keys, showing each secret once."""

import re

from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from accounts.models import ApiKey, PayloadKeyPair
from tests.conftest import basic_auth
from tests.staff import admin_action, superuser_client


def key_status(raw_key: str) -> int:
    """The status of a GraphQL request made with the API key ``raw_key``."""
    api = Client(HTTP_AUTHORIZATION=basic_auth(raw_key))
    query = '{"query":"{ currentUser { eid } }"}'
    return api.post("/graphql", data=query, content_type="application/json").status_code


def test_create_key_action_shows_the_key_once_and_it_works(organization) -> None:
    client = superuser_client()
    response = admin_action(
        client,
        reverse("admin:accounts_organization_changelist"),
        "create_production_key",
        organization.pk,
    )

    # Shown on the page it answers with, never in a message (messages may live in a cookie).
    assert not re.search(r"prod_[A-Za-z0-9]{40}", str(list(get_messages(response.wsgi_request))))
    assert response.headers["Cache-Control"].count("no-store") == 1
    raw_key = re.search(r"(prod_[A-Za-z0-9]{40})", response.content.decode()).group(1)
    assert ApiKey.objects.get().kind == "production"
    assert raw_key not in str(list(ApiKey.objects.values()))
    assert key_status(raw_key) == 200


def test_revoke_action(organization, api_key) -> None:
    client = superuser_client()
    admin_action(
        client,
        reverse("admin:accounts_apikey_changelist"),
        "revoke",
        ApiKey.objects.get().pk,
        follow=False,
    )

    assert key_status(api_key) == 401


def test_payload_key_action_shows_the_public_key(organization) -> None:
    response = admin_action(
        superuser_client(),
        reverse("admin:accounts_organization_changelist"),
        "create_payload_key",
        organization.pk,
    )

    shown = " ".join(str(m) for m in get_messages(response.wsgi_request))
    assert "-----BEGIN PUBLIC KEY-----" in shown
    assert PayloadKeyPair.objects.get().public_pem.strip() in shown
    assert "PRIVATE" not in shown
