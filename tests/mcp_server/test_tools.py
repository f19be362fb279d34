"""The MCP tools through the official SDK's own client, in process: every tool listed with a
valid JSON Schema, each called once as it should be and once with a bad input (answered as an
MCP tool error carrying the wire error's name and message), scoped to the key's organization."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from jsonschema import Draft202012Validator
from mcp import Client

from accounts.identity import ApiIdentity
from accounts.models import ApiKey, Organization
from esign.models import Packet
from mcp_server.server import current_identity, server_build
from tests.esign.conftest import token_of, two_signer_packet
from tests.pdfcheck import page_text
from tests.workflows.conftest import ABOUT_YOU_1, forges
from workflows.demo import demo_workflow_create
from workflows.models import WebformSubmission

pytestmark = pytest.mark.django_db(transaction=True)

TOOL_NAMES = {
    "list_templates",
    "fill_template",
    "generate_pdf",
    "create_packet",
    "get_packet",
    "get_signing_link",
    "submit_workflow",
}


@pytest.fixture
def as_organization(organization: Organization, api_key: str) -> Iterator[None]:
    key = ApiKey.objects.get(organization=organization)
    token = current_identity.set(ApiIdentity(organization=organization, api_key=key))
    yield
    current_identity.reset(token)


def call(name: str, arguments: dict[str, Any]) -> Any:
    """One tools/call through the SDK's client connected to the server in process."""

    async def run() -> Any:
        async with Client(server_build()) as client:
            return await client.call_tool(name, arguments)

    return anyio.run(run)


def listed() -> Any:
    async def run() -> Any:
        async with Client(server_build()) as client:
            return await client.list_tools()

    return anyio.run(run)


def pdf_of(result: Any) -> bytes:
    assert result.is_error is False, result
    data = base64.b64decode(result.structured_content["base64"])
    resource = result.content[1].resource
    assert (resource.mime_type, resource.blob) == (
        "application/pdf",
        result.structured_content["base64"],
    )
    assert result.structured_content["bytes"] == len(data)
    return data


def refused(result: Any) -> dict[str, Any]:
    assert result.is_error is True, result
    return result.structured_content


def test_every_tool_is_listed_with_a_valid_json_schema(as_organization) -> None:
    tools = {tool.name: tool for tool in listed().tools}

    assert set(tools) == TOOL_NAMES
    for tool in tools.values():
        Draft202012Validator.check_schema(tool.input_schema)
        assert tool.input_schema["type"] == "object"
        assert tool.description
    fill = tools["fill_template"].input_schema
    assert fill["required"] == ["templateEid", "data"]
    assert fill["properties"]["templateEid"]["type"] == "string"
    assert "FillData" in fill["$defs"]
    assert "MarkdownBlock" in tools["generate_pdf"].input_schema["$defs"]


def test_list_templates_gives_their_fields(as_organization, demo_template) -> None:
    result = call("list_templates", {})

    (template,) = result.structured_content["templates"]
    assert template["eid"] == demo_template.eid
    assert "name" in {field["alias"] for field in template["fieldInfo"]["fields"]}
    assert refused(call("list_templates", {"isTemplate": "yes"}))["fields"] == [
        {"message": "Must be a boolean.", "property": "isTemplate"}
    ]


def test_fill_template_returns_the_pdf(as_organization, demo_template) -> None:
    pdf = pdf_of(call("fill_template", {"templateEid": demo_template.eid, "data": {"title": "Hi"}}))

    assert pdf.startswith(b"%PDF")
    missing = refused(call("fill_template", {"data": {}}))
    assert missing["name"] == "ValidationError"
    assert missing["fields"] == [{"message": "Required", "property": "templateEid"}]
    unknown = refused(call("fill_template", {"templateEid": "nope", "data": {}}))
    assert unknown["name"] == "NotFoundError"
    assert unknown["message"]


