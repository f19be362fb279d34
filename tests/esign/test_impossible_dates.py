"""Dates that look like dates but name no moment (issue 46, item 3): February 30th, month 13,
hour 25, an offset of +99:00. Django's parser raises for them (it answers None only for text not
shaped like a date), which was a 500 on every mutation that takes ``expiresAt``. Each is the
wire ValidationError naming the argument, and nothing is stored."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from mcp import Client as McpClient

from accounts.identity import ApiIdentity
from accounts.models import ApiKey, Organization
from core.moments import parse_moment
from esign.models import BulkBatch, Packet
from mcp_server.server import current_identity, server_build
from tests.core.test_no_input_is_a_500 import rows
from tests.esign.conftest import CREATE, two_signer_packet
from tests.esign.test_bulk_send import CREATE_BATCH, uploaded_shape

pytestmark = pytest.mark.django_db

IMPOSSIBLE = [
    "2030-02-30",
    "2030-02-30T10:00:00Z",
    "2030-13-01",
    "2030-13-01T00:00:00",
    "2030-01-01T25:00:00Z",
    "2030-01-01T10:00:00+99:00",
    "2030-01-01T10:00:00-24:00",
    "0000-01-01T00:00:00Z",
]
CREATE_EXPIRING = CREATE.replace(
    "$mergePDFs: Boolean)", "$mergePDFs: Boolean, $expiresAt: DateTime)"
).replace("mergePDFs: $mergePDFs)", "mergePDFs: $mergePDFs, expiresAt: $expiresAt)")
EXTEND = """mutation($eid: String!, $at: String!) {
  extendEtchPacket(eid: $eid, expiresAt: $at) { eid expiresAt } }"""


def refused_on(result: dict[str, Any], property_: str) -> None:
    assert "errors" in result, result
    error = result["errors"][0]
    assert error["extensions"]["code"] == "ValidationError", error
    assert [f["property"] for f in error["extensions"]["fields"]] == [property_], error
    assert "ISO 8601" in error["extensions"]["fields"][0]["message"]


@pytest.mark.parametrize("text", IMPOSSIBLE)
def test_the_parser_answers_none_for_a_moment_that_does_not_exist(text: str) -> None:
    assert parse_moment(text) is None


def test_the_parser_reads_real_moments_with_and_without_an_offset() -> None:
    assert parse_moment("2030-02-28T10:00:00+14:00").isoformat() == "2030-02-28T10:00:00+14:00"
    assert parse_moment("2030-02-28T10:00:00").isoformat() == "2030-02-28T10:00:00+00:00"
    assert parse_moment(20300228) is None


@pytest.mark.parametrize("text", IMPOSSIBLE)
def test_create_etch_packet(graphql, text: str) -> None:
    before = rows()
    result = graphql(CREATE_EXPIRING, two_signer_packet(expiresAt=text))
    refused_on(result, "expiresAt")
    assert rows() == before


@pytest.mark.parametrize("text", IMPOSSIBLE)
def test_extend_etch_packet(graphql, text: str) -> None:
    created = graphql(CREATE, two_signer_packet())["data"]["createEtchPacket"]
    packet = Packet.objects.get(eid=created["eid"])
    before = rows()
    result = graphql(EXTEND, {"eid": created["eid"], "at": text})
    refused_on(result, "expiresAt")
    assert rows() == before
    packet.refresh_from_db()
    assert packet.expires_at is None


@pytest.mark.parametrize("text", IMPOSSIBLE)
def test_create_etch_packet_batch(graphql, text: str) -> None:
    rows_ = [{"name": "Ada", "email": "ada@example.com"}]
    result = graphql(CREATE_BATCH, {"packet": uploaded_shape(expiresAt=text), "rows": rows_})
    assert not (result.get("data") or {}).get("createEtchPacketBatch"), result
    assert "expiresAt" in json.dumps(result["errors"]), result
    assert "Internal" not in json.dumps(result["errors"]), result
    assert BulkBatch.objects.count() == 0
    assert Packet.objects.count() == 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("text", IMPOSSIBLE[::3])
def test_mcp_create_packet(organization: Organization, api_key: str, text: str) -> None:
    key = ApiKey.objects.get(organization=organization)
    token = current_identity.set(ApiIdentity(organization=organization, api_key=key))

    async def run() -> Any:
        async with McpClient(server_build()) as client:
            return await client.call_tool("create_packet", two_signer_packet(expiresAt=text))

    try:
        result = anyio.run(run)
    finally:
        current_identity.reset(token)
    assert result.is_error is True, result
    wire = result.structured_content
    assert wire["name"] == "ValidationError", wire
    assert [f["property"] for f in wire["fields"]] == ["expiresAt"]
    assert Packet.objects.count() == 0
