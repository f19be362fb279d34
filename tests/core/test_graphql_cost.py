"""GraphQL queries are limited in depth, aliases and fields before they run (core.graphql.cost)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from graphql import get_introspection_query

EXPENSIVE = "currentUser { organizations { casts { fieldInfo exampleData } } }"


def ask(client: Client, query: str) -> Any:
    return client.post(
        "/graphql", data=json.dumps({"query": query}), content_type="application/json"
    )


def messages(response: Any) -> list[str]:
    return [e["message"] for e in response.json()["errors"]]


def test_the_reported_query_of_1300_aliases_is_refused_before_it_runs(
    api_client: Client, demo_template
) -> None:
    query = "{ " + " ".join(f"a{i}: {EXPENSIVE}" for i in range(1300)) + " }"

    response = ask(api_client, query)

    assert response.status_code == 400
    body = response.json()
    assert "data" not in body
    assert "The query has 1300 aliases; at most 20 are allowed." in messages(response)
    error = next(e for e in body["errors"] if "aliases" in e["message"])
    assert error["extensions"] == {"code": "QUERY_TOO_COMPLEX"}
    assert len(response.content) < 2_000


def test_twenty_aliases_are_allowed(api_client: Client, demo_template) -> None:
    query = "{ " + " ".join(f"a{i}: currentUser {{ eid }}" for i in range(20)) + " }"

    response = ask(api_client, query)

    assert response.status_code == 200, response.content[:500]
    assert len(response.json()["data"]) == 20


def test_too_many_fields_are_refused(api_client: Client) -> None:
    query = "{ currentUser { " + " ".join(["eid"] * 400) + " } }"

    response = ask(api_client, query)

    assert response.status_code == 400
    assert "The query selects 401 fields; at most 300 are allowed." in messages(response)


def test_fields_of_fragments_count_each_time_they_are_spread(api_client: Client) -> None:
    fragment = "fragment F on User { " + " ".join(["eid"] * 120) + " }"
    query = (
        "{ a: currentUser { ...F } b: currentUser { ...F } c: currentUser { ...F } } " + fragment
    )

    response = ask(api_client, query)

    assert response.status_code == 400
    assert any(m.startswith("The query selects 363 fields") for m in messages(response))


def test_fragments_spread_exponentially_are_refused_quickly(api_client: Client) -> None:
    fragments = ["fragment F0 on User { eid }"]
    for level in range(1, 40):
        fragments.append(f"fragment F{level} on User {{ ...F{level - 1} ...F{level - 1} }}")
    query = "{ currentUser { ...F39 } } " + " ".join(fragments)

    response = ask(api_client, query)

    assert response.status_code == 400
    assert any("fields; at most 300" in m for m in messages(response))


def test_a_fragment_cycle_is_reported_not_followed(api_client: Client) -> None:
    query = (
        "{ currentUser { ...A } } fragment A on User { eid ...B } fragment B on User { eid ...A }"
    )

    response = ask(api_client, query)

    assert response.status_code == 400
    assert any("Cannot spread fragment" in m for m in messages(response))


def test_too_deep_is_refused(api_client: Client) -> None:
    query = "{ " + "currentUser { " * 11 + "eid" + " }" * 11 + " }"

    response = ask(api_client, query)

    assert response.status_code == 400
    assert "The query is 12 levels deep; at most 10 are allowed." in messages(response)


@pytest.mark.parametrize("path", ["/graphql", "/"])
def test_introspection_is_allowed(api_client: Client, path: str) -> None:
    response = api_client.post(
        path,
        data=json.dumps({"query": get_introspection_query(descriptions=True)}),
        content_type="application/json",
    )

    assert response.status_code == 200, response.content[:500]
    assert response.json()["data"]["__schema"]["queryType"]["name"] == "Query"


def test_an_ordinary_query_runs(api_client: Client, demo_template) -> None:
    response = ask(api_client, f'{{ cast(eid: "{demo_template.eid}") {{ eid title fieldInfo }} }}')

    assert response.status_code == 200
    assert response.json()["data"]["cast"]["eid"] == demo_template.eid


def test_the_limits_come_from_settings(api_client: Client, settings) -> None:
    settings.GRAPHQL_MAX_ALIASES = 2
    query = "{ a: currentUser { eid } b: currentUser { eid } c: currentUser { eid } }"

    response = ask(api_client, query)

    assert response.status_code == 400
    assert "The query has 3 aliases; at most 2 are allowed." in messages(response)
