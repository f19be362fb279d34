"""No input is a 500, on SQLite or PostgreSQL (issue 32).

Hostile values (tests/hostile_json.py: NUL, other control characters, lone surrogates, whole
numbers at and past the columns' ends, the wrong JSON type, nesting too deep) go to every API
path (fill, generate-pdf, verify, the document-group and submission downloads, every argument of
every GraphQL query and mutation, found in the schema, so a new one is covered the day it is
added) and to the public forms (a webform page's post, a signer's finish and decline). The
answer is never a 500; an API's refusal is a JSON error in the wire shape; a refusal stores
nothing (every row of the project's models is counted before and after).

PostgreSQL refuses NUL in text and numbers past its columns where SQLite stores them: CI runs
these modules on PostgreSQL too (DATABASE_URL).

This module holds the world the requests act on and the helpers the others share (the MCP tools'
test and test_impossible_dates.py use them too), and the cases the audit found, each named. The
GraphQL arguments are in test_no_graphql_input_is_a_500.py, the REST paths and the public forms
in test_no_rest_or_form_input_is_a_500.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

import pytest
from django.apps import apps
from django.test import Client
from hypothesis import strategies as st

from accounts.models import ApiKeyUsage
from tests.conftest import basic_auth, graphql_answer
from tests.esign.conftest import CREATE, SIGN_URL, token_of, two_signer_packet
from tests.hostile_json import (
    DEEP,
    EDGE_INTEGERS,
    HOSTILE_INPUT,
    HOSTILE_SETTINGS,
    HOSTILE_TEXT,
    IMPOSSIBLE_MOMENTS,
)
from workflows.demo import demo_workflow_create

pytestmark = pytest.mark.django_db

HYPOTHESIS = HOSTILE_SETTINGS  # the name the other hostile-input modules import from here
PLACEHOLDER = "@@hostile@@"
APPS = {"accounts", "templates_app", "fill", "generate", "esign", "workflows", "webhooks", "core"}
# A request counts its API key's use whatever the answer: the one row a refusal may add.
NOT_COUNTED = {ApiKeyUsage}


def rows() -> dict[str, int]:
    """The number of rows of every model of the project."""
    return {
        model._meta.label: model._base_manager.count()
        for model in apps.get_models()
        if model._meta.app_label in APPS and model not in NOT_COUNTED
    }


def with_hostile(template: str, raw: str) -> bytes:
    """``template`` (JSON text holding PLACEHOLDER as a string) with the hostile JSON ``raw``
    in its place, encoded as UTF-8 (a lone surrogate written as its escape stays one)."""
    return template.replace(json.dumps(PLACEHOLDER), raw).encode()


def in_path(text: str) -> str:
    """``text`` as one URL path segment, percent-encoded (a lone surrogate as its CESU bytes)."""
    return quote(text.encode("utf-8", errors="surrogatepass"), safe="") or "%20"


def assert_wire_error(response: Any) -> None:
    """A 4xx of the API: JSON, ``{name, message}`` or a ValidationError naming properties."""
    assert response["Content-Type"] == "application/json", response.content[:300]
    body = response.json()
    assert isinstance(body.get("name"), str), body
    if body["name"] == "ValidationError":
        assert body["fields"], body
        assert all(set(f) == {"message", "property"} for f in body["fields"]), body
    else:
        assert isinstance(body.get("message"), str), body


def assert_refused_cleanly(response: Any, before: dict[str, int]) -> None:
    assert response.status_code != 500, response.content[:500]
    if response.status_code >= 400:
        assert_wire_error(response)
        assert rows() == before


# --- the world the requests act on -------------------------------------------------------------


@dataclass
class World:
    client: Client
    template_eid: str
    workflow_eid: str
    workflow_slug: str
    forge_eids: dict[str, str]
    weld_data_eid: str
    packet: dict[str, Any]
    token: str = ""

    @property
    def signer_eid(self) -> str:
        return self.packet["documentGroup"]["signers"][0]["eid"]


def graphql(client: Client, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    result = graphql_answer(client, query, variables)
    assert "errors" not in result, result
    return result["data"]


def new_packet(world: World) -> None:
    """A sent packet whose first signer (embedded) may sign now, with a signing link."""
    world.packet = graphql(world.client, CREATE, two_signer_packet())["createEtchPacket"]
    link = graphql(world.client, SIGN_URL, {"signerEid": world.signer_eid, "clientUserId": "u"})
    world.token = token_of(link["generateEtchSignURL"])


@pytest.fixture
def world(organization: Any, api_key: str, demo_template: Any) -> World:
    client = Client(HTTP_AUTHORIZATION=basic_auth(api_key))
    workflow = demo_workflow_create(organization=organization, template=demo_template)
    forge_eids = {w.slug: w.eid for w in workflow.webforms.all()}
    submitted = graphql(
        client,
        "mutation($f: String!) { forgeSubmit(forgeEid: $f, payload: {}) { weldData { eid } } }",
        {"f": forge_eids["about-you"]},
    )
    world = World(
        client=client,
        template_eid=demo_template.eid,
        workflow_eid=workflow.eid,
        workflow_slug=workflow.slug,
        forge_eids=forge_eids,
        weld_data_eid=submitted["forgeSubmit"]["weldData"]["eid"],
        packet={},
    )
    new_packet(world)
    return world


# A real moment in the future, within the five years an expiry may be away.
FUTURE_MOMENT = (datetime.now(UTC) + timedelta(days=400)).strftime("%Y-%m-%dT%H:%M:%SZ")


def leaves(value: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    """The paths of every value inside ``value`` (objects' and lists' members, at any depth)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*path, key)
            yield from leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield (*path, index)
            yield from leaves(item, (*path, index))


