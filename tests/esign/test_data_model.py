"""createEtchPacket's ``data`` is declared once (esign.engine.data_model, issue 53 item 1): the
parser reads it through the model with today's problems, and the MCP tool's ``data`` is the
model's schema."""

from __future__ import annotations

from typing import Any

import pytest

from core.errors import ValidationFailed
from esign.engine.data_model import PacketData
from esign.packets.inputs import parse_packet_input
from mcp_server.schemas import create_packet

RECT = {"x": 10, "y": 20, "width": 100, "height": 30}
FILES = [
    {"id": "lease", "castEid": "tpl"},
    {
        "id": "notes",
        "markup": {"html": "<p>x</p>"},
        "fields": [{"id": "s", "type": "signature", "rect": RECT}],
    },
]
SIGNERS = [
    {"name": "Ada", "email": "ada@example.com", "fields": [{"fileId": "notes", "fieldId": "s"}]}
]


def data_problems(data: Any) -> list[tuple[str, str]]:
    try:
        parse_packet_input({"files": FILES, "signers": SIGNERS, "data": data})
    except ValidationFailed as failed:
        return [(f.property, f.message) for f in failed.fields]
    return []


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"payloads": {"lease": {"data": {"a": 1}}}}, []),
        # As before: a data that is no object, or with no payloads, is none.
        ("text", []),
        ({"payloads": None, "other": 1}, []),
        ({"payloads": ["lease"]}, [("data.payloads", "Must be an object keyed by file id.")]),
        (
            {"payloads": {"notes": {}, "gone": {"data": {}}, "lease": {}}},
            [
                ("data.payloads.notes", "No template file has this id to fill."),
                ("data.payloads.gone", "No template file has this id to fill."),
            ],
        ),
    ],
)
def test_each_problem_is_named_as_before(data: Any, expected: list[Any]) -> None:
    assert data_problems(data) == expected


def test_the_payloads_are_read() -> None:
    packet = parse_packet_input(
        {"files": FILES, "signers": SIGNERS, "data": {"payloads": {"lease": {"data": {"a": 1}}}}}
    )
    assert packet.payloads == {"lease": {"data": {"a": 1}}}


def test_the_mcp_tool_takes_the_models_schema() -> None:
    data = create_packet()["properties"]["data"]
    assert list(data["properties"]) == list(PacketData.model_fields)
    assert data["properties"]["payloads"]["type"] == "object"
    assert data["properties"]["payloads"]["additionalProperties"]["type"] == "object"
    assert data["description"].startswith("Fill data for the template files")
