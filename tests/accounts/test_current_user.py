import json

import pytest
from django.test import Client

from accounts.models import ApiKey, Organization
from accounts.services import api_key_create

QUERY = "{ currentUser { eid name email role organizations { eid name slug } } }"


def current_user(client: Client) -> dict:
    response = client.post(
        "/graphql", data=json.dumps({"query": QUERY}), content_type="application/json"
    )
    assert response.status_code == 200, response.content
    return response.json()["data"]["currentUser"]


def test_current_user_is_the_member_the_key_acts_for(
    api_client: Client, owner, organization: Organization
) -> None:
    user = current_user(api_client)

    assert user == {
        "eid": owner.eid,
        "name": "Olivia Owner",
        "email": "olivia@acme.test",
        "role": "owner",
        "organizations": [{"eid": organization.eid, "name": "Acme Inc.", "slug": "acme"}],
    }
    assert len(user["eid"]) == 20
    assert user["eid"].isalnum()


def test_a_key_without_a_member_answers_as_the_organization_api(
    other_api_key: str, client_for, other_organization
) -> None:
    user = current_user(client_for(other_api_key))

    assert user["role"] == "api"
    assert user["name"] == "Globex Corp. API"
    assert user["eid"] == ApiKey.objects.get(organization=other_organization).eid


def test_a_key_sees_only_its_own_organization(
    api_key: str, owner, organization, other_organization, client_for
) -> None:
    # The same person belongs to both organizations; a key of one must not reveal the other.
    from accounts.services import member_add

    member_add(organization=other_organization, user=owner, role="member")
    _, globex_key = api_key_create(organization=other_organization, kind="development", user=owner)

    acme_view = current_user(client_for(api_key))
    globex_view = current_user(client_for(globex_key))

    assert [o["slug"] for o in acme_view["organizations"]] == ["acme"]
    assert [o["slug"] for o in globex_view["organizations"]] == ["globex"]
    assert globex_view["role"] == "member"


@pytest.mark.parametrize("path", ["/graphql", "/"])
def test_graphql_answers_at_both_paths(api_client: Client, path: str) -> None:
    response = api_client.post(
        path, data=json.dumps({"query": QUERY}), content_type="application/json"
    )

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json()["data"]["currentUser"]["organizations"][0]["slug"] == "acme"
