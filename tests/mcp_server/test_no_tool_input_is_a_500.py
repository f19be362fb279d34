"""No MCP tool input is a 500 (issue 46, items 9 and 12): every argument of every tool, and every
value inside one, replaced by a hostile value (tests/hostile_json.py: NUL and other control
characters, lone surrogates, whole numbers past the columns' ends, the wrong JSON type, nesting
too deep, dates that do not exist) or an argument the tool does not know. The answer is a tool
result or the wire error of a refusal, never the internal error; a refusal stores nothing (every
row of the project's models counted before and after).

The tools are called as the server calls them (``tool_run``), under the schema's own checks'
absence: an MCP client need not validate its input against the tool's schema, so the tool may
not rely on it either."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from accounts.identity import ApiIdentity
from accounts.models import ApiKey
from esign.models import Packet
from mcp_server.tools import TOOLS, ToolError, tool_run
from tests.core.test_no_input_is_a_500 import (
    FUTURE_MOMENT,
    HYPOTHESIS,
    World,
    hostile_in_place_of,
    leaves,
    replaced,
    rows,
    value_at,
)
from tests.esign.conftest import two_signer_packet
from tests.hostile_json import HOSTILE_INPUT

pytestmark = pytest.mark.django_db


def valid_arguments(world: World, tool: str) -> dict[str, Any]:
    """Arguments each tool takes, naming real rows, so that a hostile value in one of them gets
    as far as it can."""
    return {
        "list_templates": {"isTemplate": True},
        "fill_template": {"templateEid": world.template_eid, "data": {"title": "x"}},
        "generate_pdf": {"type": "markdown", "title": "t", "data": [{"content": "x"}]},
        "create_packet": two_signer_packet(isDraft=True, expiresAt=FUTURE_MOMENT),
        "get_packet": {"eid": world.packet["eid"]},
        "get_signing_link": {"signerEid": world.signer_eid, "clientUserId": "u"},
        "submit_workflow": {
            "forgeEid": world.forge_eids["about-you"],
            "payload": {"email": "ada@example.com"},
        },
    }[tool]


def loaded(raw: str) -> Any:
    """The hostile JSON text as the transport hands it over; nesting deeper than Python's own
    decoder goes is built without it (the depth is what matters, past the API's 64)."""
    try:
        return json.loads(raw)
    except RecursionError:
        nested: Any = []
        for _ in range(2_000):
            nested = [nested]
        return nested


def identity_of(world: World) -> ApiIdentity:
    key = ApiKey.objects.get()
    return ApiIdentity(organization=key.organization, api_key=key)


def test_every_tool_has_valid_arguments_that_work(world: World) -> None:
    # The starting points are accepted: a refusal below is the hostile value's doing.
    for name in TOOLS:
        answer = tool_run(identity_of(world), name, valid_arguments(world, name))
        assert not isinstance(answer, ToolError), (name, answer)


@settings(HYPOTHESIS, max_examples=150)
@given(tool=st.sampled_from(sorted(TOOLS)), data=st.data())
def test_no_tool_argument_is_a_500(world: World, tool: str, data: st.DataObject) -> None:
    arguments = valid_arguments(world, tool)
    places = [*leaves(arguments), ("unknownArgument",)]
    place = data.draw(st.sampled_from(places))
    was = value_at(arguments, place) if place != ("unknownArgument",) else None
    raw = data.draw(hostile_in_place_of(was) if was is not None else HOSTILE_INPUT)
    hostile = loaded(raw)
    arguments = (
        {**arguments, "unknownArgument": hostile}
        if place == ("unknownArgument",)
        else replaced(arguments, place, hostile)
    )
    event(f"{tool} {'.'.join(map(str, place))}")
    before = rows()

    answer = tool_run(identity_of(world), tool, arguments)

    if isinstance(answer, ToolError):
        event("refused")
        assert answer.wire["name"] != "InternalServerError", (tool, place, raw[:200])
        assert isinstance(answer.wire["message"], str)
        assert rows() == before, (tool, place, raw[:200])
    else:
        event("accepted")


@pytest.mark.parametrize(
    ("tool", "argument"),
    [
        ("create_packet", "signatureEmailBody"),
        ("create_packet", "name"),
        ("fill_template", "title"),
        ("generate_pdf", "title"),
        ("submit_workflow", "payload"),
    ],
)
def test_nul_in_a_tool_argument_is_refused_naming_it(
    world: World, tool: str, argument: str
) -> None:
    # REST and GraphQL refuse NUL as the body is read; a tool's arguments meet the same check.
    arguments = valid_arguments(world, tool)
    if argument == "payload":
        arguments["payload"] = {"email": "ada\x00@example.com"}
        where = "payload.email"
    else:
        arguments[argument] = "Dear \x00 signer"
        where = argument
    packets = Packet.objects.count()
    before = rows()

    answer = tool_run(identity_of(world), tool, arguments)

    assert isinstance(answer, ToolError), answer
    assert answer.wire["name"] == "ValidationError", answer.wire
    assert [f["property"] for f in answer.wire["fields"]] == [where]
    assert rows() == before
    assert Packet.objects.count() == packets


def test_a_tool_that_fails_after_storing_stores_nothing(world: World, monkeypatch: Any) -> None:
    # The packet is stored, then something later refuses: the call is one transaction.
    from core.errors import Conflict
    from mcp_server import tools

    def refuse(packet: Packet) -> dict[str, Any]:
        raise Conflict("refused after the packet was stored")

    monkeypatch.setattr(tools, "_packet", refuse)
    before = rows()

    answer = tool_run(identity_of(world), "create_packet", valid_arguments(world, "create_packet"))

    assert isinstance(answer, ToolError), answer
    assert answer.wire["name"] == "ConflictError", answer
    assert rows() == before
