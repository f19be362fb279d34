"""The submit_workflow tool's input schema is forgeSubmit's declaration (issue 53, item 1):
workflows.engine.forge_arguments.ForgeSubmitArguments, what forge_submit checks the arguments
with, gives each argument the tool offers its type, bounds, description and whether it is
required. A schema written by hand beside it, or a copy taken once, fails here."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import workflows.submissions
from mcp_server.server import tool_definitions
from workflows.submissions import forge_submit_schema


def advertised() -> dict[str, Any]:
    """submit_workflow's input schema as tools/list hands it to a client."""
    (tool,) = [tool for tool in tool_definitions() if tool.name == "submit_workflow"]
    return tool.input_schema


def declared() -> dict[str, Any]:
    return forge_submit_schema()["ForgeSubmitArguments"]


def test_each_argument_is_as_declared() -> None:
    schema = advertised()
    arguments = declared()["properties"]
    expected = {name: dict(arguments[name]) for name in schema["properties"]}
    # A payload's values are any JSON; a strict client refuses the bare `true` that says so.
    assert expected["payload"].pop("additionalProperties") is True

    assert schema["properties"] == expected
    assert schema["required"] == declared()["required"] == ["forgeEid", "payload"]
    assert {"forgeEid", "payload", "webhookURL", "currentStep"} <= set(schema["properties"])


def test_an_edit_to_the_declaration_is_what_the_tool_offers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    edited = copy.deepcopy(forge_submit_schema())
    arguments = edited["ForgeSubmitArguments"]["properties"]
    arguments["forgeEid"]["description"] = "An edited description."
    arguments["currentStep"]["maximum"] = 9
    monkeypatch.setattr(workflows.submissions, "forge_submit_schema", lambda: edited)

    schema = advertised()

    assert schema["properties"]["forgeEid"]["description"] == "An edited description."
    assert schema["properties"]["currentStep"]["maximum"] == 9
