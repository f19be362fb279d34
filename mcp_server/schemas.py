"""The tools' input JSON Schemas: fill and generate take the REST API's own request schemas (the
components of the OpenAPI document, which describe what their parsers accept), made
self-contained for an MCP client (components become ``$defs``); the e-signature and workflow
tools take the GraphQL mutations' arguments, which their parsers read the same way: the
declarations those parsers check with (esign's models, forgeSubmit's arguments)."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

import fill.openapi  # noqa: F401 - registers FillRequest and its parts
import generate.openapi  # noqa: F401 - registers GenerateRequest and its parts
from core.openapi import registered_schema
from esign.graphql_docs import (
    data_json_schema,
    file_json_schema,
    options_json_schema,
    signer_json_schema,
)
from esign.models import Language
from workflows import submissions

Schema = dict[str, Any]

_COMPONENTS = "#/components/schemas/"


def _refs(value: Any) -> set[str]:
    if isinstance(value, dict):
        found = set()
        ref = value.get("$ref")
        if isinstance(ref, str) and ref.startswith(_COMPONENTS):
            found.add(ref.removeprefix(_COMPONENTS))
        for item in value.values():
            found |= _refs(item)
        return found
    if isinstance(value, list):
        return set().union(*(_refs(item) for item in value)) if value else set()
    return set()


def _rewrite(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: (
                "#/$defs/" + item.removeprefix(_COMPONENTS)
                if key == "$ref" and isinstance(item, str)
                else _rewrite(item)
            )
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_rewrite(item) for item in value]
    return value


def component(name: str, *, extra: Schema | None = None, required: tuple[str, ...] = ()) -> Schema:
    """The component ``name`` as a self-contained schema with ``$defs``; ``extra`` properties
    (and ``required`` names) added at its top."""
    schema = copy.deepcopy(registered_schema(name))
    needed: set[str] = set()
    pending = _refs(schema)
    while pending:
        ref = pending.pop()
        if ref not in needed:
            needed.add(ref)
            pending |= _refs(registered_schema(ref))
    result = _rewrite(schema)
    if extra:
        result["properties"] = {**extra, **result.get("properties", {})}
    result["required"] = [*required, *result.get("required", [])]
    if needed:
        result["$defs"] = {ref: _rewrite(registered_schema(ref)) for ref in sorted(needed)}
    return _strict(result)


def _object(properties: Schema, required: list[str]) -> Schema:
    return _strict({"type": "object", "properties": properties, "required": required})


def _strict(schema: Schema) -> Schema:
    """A tool's input schema as strict clients want it (the MCP Inspector, agents that check
    arguments before calling): JSON Schema 2020-12 (MCP's default dialect) named, and no
    argument but those listed (tools.tool_run refuses any other, naming it)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **schema,
        "additionalProperties": False,
    }


def list_templates() -> Schema:
    return _object(
        {
            "isTemplate": {
                "type": "boolean",
                "description": "Only templates (true) or only other PDFs (false); default: all.",
            }
        },
        [],
    )


def fill_template() -> Schema:
    return component(
        "FillRequest",
        extra={
            "templateEid": {
                "type": "string",
                "description": "The template's eid (list_templates).",
            },
            "versionNumber": {
                "type": "integer",
                "description": "A version; -1 the working draft; default: the latest published.",
            },
        },
        required=("templateEid",),
    )


def generate_pdf() -> Schema:
    return component("GenerateRequest")


def _signer() -> tuple[Schema, Schema]:
    """One signer of createEtchPacket (esign.engine.signer_model.SignerModel, what its parser
    checks) and the objects it uses, as ``$defs``."""
    definitions = _rewrite(signer_json_schema())
    signer = definitions.pop("SignerModel")
    languages = [code for code, _name in Language.choices]
    signer["properties"]["language"] = {**signer["properties"]["language"], "enum": languages}
    return signer, definitions


def _inlined(value: Any, definitions: Schema) -> Any:
    """``value`` with each reference to one of ``definitions`` replaced by its schema (beside
    the keys written with the reference: its description)."""
    if isinstance(value, dict):
        ref = str(value.get("$ref", "")).removeprefix(_COMPONENTS)
        if ref in definitions:
            rest = {key: item for key, item in value.items() if key != "$ref"}
            return {**_inlined(definitions[ref], definitions), **_inlined(rest, definitions)}
        return {key: _inlined(item, definitions) for key, item in value.items()}
    if isinstance(value, list):
        return [_inlined(item, definitions) for item in value]
    return value


def _declared(definitions: Schema, name: str) -> Schema:
    """The model ``name`` of ``definitions`` (esign's, which its parser checks with), the few
    small objects it uses written in place."""
    return _inlined(definitions.pop(name), definitions)


def _options() -> Schema:
    """createEtchPacket's own options (esign.engine.option_model.PacketOptions, what its parser
    checks), by name; ``language`` lists the languages shipped."""
    options = _declared(options_json_schema(), "PacketOptions")["properties"]
    languages = [code for code, _name in Language.choices]
    options["language"] = {**options["language"], "enum": languages}
    return dict(options)


def create_packet() -> Schema:
    signer, definitions = _signer()
    schema = _object(
        {
            "files": {
                "type": "array",
                "description": "The documents: a template ({id, castEid}), a PDF "
                "({id, title, file: {data: <base64>, filename, mimetype}}) or HTML "
                "({id, title, markup: {html, css}}), each with `fields` (the signer fields "
                "placed on it: {id, type, pageNum, rect: {x, y, width, height}}). As "
                "createEtchPacket's `files` (the GraphQL reference at /api/docs).",
                "items": _declared(file_json_schema(), "FileModel"),
            },
            "signers": {
                "type": "array",
                "description": "The signers, as createEtchPacket's `signers`: who each one is, "
                "how they are reached, their routing order and the fields they fill.",
                "items": signer,
            },
            "data": _declared(data_json_schema(), "PacketData"),
            **_options(),
        },
        ["files", "signers"],
    )
    return {**schema, "$defs": definitions}


def get_packet() -> Schema:
    return _object({"eid": {"type": "string", "description": "The packet's eid."}}, ["eid"])


def get_signing_link() -> Schema:
    return _object(
        {
            "signerEid": {"type": "string", "description": "An embedded signer's eid."},
            "clientUserId": {
                "type": "string",
                "description": "Your id of the person who will sign (recorded in the audit trail).",
            },
        },
        ["signerEid", "clientUserId"],
    )


def _any_value(value: Any) -> Any:
    """``value`` without ``additionalProperties: true`` (a dict's values of any JSON type, as a
    model declares them): JSON Schema's default already, and a strict client refuses the bare
    ``true`` (tests/mcp_server/test_tool_schemas_strict.py)."""
    if isinstance(value, dict):
        return {
            key: _any_value(item)
            for key, item in value.items()
            if not (key == "additionalProperties" and item is True)
        }
    if isinstance(value, list):
        return [_any_value(item) for item in value]
    return value


def submit_workflow(offered: Iterable[str]) -> Schema:
    """forgeSubmit's arguments ``offered`` (wire names), as their declaration says
    (workflows.engine.forge_arguments.ForgeSubmitArguments, which forge_submit checks them
    with): its descriptions, types and bounds, required where it requires them."""
    declared = submissions.forge_submit_schema()["ForgeSubmitArguments"]
    properties = {name: _any_value(declared["properties"][name]) for name in offered}
    return _object(properties, [name for name in declared["required"] if name in properties])
