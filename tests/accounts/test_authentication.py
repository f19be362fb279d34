import base64
import json

import pytest
from django.test import Client

from accounts.models import ApiKey, Organization
from accounts.services import api_key_create, api_key_revoke, hash_api_key
from tests.conftest import basic_auth

CURRENT_USER = {"query": "{ currentUser { eid organizations { slug } } }"}


def post_graphql(client: Client, body: dict, **headers: str):
    return client.post(
        "/graphql", data=json.dumps(body), content_type="application/json", **headers
    )


@pytest.mark.parametrize("with_colon", [True, False])
def test_basic_key_is_accepted_with_or_without_the_colon(api_key: str, with_colon: bool) -> None:
    response = post_graphql(
        Client(), CURRENT_USER, HTTP_AUTHORIZATION=basic_auth(api_key, with_colon=with_colon)
    )

    assert response.status_code == 200
    assert response.json()["data"]["currentUser"]["organizations"] == [{"slug": "acme"}]


def test_missing_credentials_are_401_in_the_wire_shape(db: None) -> None:
    response = post_graphql(Client(), CURRENT_USER)

    assert response.status_code == 401
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"name": "AuthorizationError", "message": "Not logged in."}


def test_wrong_key_is_401_in_the_wire_shape(api_key: str) -> None:
    response = post_graphql(Client(), CURRENT_USER, HTTP_AUTHORIZATION=basic_auth(api_key + "x"))

    assert response.status_code == 401
    body = response.json()
    assert body["name"] == "AuthorizationError"
    assert set(body) == {"name", "message"}


def test_malformed_basic_credentials_are_401(db: None) -> None:
    response = post_graphql(Client(), CURRENT_USER, HTTP_AUTHORIZATION="Basic %%%not-base64")

    assert response.status_code == 401
    assert response.json()["name"] == "AuthorizationError"


def test_revoked_key_is_refused(organization: Organization) -> None:
    api_key, raw_key = api_key_create(organization=organization, kind="development")
    api_key_revoke(api_key=api_key)

    response = post_graphql(Client(), CURRENT_USER, HTTP_AUTHORIZATION=basic_auth(raw_key))

    assert response.status_code == 401


def test_only_the_hash_of_a_key_is_stored(organization: Organization) -> None:
    api_key, raw_key = api_key_create(organization=organization, kind="production")

    stored = ApiKey.objects.filter(pk=api_key.pk).values().get()
    assert stored["key_hash"] == hash_api_key(raw_key)
    assert raw_key not in json.dumps(stored, default=str)
    assert raw_key.startswith("prod_")
    assert len(raw_key) == len("prod_") + 40


def test_last_used_at_is_recorded(api_key: str) -> None:
    assert ApiKey.objects.get().last_used_at is None

    post_graphql(Client(), CURRENT_USER, HTTP_AUTHORIZATION=basic_auth(api_key))

    assert ApiKey.objects.get().last_used_at is not None


def test_bearer_or_other_schemes_are_not_api_keys(api_key: str) -> None:
    token = base64.b64encode(api_key.encode()).decode()
    response = post_graphql(Client(), CURRENT_USER, HTTP_AUTHORIZATION=f"Bearer {token}")

    assert response.status_code == 401