def replaced(value: Any, path: tuple[str | int, ...], new: Any) -> Any:
    if not path:
        return new
    head, *rest = path
    if isinstance(value, list):
        copy: Any = list(value)
    else:
        copy = dict(value)
    copy[head] = replaced(value[head], tuple(rest), new)
    return copy


def value_at(value: Any, path: tuple[str | int, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def hostile_in_place_of(value: Any) -> st.SearchStrategy[str]:
    """Hostile JSON for where ``value`` was: of its own type but out of bounds (a number past
    the columns' ends, text that is no text) as often as of another type, or nested too deep."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return HOSTILE_INPUT
    if value == FUTURE_MOMENT:
        return IMPOSSIBLE_MOMENTS.map(json.dumps) | HOSTILE_INPUT
    same = EDGE_INTEGERS.map(str) if isinstance(value, int) else HOSTILE_TEXT.map(json.dumps)
    other = st.sampled_from([[], {}, None, True, 1.5, "1" if isinstance(value, int) else 1])
    return same | other.map(json.dumps) | DEEP


# --- the cases the audit found, each named -----------------------------------------------------
# (The property tests above find them too; these say what each answer is.)


@pytest.mark.parametrize(
    ("query", "variables", "property"),
    [
        ('query { etchPacket(eid: "ab\\u0000cd") { eid } }', {}, "eid"),
        ('query { weldData(eid: "\\u0000") { eid } }', {}, "eid"),
        ('mutation { removeWeldData(eid: "a\\u001bb") }', {}, "eid"),
        (
            "mutation($v: String!) { voidDocumentGroup(eid: $v) { eid } }",
            {"v": "\x00"},
            "variables.v",
        ),
    ],
)
def test_nul_in_a_graphql_argument_is_refused_naming_it(
    api_client: Client, query: str, variables: dict[str, Any], property: str
) -> None:
    response = api_client.post(
        "/graphql",
        data=json.dumps({"query": query, "variables": variables}),
        content_type="application/json",
    )

    assert response.status_code == 400, response.content
    body = response.json()
    if "errors" in body:  # written in the query: a GraphQL validation error, nothing ran
        assert body["errors"][0]["extensions"]["code"] == "ValidationError"
        assert [f["property"] for f in body["errors"][0]["extensions"]["fields"]] == [property]
    else:  # in a variable: refused as the JSON body was read
        assert body["name"] == "ValidationError"
        assert [f["property"] for f in body["fields"]] == [property]


def assert_default_packet_fails(api_client: Client, variables: dict[str, Any]) -> dict[str, Any]:
    from esign.models import Packet

    response = api_client.post(
        "/graphql",
        data=json.dumps({"query": CREATE, "variables": variables}),
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    error = response.json()["errors"][0]
    assert error["extensions"]["code"] == "ValidationError", error
    assert Packet.objects.count() == 0
    return error


@pytest.mark.parametrize("order", [2**31, 2**63, 2**64, 0, -1, -(2**63) - 1])
def test_a_routing_order_past_the_column_is_a_400(api_client: Client, order: int) -> None:
    variables = two_signer_packet()
    variables["signers"][0]["routingOrder"] = order

    error = assert_default_packet_fails(api_client, variables)

    assert error["extensions"]["fields"] == [
        {
            "property": "signers.0.routingOrder",
            "message": "Must be a whole number from 1 to 2147483647.",
        }
    ]


@pytest.mark.parametrize("kind", [[], {}, 3, None])
def test_a_field_type_of_the_wrong_json_type_is_a_400(api_client: Client, kind: Any) -> None:
    variables = two_signer_packet()
    variables["files"][0]["fields"][0]["type"] = kind

    error = assert_default_packet_fails(api_client, variables)

    assert [f["property"] for f in error["extensions"]["fields"]] == ["files.0.fields.0.type"]


@pytest.mark.parametrize(
    "email",
    [
        "ada\x00@example.com",
        "ada\x1b@example.com",
        '"ada\x1b"@example.com',
        "a@b",
        "a" * 250 + "@example.com",
    ],
)
def test_a_signer_email_that_is_no_address_is_a_400(api_client: Client, email: str) -> None:
    from django.core import mail

    variables = two_signer_packet()
    variables["signers"][0].update(email=email, signerType="email")
    body = json.dumps({"query": CREATE, "variables": variables})

    response = api_client.post("/graphql", data=body, content_type="application/json")

    from esign.models import Packet

    assert Packet.objects.count() == 0
    assert mail.outbox == []
    assert response.status_code in (200, 400), response.content
    result = response.json()
    fields = result["errors"][0]["extensions"]["fields"] if "errors" in result else result["fields"]
    assert [f["property"] for f in fields] in (["signers.0.email"], ["variables.signers.0.email"])
