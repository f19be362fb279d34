"""GraphiQL at GET /graphql for signed-in members (assets served locally), the schema as SDL
at /graphql/schema.graphql, and POST /graphql unchanged for clients."""

from __future__ import annotations

import re

from django.contrib.auth import get_user_model
from django.contrib.staticfiles import finders
from django.test import Client

from accounts.models import Organization
from config.schema import schema

CURRENT_USER = '{"query":"{ currentUser { role } }"}'


def signed_in(username: str, organization: Organization | None = None) -> Client:
    from accounts.services import member_add

    user = get_user_model().objects.create_user(username, password="pw-12345678")
    if organization is not None:
        member_add(organization=organization, user=user, role="member")
    client = Client()
    client.force_login(user)
    return client


def test_graphiql_asks_a_visitor_to_sign_in(db: None) -> None:
    response = Client().get("/graphql", HTTP_ACCEPT="text/html,application/xhtml+xml")

    assert response.status_code == 302
    assert response.url == "/accounts/login/?next=/graphql"
    assert "WWW-Authenticate" not in response


def test_graphiql_for_a_member_loads_only_local_files(organization: Organization) -> None:
    response = signed_in("ada", organization).get("/graphql", HTTP_ACCEPT="text/html")

    assert response.status_code == 200
    html = response.content.decode()
    assert "<title>GraphiQL · Document automation service</title>" in html
    sources = re.findall(r'(?:src|href)="(/static/[^"]+)"', html)
    assert sorted(sources) == [
        "/static/core/graphiql.css",
        "/static/core/graphiql.js",
        "/static/vendor/graphiql/graphiql.min.css",
        "/static/vendor/graphiql/graphiql.min.js",
        "/static/vendor/graphiql/react-dom.production.min.js",
        "/static/vendor/graphiql/react.production.min.js",
    ]
    for source in sources:
        assert finders.find(source.removeprefix("/static/")), source
    assert "cdn" not in html
    assert "https://" not in html


def test_graphiql_refuses_a_user_of_no_organization(organization: Organization) -> None:
    response = signed_in("loner").get("/graphql", HTTP_ACCEPT="text/html")

    assert response.status_code == 403
    assert "belongs to no organization" in " ".join(response.content.decode().split())


def test_a_superuser_gets_graphiql(db: None) -> None:
    admin = get_user_model().objects.create_superuser("root", "root@example.com", "pw-12345678")
    client = Client()
    client.force_login(admin)

    assert client.get("/graphql", HTTP_ACCEPT="text/html").status_code == 200


def test_api_clients_get_the_api_at_graphql_as_before(api_client: Client) -> None:
    # Not a browser (no text/html in Accept) or an API key: the endpoint's own answers.
    assert Client().get("/graphql").status_code == 401
    assert Client().get("/graphql", HTTP_ACCEPT="application/json").json() == {
        "name": "AuthorizationError",
        "message": "Not logged in.",
    }
    keyed = api_client.get("/graphql", HTTP_ACCEPT="text/html")
    assert keyed.json() == {"graphql": "POST a JSON body {query, variables} here."}
    posted = api_client.post("/graphql", data=CURRENT_USER, content_type="application/json")
    assert posted.json() == {"data": {"currentUser": {"role": "owner"}}}


def test_a_session_does_not_authenticate_graphql_posts(organization: Organization) -> None:
    client = signed_in("ada", organization)

    response = client.post("/graphql", data=CURRENT_USER, content_type="application/json")

    assert response.status_code == 401


def test_the_schema_as_sdl(db: None) -> None:
    response = Client().get("/graphql/schema.graphql")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    sdl = response.content.decode()
    assert sdl == str(schema).rstrip() + "\n"
    assert "type Query {" in sdl
    assert "currentUser: User" in sdl
    assert Client().post("/graphql/schema.graphql").status_code == 405
