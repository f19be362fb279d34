"""No input is a 500, on SQLite or PostgreSQL (issue 32).

Hostile values (tests/hostile_json.py: NUL, other control characters, lone surrogates, whole
numbers at and past the columns' ends, the wrong JSON type, nesting too deep) go to every API
path (fill, generate-pdf, verify, the document-group and submission downloads, every argument of
every GraphQL query and mutation, found in the schema, so a new one is covered the day it is
added) and to the public forms (a webform page's post, a signer's finish and decline). The
answer is never a 500; an API's refusal is a JSON error in the wire shape; a refusal stores
nothing (every row of the project's models is counted before and after).

PostgreSQL refuses NUL in text and numbers past its columns where SQLite stores them: CI runs
this module on PostgreSQL too (DATABASE_URL).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from django.apps import apps
from django.test import Client
from graphql import GraphQLObjectType, get_named_type
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from accounts.models import ApiKeyUsage
from config.schema import schema
from tests.conftest import basic_auth
from tests.esign.conftest import CREATE, SIGN_URL, token_of, two_signer_packet
from tests.hostile_json import (
    DEEP,
    EDGE_INTEGERS,
    HOSTILE_INPUT,
    HOSTILE_TEXT,
    IMPOSSIBLE_MOMENTS,
)
from workflows.definitions.rows import definition_of
from workflows.demo import demo_workflow_create
from workflows.engine.form_inputs import input_names

pytestmark = pytest.mark.django_db

HYPOTHESIS = settings(
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
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
    response = client.post(
        "/graphql",
        data=json.dumps({"query": query, "variables": variables}),
        content_type="application/json",
    )
    result = response.json()
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


# --- GraphQL: every argument of every query and mutation ---------------------------------------


@dataclass(frozen=True)
class Operation:
    kind: str  # "query" or "mutation"
    field: str
    arguments: dict[str, str]  # name -> type, as the schema writes it
    selects: bool  # an object type: the operation selects __typename
    moments: frozenset[str] = frozenset()  # the arguments that take a date and time


def takes_a_moment(argument: Any) -> bool:
    """A DateTime argument, or one its description says takes ISO 8601 (a String on the wire)."""
    return get_named_type(argument.type).name == "DateTime" or "ISO 8601" in (
        argument.description or ""
    )


def operations() -> list[Operation]:
    """Every root field of the schema, with its arguments."""
    found = []
    graphql_schema = schema.graphql_schema
    for kind, root in (
        ("query", graphql_schema.query_type),
        ("mutation", graphql_schema.mutation_type),
    ):
        assert root is not None
        for name, field in root.fields.items():
            found.append(
                Operation(
                    kind=kind,
                    field=name,
                    arguments={arg: str(value.type) for arg, value in field.args.items()},
                    selects=isinstance(get_named_type(field.type), GraphQLObjectType),
                    moments=frozenset(
                        arg for arg, value in field.args.items() if takes_a_moment(value)
                    ),
                )
            )
    return found


OPERATIONS = operations()


def is_structured(kind: str) -> bool:
    """A JSON or list argument: hostile values go inside it as well as in its place."""
    return "JSON" in kind or kind.startswith("[")


# Drawn as often again as any operation: those with a structure to hide a value in.
STRUCTURED = [op for op in OPERATIONS if any(map(is_structured, op.arguments.values()))]


def valid_arguments(world: World, operation: Operation) -> dict[str, Any]:
    """Arguments that name real rows, so a hostile value in one of them gets as far as it can.
    An argument not known here gets a value of its type, if it is required."""
    known: dict[str, Any] = {
        "eid": {
            "cast": world.template_eid,
            "etchPacket": world.packet.get("eid"),
            "weld": world.workflow_eid,
            "weldData": world.weld_data_eid,
            "sendEtchPacket": world.packet.get("eid"),
        }.get(operation.field, "A" * 20),
        "signerEid": world.signer_eid,
        "clientUserId": "client-1",
        "forgeEid": world.forge_eids["about-you"],
        "payload": {"email": "ada@example.com"},
        "url": "https://example.com/hook",
        # Real moments, so that a hostile one in their place gets as far as it can.
        "expiresAt": FUTURE_MOMENT,
        "since": "2020-01-01T00:00:00Z",
        "until": "2020-01-02T00:00:00Z",
    }
    if operation.field == "createEtchPacket":
        known.update(two_signer_packet(isDraft=True))
    if operation.field == "createEtchPacketBatch":
        known.update(
            packet=two_signer_packet(isDraft=True, expiresAt=FUTURE_MOMENT), rows=[{"name": "Ada"}]
        )
    by_type = {"String!": "x", "Int!": 1, "Boolean!": False, "JSON!": {}, "[JSON!]!": [{}]}
    arguments = {}
    for name, kind in operation.arguments.items():
        if name in known and (kind.endswith("!") or operation.field == "createEtchPacket"):
            arguments[name] = known[name]
        elif kind.endswith("!"):
            arguments[name] = by_type[kind]
    return {name: value for name, value in arguments.items() if name in operation.arguments}


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


def graphql_literal(raw: str) -> str | None:
    """The hostile JSON text ``raw`` written in the query, when GraphQL can write it so: a
    string (JSON's escapes are GraphQL's) or an integer."""
    if raw.startswith(("[", "{")):
        return None
    value = json.loads(raw)
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return raw
    return None


@st.composite
def graphql_cases(draw: st.DrawFn) -> tuple[Operation, str, str, str | int | None]:
    """An operation, where the hostile value goes (an argument, or inside one), how (a variable
    or written in the query), and the hostile JSON."""
    operation = draw(st.sampled_from(OPERATIONS) | st.sampled_from(STRUCTURED))
    raw = draw(HOSTILE_INPUT)
    mode = draw(st.sampled_from(["variable", "literal", "inside", "inside"]))
    arguments = sorted(operation.arguments)
    structured = [name for name in arguments if is_structured(operation.arguments[name])]
    if mode == "inside" and structured:
        arguments = structured
    target = draw(st.sampled_from(arguments)) if arguments else None
    if target in operation.moments and draw(st.booleans()):
        raw = json.dumps(draw(IMPOSSIBLE_MOMENTS))
    return operation, mode, raw, target


def graphql_body(
    world: World, operation: Operation, mode: str, raw: str, target: str | None, pick: Any
) -> bytes:
    arguments = valid_arguments(world, operation)
    literal = None
    if target is not None and mode == "inside" and isinstance(arguments.get(target), dict | list):
        # A property name first, then one of its places: `type` is as likely as `x` however
        # many rects there are.
        by_key: dict[str | int, list[tuple[str | int, ...]]] = {}
        for place in leaves(arguments[target]):
            by_key.setdefault(place[-1] if isinstance(place[-1], str) else "[]", []).append(place)
        key = pick(st.sampled_from(sorted(by_key, key=str))) if by_key else None
        path = pick(st.sampled_from(by_key[key])) if key is not None else ()
        raw = pick(hostile_in_place_of(value_at(arguments[target], path)))
        event(f"inside {target}.{'.'.join(map(str, path))}")
        arguments[target] = replaced(arguments[target], path, PLACEHOLDER)
    elif target is not None:
        literal = graphql_literal(raw) if mode == "literal" else None
        arguments[target] = PLACEHOLDER
    declared, passed = [], []
    for index, name in enumerate(arguments):
        if name == target and literal is not None:
            passed.append(f"{name}: {literal}")
            continue
        declared.append(f"$a{index}: {operation.arguments[name]}")
        passed.append(f"{name}: $a{index}")
    variables = {
        f"a{index}": value
        for index, (name, value) in enumerate(arguments.items())
        if not (name == target and literal is not None)
    }
    header = f"{operation.kind}({', '.join(declared)})" if declared else operation.kind
    call = f"{operation.field}({', '.join(passed)})" if passed else operation.field
    query = f"{header} {{ {call}{' { __typename }' if operation.selects else ''} }}"
    return with_hostile(json.dumps({"query": query, "variables": variables}), raw)


@settings(HYPOTHESIS, max_examples=200)
@given(case=graphql_cases(), data=st.data())
def test_no_graphql_argument_is_a_500(world: World, case: Any, data: st.DataObject) -> None:
    operation, mode, raw, target = case
    event(f"{mode} {operation.field}")
    assert_graphql_refused_cleanly(
        world, operation, graphql_body(world, operation, mode, raw, target, data.draw)
    )


@settings(HYPOTHESIS, max_examples=200)
@given(operation=st.sampled_from(STRUCTURED), data=st.data())
def test_no_value_inside_a_graphql_argument_is_a_500(
    world: World, operation: Operation, data: st.DataObject
) -> None:
    structured = sorted(name for name, kind in operation.arguments.items() if is_structured(kind))
    target = data.draw(st.sampled_from(structured))
    body = graphql_body(world, operation, "inside", "null", target, data.draw)
    assert_graphql_refused_cleanly(world, operation, body)


def assert_graphql_refused_cleanly(world: World, operation: Operation, body: bytes) -> None:
    before = rows()

    response = world.client.post("/graphql", data=body, content_type="application/json")

    assert response.status_code in (200, 400, 413), response.content[:500]
    result = response.json()
    event("accepted" if "errors" not in result else "refused")
    if "errors" not in result:
        if response.status_code != 200:  # refused as the body was read: the REST wire shape
            assert_wire_error(response)
            assert rows() == before
        return
    codes = [error.get("extensions", {}).get("code") for error in result["errors"]]
    assert "InternalServerError" not in codes, result
    assert all(isinstance(error["message"], str) for error in result["errors"])
    if not (result.get("data") or {}).get(operation.field):
        assert rows() == before, result


def test_every_argument_that_takes_a_moment_is_known() -> None:
    # Learned from the schema (a DateTime, or ISO 8601 in its description): a new one is among
    # those given impossible dates the day it is added.
    moments = {(op.field, name) for op in OPERATIONS for name in op.moments}
    assert {
        ("createEtchPacket", "expiresAt"),
        ("extendEtchPacket", "expiresAt"),
        ("replayWebhookEvents", "since"),
        ("replayWebhookEvents", "until"),
    } <= moments


def test_every_root_field_is_covered() -> None:
    # The cases come from the schema itself: a new query or mutation is among them.
    names = {operation.field for operation in OPERATIONS}
    assert {"createEtchPacket", "forgeSubmit", "etchPacket", "weldData", "cast"} <= names
    assert len(OPERATIONS) == len(schema.graphql_schema.query_type.fields) + len(
        schema.graphql_schema.mutation_type.fields
    )


# --- REST ------------------------------------------------------------------------------------

FILL_BODIES = [
    '{"data": {"title": "@@hostile@@"}}',
    '{"title": "@@hostile@@", "data": {"title": "x"}}',
    '{"data": {"name": {"firstName": "@@hostile@@"}, "quantity": "@@hostile@@"}}',
    '{"data": {"items": [{"description": "@@hostile@@"}]}}',
    '{"fontSize": "@@hostile@@", "data": {}}',
    '{"data": "@@hostile@@"}',
    '"@@hostile@@"',
]
GENERATE_BODIES = [
    '{"type": "markdown", "data": [{"content": "@@hostile@@"}]}',
    '{"type": "markdown", "title": "@@hostile@@", "data": [{"label": "x", "content": "y"}]}',
    '{"type": "markdown", "data": [{"table": {"rows": [["@@hostile@@"]]}}]}',
    '{"type": "html", "data": {"html": "@@hostile@@"}}',
    '{"type": "@@hostile@@", "data": [{"content": "x"}]}',
    '{"type": "markdown", "fontSize": "@@hostile@@", "data": [{"content": "x"}]}',
    '{"type": "markdown", "page": {"width": "@@hostile@@"}, "data": [{"content": "x"}]}',
    '"@@hostile@@"',
]
VERIFY_BODIES = ['{"file": "@@hostile@@"}', '"@@hostile@@"']


@st.composite
def rest_cases(draw: st.DrawFn) -> tuple[str, str, bytes | None]:
    """(method, path with {eid} and {text} to fill, body or None)."""
    raw = draw(HOSTILE_INPUT)
    text = in_path(draw(HOSTILE_TEXT))
    number = in_path(str(draw(EDGE_INTEGERS)))
    choice = draw(
        st.sampled_from(
            [
                ("post", "/api/v1/fill/{template}.pdf", FILL_BODIES),
                ("post", "/api/v1/generate-pdf", GENERATE_BODIES),
                ("post", "/api/v1/verify", VERIFY_BODIES),
                ("post", f"/api/v1/fill/{text}.pdf", FILL_BODIES[:1]),
                ("post", f"/api/v1/fill/{{template}}.pdf?versionNumber={number}", FILL_BODIES[:1]),
                ("post", f"/api/v1/fill/{{template}}.pdf?versionNumber={text}", FILL_BODIES[:1]),
                ("get", f"/api/document-group/{text}.zip", None),
                ("get", f"/download/{text}.zip", None),
                ("get", "/api/document-group/{group}.zip", None),
                ("get", "/download/{weld_data}.zip", None),
                ("get", f"/api/etch/verify/{text}?token={text}", None),
                ("get", f"/api/etch/sign/{{signer}}/documents/{text}.pdf", None),
                ("get", f"/api/etch/sign/{{signer}}/documents/agreement/pages/{number}.webp", None),
            ]
        )
    )
    method, path, bodies = choice
    body = with_hostile(draw(st.sampled_from(bodies)), raw) if bodies else None
    return method, path, body


@settings(HYPOTHESIS, max_examples=150)
@given(case=rest_cases())
def test_no_rest_input_is_a_500(world: World, case: tuple[str, str, bytes | None]) -> None:
    method, path, body = case
    path = path.format(
        template=world.template_eid,
        group=world.packet["documentGroup"]["eid"],
        weld_data=world.weld_data_eid,
        signer=world.signer_eid,
    )
    before = rows()

    if method == "get":
        response = world.client.get(path)
    else:
        response = world.client.post(path, data=body, content_type="application/json")

    assert response.status_code != 500, response.content[:500]
    if response.status_code >= 400 and not path.startswith("/api/etch/"):
        assert_refused_cleanly(response, before)
    elif response.status_code >= 400:
        # The signer's pages answer people: an HTML page or its JSON, never a 500.
        assert rows() == before


# --- the public forms --------------------------------------------------------------------------


@st.composite
def webform_posts(draw: st.DrawFn) -> tuple[str, dict[str, str]]:
    """(webform slug, the page's post) with one input, or the page number, made hostile."""
    slug = draw(st.sampled_from(["about-you", "order"]))
    text = draw(HOSTILE_TEXT | EDGE_INTEGERS.map(str))
    where = draw(st.sampled_from(["input", "page", "action", "forge"]))
    return slug, {"where": where, "text": text, "pick": str(draw(st.integers(0, 50)))}


@settings(HYPOTHESIS, max_examples=80)
@given(case=webform_posts())
def test_no_webform_post_is_a_500(world: World, case: tuple[str, dict[str, str]]) -> None:
    slug, how = case
    definition = definition_of(world_workflow(world))
    webform = definition.webform(slug=slug)
    assert webform is not None
    names = [name for field in webform.pages[0].fields for name in input_names(field)]
    post = {"forge": world.forge_eids[slug], "page": "0", "action": "next"}
    post.update(dict.fromkeys(names, ""))
    target = {"input": names[int(how["pick"]) % len(names)]}.get(how["where"], how["where"])
    post[target] = how["text"]
    body = urlencode(post, quote_via=lambda s, *a: quote(s.encode("utf-8", "surrogatepass"), ""))
    before = rows()

    response = Client().post(
        f"/form/{world_organization_slug(world)}/{world.workflow_slug}",
        data=body,
        content_type="application/x-www-form-urlencoded",
    )

    assert response.status_code != 500, response.content[:500]
    if response.status_code == 400:
        assert rows() == before


def world_workflow(world: World) -> Any:
    from workflows.models import Workflow

    return Workflow.objects.get(eid=world.workflow_eid)


def world_organization_slug(world: World) -> str:
    return world_workflow(world).organization.slug


SIGNER_BODIES = [
    '{"reason": "@@hostile@@"}',
    '"@@hostile@@"',
    '{"signature": {"typed": "@@hostile@@"}}',
    '{"signature": "@@hostile@@"}',
    '{"signature": {"typed": "Ada"}, "values": {"agreement/title1": "@@hostile@@"}}',
    '{"signature": {"typed": "Ada"}, "values": "@@hostile@@"}',
    '{"signature": {"typed": "Ada"}, "initials": "@@hostile@@"}',
]


@settings(HYPOTHESIS, max_examples=80)
@given(
    action=st.sampled_from(["complete", "decline"]),
    template=st.sampled_from(SIGNER_BODIES),
    raw=HOSTILE_INPUT,
)
def test_no_signer_finish_or_decline_is_a_500(
    world: World, action: str, template: str, raw: str
) -> None:
    if world.packet["documentGroup"]["signers"][0].get("done"):
        new_packet(world)
    before = rows()

    response = Client().post(
        f"/api/etch/sign/{world.signer_eid}/{action}",
        data=with_hostile(template, raw),
        content_type="application/json",
        HTTP_X_SIGNING_TOKEN=world.token,
    )

    assert response.status_code in (200, 400, 409, 413), response.content[:500]
    if response.status_code == 200:
        world.packet["documentGroup"]["signers"][0]["done"] = True
        return
    assert_wire_error(response)
    assert rows() == before


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


# --- GraphQL: arguments of the fields inside an answer -----------------------------------------


def nested_fields_with_arguments() -> list[tuple[Operation, tuple[str, ...], dict[str, str], bool]]:
    """Every field inside a query's answer that takes arguments (``etchPacketBatch { rows(status:
    ...) }``), found in the schema, so a new one is covered the day it is added: (the query's
    root field, the path of fields from it down to the field, the field's arguments as the
    schema writes them, whether it selects an object). Each is reached the shortest way, walking
    the answer's object types breadth first, no deeper than four fields."""
    query_type = schema.graphql_schema.query_type
    assert query_type is not None
    roots = {op.field: op for op in OPERATIONS if op.kind == "query"}
    found: dict[tuple[str, str], tuple[Operation, tuple[str, ...], dict[str, str], bool]] = {}
    queue = [
        (roots[name], (name,), get_named_type(f.type)) for name, f in query_type.fields.items()
    ]
    while queue:
        root, path, kind = queue.pop(0)
        if not isinstance(kind, GraphQLObjectType) or len(path) > 3:
            continue
        for name, field in kind.fields.items():
            inner = get_named_type(field.type)
            if field.args and (kind.name, name) not in found:
                arguments = {arg: str(value.type) for arg, value in field.args.items()}
                selects = isinstance(inner, GraphQLObjectType)
                found[(kind.name, name)] = (root, (*path[1:], name), arguments, selects)
            queue.append((root, (*path, name), inner))
    return sorted(found.values(), key=lambda case: (case[0].field, case[1]))


@settings(HYPOTHESIS, max_examples=80)
@given(
    case=st.sampled_from(nested_fields_with_arguments()),
    mode=st.sampled_from(["variable", "literal"]),
    data=st.data(),
)
def test_no_nested_graphql_argument_is_a_500(
    world: World, case: Any, mode: str, data: st.DataObject
) -> None:
    """A hostile value in an argument of a field inside the answer (the root field's own
    arguments name real rows, so the field is reached): never a 500, and a query stores
    nothing."""
    root, path, arguments, selects = case
    found = {(op.field, path) for op, path, _, _ in nested_fields_with_arguments()}
    assert {("etchPacketBatch", ("rows",)), ("weld", ("weldDatas",))} <= found
    assert ("currentUser", ("organizations", "casts")) in found
    if root.field == "etchPacketBatch" and "batch_eid" not in vars(world):
        created = graphql(
            world.client,
            "mutation($p: JSON!, $r: [JSON!]!) { createEtchPacketBatch(packet: $p, rows: $r) "
            "{ eid } }",
            {"p": two_signer_packet(isDraft=True, expiresAt=FUTURE_MOMENT), "r": [{"n": "Ada"}]},
        )
        vars(world)["batch_eid"] = created["createEtchPacketBatch"]["eid"]
    root_arguments = valid_arguments(world, root)
    if "eid" in root.arguments:
        root_arguments["eid"] = {
            "etchPacketBatch": vars(world).get("batch_eid"),
            "weld": world.workflow_eid,
            "weldData": world.weld_data_eid,
        }.get(root.field, root_arguments.get("eid"))
    target = data.draw(st.sampled_from(sorted(arguments)))
    sample = {"Int": 1, "String": "x"}.get(arguments[target].rstrip("!"), True)
    # An explicit null one time in four: an argument with a default gets None, not the default.
    raw = data.draw(st.one_of(st.just("null"), *[hostile_in_place_of(sample)] * 3))
    literal = graphql_literal(raw) if mode == "literal" else None
    event(f"{mode} {root.field}.{'.'.join(path)}({target})")
    declared = [f"$r{i}: {root.arguments[name]}" for i, name in enumerate(root_arguments)]
    passed = [f"{name}: $r{i}" for i, name in enumerate(root_arguments)]
    variables: dict[str, Any] = {f"r{i}": value for i, value in enumerate(root_arguments.values())}
    if literal is None:
        declared.append(f"$n: {arguments[target]}")
        variables["n"] = PLACEHOLDER
    selection = " { __typename }" if selects else ""
    for depth, name in reversed(list(enumerate(path))):
        given_here = f"({target}: {literal if literal is not None else '$n'})"
        call = name + (given_here if depth == len(path) - 1 else "")
        selection = f" {{ {call}{selection} }}"
    header = f"query({', '.join(declared)})" if declared else "query"
    call = f"{root.field}({', '.join(passed)})" if passed else root.field
    body = with_hostile(
        json.dumps({"query": f"{header} {{ {call}{selection} }}", "variables": variables}), raw
    )
    before = rows()

    response = world.client.post("/graphql", data=body, content_type="application/json")

    assert response.status_code in (200, 400, 413), response.content[:500]
    result = response.json()
    if "errors" in result:
        codes = [error.get("extensions", {}).get("code") for error in result["errors"]]
        assert "InternalServerError" not in codes, result
        assert all(isinstance(error["message"], str) for error in result["errors"])
    elif response.status_code != 200:  # refused as the body was read: the REST wire shape
        assert_wire_error(response)
    else:  # answered: the field was reached, below a real row
        assert result["data"][root.field] is not None, result
    assert rows() == before