def test_generate_pdf_from_html_and_a_size_limit(as_organization, settings) -> None:
    pdf = pdf_of(call("generate_pdf", {"type": "html", "data": {"html": "<p>Agent wrote</p>"}}))

    assert "Agent wrote" in page_text(pdf)
    empty = refused(call("generate_pdf", {}))
    assert empty["fields"] == [{"message": "Required", "property": "data"}]
    settings.MCP_MAX_FILE_BYTES = 100
    too_big = refused(call("generate_pdf", {"type": "html", "data": {"html": "<p>x</p>"}}))
    assert too_big["name"] == "RequestTooLarge"
    assert "MCP_MAX_FILE_BYTES" in too_big["message"]


def test_a_packet_is_created_read_and_signed_through_a_link(as_organization, settings) -> None:
    created = call("create_packet", two_signer_packet())

    assert created.is_error is False, created
    packet = created.structured_content
    assert Packet.objects.get().eid == packet["eid"]
    assert [s["aliasId"] for s in packet["signers"]] == ["client", "provider"]
    status = call("get_packet", {"eid": packet["eid"]}).structured_content
    assert status["status"] == Packet.objects.get().status
    link = call(
        "get_signing_link", {"signerEid": packet["signers"][0]["eid"], "clientUserId": "u-1"}
    )
    url = link.structured_content["url"]
    assert url.startswith(settings.PUBLIC_BASE_URL)
    assert token_of(url)

    bad = refused(call("create_packet", {"files": [], "signers": []}))
    assert bad["name"] == "ValidationError"
    assert Packet.objects.count() == 1
    assert refused(call("get_packet", {"eid": "nope"}))["name"] == "NotFoundError"
    no_signer = refused(call("get_signing_link", {"signerEid": "nope", "clientUserId": "u"}))
    assert no_signer["name"] == "NotFoundError"


def test_submit_workflow_starts_a_submission(as_organization, organization, demo_template) -> None:
    workflow = demo_workflow_create(organization=organization, template=demo_template)
    forge = forges(workflow)["about-you"]

    result = call("submit_workflow", {"forgeEid": forge, "payload": ABOUT_YOU_1})

    assert result.is_error is False, result
    row = WebformSubmission.objects.get()
    assert result.structured_content["eid"] == row.eid
    assert result.structured_content["status"] == "in-progress"
    unknown = refused(call("submit_workflow", {"forgeEid": "nope", "payload": {}}))
    assert unknown["name"] == "NotFoundError"
    assert refused(call("submit_workflow", {"forgeEid": forge}))["fields"][0]["property"] == (
        "payload"
    )
    assert WebformSubmission.objects.count() == 1


def test_another_organizations_packet_is_not_found(
    as_organization, other_organization, other_api_key
) -> None:
    other_key = ApiKey.objects.get(organization=other_organization)
    token = current_identity.set(ApiIdentity(organization=other_organization, api_key=other_key))
    try:
        theirs = call("create_packet", two_signer_packet()).structured_content
    finally:
        current_identity.reset(token)

    assert refused(call("get_packet", {"eid": theirs["eid"]}))["name"] == "NotFoundError"


def test_create_packet_offers_every_language_the_service_ships() -> None:
    from esign.models import Language
    from mcp_server.tools import TOOLS

    schema = TOOLS["create_packet"].input_schema()
    assert schema["properties"]["language"]["enum"] == [code for code, _ in Language.choices]
    assert len(Language.choices) == 16


def test_create_packet_waits_for_the_seals_as_createetchpacket_does(
    as_organization, settings, monkeypatch
) -> None:
    """The tool goes through the same intake (esign.sending.intake): held past its bound while
    the seals are behind, it answers the RateLimitError and makes nothing."""
    import esign.sending.intake as intake

    settings.PACKET_INTAKE_MAX_SEAL_WAIT_SECONDS = 3
    settings.PACKET_INTAKE_WAITING = 0  # no place to wait: refused at once
    monkeypatch.setattr(intake, "seal_backlog_seconds", lambda: 40.0)

    answer = refused(call("create_packet", two_signer_packet()))

    assert answer["name"] == "RateLimitError"
    assert "sealing a backlog" in answer["message"]
    assert Packet.objects.count() == 0
