"""generateEtchSignURL (and MCP's get_signing_link, the same service) refuses a signer who will
not sign any more (issue 49, item 13): a group member skipped because the group's step was
done, a signer who has signed. The wire ConflictError names why; no link is made."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.identity import ApiIdentity
from accounts.models import ApiKey
from esign.models import AuditEvent, SignerToken
from mcp_server.tools import ToolError, tool_run
from tests.esign.conftest import SIGN_URL
from tests.esign.test_signing_groups import created, group_packet, sign_up_to_the_group, signed

pytestmark = pytest.mark.django_db


def refused(graphql: Any, signer_eid: str) -> str:
    tokens = SignerToken.objects.count()
    links = AuditEvent.objects.filter(action="signingUrlCreated").count()
    result = graphql(SIGN_URL, {"signerEid": signer_eid, "clientUserId": "u"})
    assert result["data"]["generateEtchSignURL"] is None, result
    error = result["errors"][0]
    assert error["extensions"]["code"] == "ConflictError", error
    assert SignerToken.objects.count() == tokens
    assert AuditEvent.objects.filter(action="signingUrlCreated").count() == links
    return error["message"]


def embedded_group_packet() -> dict[str, Any]:
    variables = group_packet()
    for person in variables["signers"]:
        person["signerType"] = "embedded"
    return variables


def test_a_skipped_member_and_a_member_who_signed_get_no_link(graphql, organization) -> None:
    packet = created(graphql, embedded_group_packet())
    sign_up_to_the_group(packet["eid"])
    assert signed("somerville").status_code == 200
    by_alias = {s["aliasId"]: s["eid"] for s in packet["documentGroup"]["signers"]}

    assert "skipped" in refused(graphql, by_alias["babbage"])
    assert "already signed" in refused(graphql, by_alias["somerville"])
    assert "already signed" in refused(graphql, by_alias["client"])

    # MCP's tool is the same service: the same refusal.
    key = ApiKey.objects.get(organization=organization)
    answer = tool_run(
        ApiIdentity(organization=organization, api_key=key),
        "get_signing_link",
        {"signerEid": by_alias["turing"], "clientUserId": "u"},
    )
    assert isinstance(answer, ToolError), answer
    assert answer.wire["name"] == "ConflictError"
    assert "skipped" in answer.wire["message"]


def test_a_member_whose_turn_it_is_still_gets_a_link(graphql) -> None:
    packet = created(graphql, embedded_group_packet())
    sign_up_to_the_group(packet["eid"])
    babbage = next(s for s in packet["documentGroup"]["signers"] if s["aliasId"] == "babbage")

    result = graphql(SIGN_URL, {"signerEid": babbage["eid"], "clientUserId": "u"})

    assert "/api/etch/verify/" in result["data"]["generateEtchSignURL"], result
