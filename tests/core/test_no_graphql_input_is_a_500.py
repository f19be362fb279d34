"""No GraphQL input is a 500 (issue 32): a hostile value in place of every argument of every query
and mutation (found in the schema, so a new one is covered the day it is added), inside the
structured ones, and in the arguments of the fields inside an answer. The world and the shared
helpers are in test_no_input_is_a_500.py."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from graphql import GraphQLObjectType, get_named_type
from hypothesis import event, given, settings
from hypothesis import strategies as st

from config.schema import schema
from tests.core.test_no_input_is_a_500 import (
    FUTURE_MOMENT,
    HYPOTHESIS,
    PLACEHOLDER,
    World,
    assert_wire_error,
    graphql,
    hostile_in_place_of,
    leaves,
    replaced,
    rows,
    value_at,
    with_hostile,
)
from tests.core.test_no_input_is_a_500 import world as world  # noqa: F401 - the fixture
from tests.esign.conftest import two_signer_packet
from tests.hostile_json import HOSTILE_INPUT, IMPOSSIBLE_MOMENTS

pytestmark = pytest.mark.django_db


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
