"""GraphiQL's queries with a member's session (POST /graphql/member?organization=<slug>): queries
as one of the member's organizations, mutations only with an API key, CSRF-checked; /graphql
itself still takes API keys only."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from accounts.models import Organization, User
from accounts.services import member_add
from esign.models import Packet

pytestmark = pytest.mark.django_db

ME = "{ currentUser { name role organizations { slug } } }"


def session(user: User, *, csrf: bool = False) -> Client:
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(user)
    return client


def member_post(client: Client, query: str, organization: str = "acme", **extra: Any) -> Any:
    return client.post(
        f"/graphql/member?organization={organization}",
        data=json.dumps({"query": query}),
        content_type="application/json",
        **extra,
    )


def test_a_member_queries_as_the_organization_named(
    owner: User, organization: Organization, other_organization: Organization
) -> None:
    member_add(organization=other_organization, user=owner, role="member")

    acme = member_post(session(owner), ME).json()
    globex = member_post(session(owner), ME, organization="globex").json()

    assert acme["data"]["currentUser"]["organizations"] == [{"slug": "acme"}]
    assert acme["data"]["currentUser"]["role"] == "owner"
    assert globex["data"]["currentUser"]["organizations"] == [{"slug": "globex"}]
    assert globex["data"]["currentUser"]["role"] == "member"


def test_not_a_member_of_that_organization(owner: User, other_organization: Organization) -> None:
    response = member_post(session(owner), ME, organization="globex")

    assert response.status_code == 404
    assert response.json()["name"] == "NotFoundError"


def test_a_mutation_needs_an_api_key_and_changes_nothing(owner: User) -> None:
    mutation = 'mutation { createEtchPacket(name: "x", isDraft: true) { eid } }'

    body = member_post(session(owner), mutation).json()

    assert body["errors"][0]["extensions"]["code"] == "ApiKeyRequired"
    assert "paste one in the bar above" in body["errors"][0]["message"]
    assert Packet.objects.count() == 0


def test_without_a_session_or_csrf_token_nothing_runs(owner: User) -> None:
    assert member_post(Client(), ME).status_code == 401
    refused = member_post(session(owner, csrf=True), ME)  # no CSRF token
    assert refused.status_code == 404  # a refusal, in the API's shape (core.api_errors)
    assert "data" not in refused.json()


def test_the_api_itself_still_wants_a_key(owner: User) -> None:
    response = session(owner).post(
        "/graphql", data=json.dumps({"query": ME}), content_type="application/json"
    )

    assert response.status_code == 401


def test_graphiql_gives_the_page_the_members_organizations(
    owner: User, organization: Organization, other_organization: Organization
) -> None:
    member_add(organization=other_organization, user=owner, role="member")

    page = session(owner).get("/graphql", HTTP_ACCEPT="text/html")

    config = json.loads(
        page.content.decode()
        .split('id="graphiql-config" type="application/json">')[1]
        .split("</script>")[0]
    )
    assert [o["slug"] for o in config["organizations"]] == ["acme", "globex"]
    assert config["memberEndpoint"] == "/graphql/member"
    assert config["csrfToken"]
