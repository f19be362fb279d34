"""Every tool's input schema passes a strict client's checks (the MCP Inspector's strict
validation, agents that check arguments before a call; issue 49, item 11), and the tools hold to
them: an argument the schema does not list is refused by name, and NUL is refused where REST
refuses it, with the same answer.

What "strict" means here, rule by rule (``problems_of``):

- the schema is valid JSON Schema 2020-12 (MCP's default dialect), and says so in ``$schema``;
- its root is ``type: object`` with ``additionalProperties: false``, and every name in
  ``required`` is one of its ``properties``;
- every schema inside it (properties, items, ``additionalProperties``, ``oneOf``/``anyOf``/
  ``allOf`` branches, ``$defs``) is an object, never a bare ``true``, and says what it takes:
  one ``type`` (a single string: a list of types such as ``["string", "null"]`` is written as
  ``anyOf``), a ``$ref`` that resolves in ``$defs``, an ``enum``, a ``const`` or a composition;
- every argument (a root property) has a description an agent can read.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from accounts.identity import ApiIdentity
from accounts.models import ApiKey, Organization
from mcp_server.server import tool_definitions
from mcp_server.tools import TOOLS, ToolError, tool_run

pytestmark = pytest.mark.django_db

DIALECT = "https://json-schema.org/draft/2020-12/schema"
COMPOSITIONS = ("oneOf", "anyOf", "allOf")
SAYS_WHAT_IT_TAKES = ("type", "$ref", "enum", "const", *COMPOSITIONS)


def problems_of(schema: Any) -> list[str]:
    """What a strict client finds wrong with a tool's input schema (empty: nothing)."""
    if not isinstance(schema, dict):
        return ["the input schema is not an object"]
    found: list[str] = []
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        found.append(f"not JSON Schema 2020-12: {error.message}")
    if schema.get("$schema") != DIALECT:
        found.append("$schema does not name JSON Schema 2020-12")
    if schema.get("type") != "object":
        found.append("the root is not type: object")
    if schema.get("additionalProperties") is not False:
        found.append("the root allows other arguments (additionalProperties is not false)")
    definitions = schema.get("$defs", {})

    def walk(node: Any, path: str) -> None:
        if not isinstance(node, dict):
            found.append(f"{path}: {node!r} is not a schema object")
            return
        if not any(key in node for key in SAYS_WHAT_IT_TAKES):
            found.append(f"{path}: says not what it takes (no type)")
        kind = node.get("type")
        if kind is not None and not isinstance(kind, str):
            found.append(f"{path}: type {kind!r} is not one type")
        target = node.get("$ref")
        if target is not None and (
            not isinstance(target, str)
            or target.removeprefix("#/$defs/") not in definitions
            or not target.startswith("#/$defs/")
        ):
            found.append(f"{path}: $ref {target!r} does not resolve in $defs")
        properties = node.get("properties", {})
        for name, sub in properties.items():
            walk(sub, f"{path}.{name}")
        for name in node.get("required", []):
            if name not in properties:
                found.append(f"{path}: required {name!r} is not a property")
        if isinstance(node.get("additionalProperties"), dict | bool) and not isinstance(
            node["additionalProperties"], bool
        ):
            walk(node["additionalProperties"], f"{path}.additionalProperties")
        elif node.get("additionalProperties") is True:
            found.append(f"{path}: additionalProperties is a bare true")
        if "items" in node:
            walk(node["items"], f"{path}.items")
        for key in COMPOSITIONS:
            for index, sub in enumerate(node.get(key, [])):
                walk(sub, f"{path}.{key}.{index}")

    walk(schema, "(root)")
    for name, sub in definitions.items():
        walk(sub, f"$defs.{name}")
    for name, sub in schema.get("properties", {}).items():
        if isinstance(sub, dict) and not sub.get("description"):
            found.append(f"argument {name!r} has no description")
    return found


def test_every_tool_schema_passes_the_strict_rules() -> None:
    tools = tool_definitions()

    assert {tool.name for tool in tools} == set(TOOLS)
    for tool in tools:
        assert problems_of(tool.input_schema) == [], tool.name


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ({"additionalProperties": True}, "additionalProperties is not false"),
        ({"type": "array", "additionalProperties": False}, "not type: object"),
        ({"properties": {"a": True}}, "is not a schema object"),
        ({"properties": {"a": {"description": "any"}}}, "says not what it takes"),
        ({"properties": {"a": {"type": ["string", "null"]}}}, "is not one type"),
        ({"properties": {"a": {"$ref": "#/$defs/Missing"}}}, "does not resolve"),
        ({"properties": {}, "required": ["a"]}, "required 'a' is not a property"),
        ({"properties": {"a": {"type": "string"}}}, "argument 'a' has no description"),
        ({"properties": {"a": {"type": "strng"}}}, "not JSON Schema 2020-12"),
        (
            {"$defs": {"D": {"type": "object", "additionalProperties": {}}}},
            "$defs.D.additionalProperties: says not what it takes",
        ),
    ],
)
def test_the_rules_find_what_a_strict_client_refuses(schema: dict, problem: str) -> None:
    strict = {"$schema": DIALECT, "type": "object", "additionalProperties": False}

    assert any(problem in found for found in problems_of({**strict, **schema})), problems_of(
        {**strict, **schema}
    )


@pytest.fixture
def identity(organization: Organization, api_key: str) -> ApiIdentity:
    key = ApiKey.objects.get(organization=organization)
    return ApiIdentity(organization=organization, api_key=key)


def test_an_argument_the_schema_does_not_list_is_refused_by_name(
    identity: ApiIdentity, demo_template: Any
) -> None:
    answer = tool_run(
        identity,
        "fill_template",
        {"templateEid": demo_template.eid, "data": {"title": "x"}, "titel": "Typo"},
    )

    assert isinstance(answer, ToolError)
    assert answer.wire == {
        "name": "ValidationError",
        "fields": [{"message": "Not an argument of fill_template.", "property": "titel"}],
        "message": answer.wire["message"],
    }


@pytest.mark.parametrize(
    ("tool", "path", "arguments"),
    [
        ("fill_template", "data.title", {"data": {"title": "Ada\x00"}}),
        ("fill_template", "data", {"data": {"ti\x00tle": "Ada"}}),
        ("fill_template", "data.0.title", {"data": [{"title": "\x00"}]}),
        ("generate_pdf", "data.0.content", {"data": [{"content": "x\x00y"}]}),
        ("generate_pdf", "data.html", {"type": "html", "data": {"html": "<p>\x00</p>"}}),
        ("generate_pdf", "page.margin", {"data": [{"content": "x"}], "page": {"margin": "\x00"}}),
    ],
)
def test_nul_is_refused_as_rest_refuses_it(
    identity: ApiIdentity, demo_template: Any, api_client: Any, tool: str, path: str, arguments
) -> None:
    if tool == "fill_template":
        url, tool_arguments = (
            f"/api/v1/fill/{demo_template.eid}.pdf",
            {
                "templateEid": demo_template.eid,
                **arguments,
            },
        )
    else:
        url, tool_arguments = "/api/v1/generate-pdf", arguments

    rest = api_client.post(url, data=json.dumps(arguments), content_type="application/json")
    answer = tool_run(identity, tool, tool_arguments)

    assert rest.status_code == 400
    assert isinstance(answer, ToolError), answer
    assert answer.wire["name"] == rest.json()["name"] == "ValidationError"
    assert answer.wire["fields"] == rest.json()["fields"]
    assert [field["property"] for field in answer.wire["fields"]] == [path]
