"""Both published clients and the signer JSON's ``role: "approver"`` / ``"viewer"`` (issue 51,
item 2; esign.packets.roles): each sends the signer JSON it builds with ``role`` unchanged
(python-anvil's EtchSigner keeps unknown keys, and needs ``email`` and ``fields``, so an approver
or a viewer is given ``fields: []``; @anvilco/anvil sends the variables as given), the packet
stores the roles, and a bad role reaches each client as the wire's ValidationError with nothing
stored."""

from __future__ import annotations

from typing import Any

import pytest

from esign.models import Packet, Signer
from tests.esign.test_roles import roles_packet

SIGNERS = """
query Packet($eid: String!) {
  etchPacket(eid: $eid) { numberRemainingSigners documentGroup { signers {
    aliasId status role routingOrder } } }
}
"""
WANTED = {
    "client": ("signer", 1),
    "manager": ("approver", 2),
    "auditor": ("viewer", 2),
    "provider": ("signer", 3),
    "cc": ("viewer", 4),
}


def variables(role: str = "viewer") -> dict[str, Any]:
    packet = roles_packet()
    for signer in packet["signers"]:
        signer.setdefault("fields", [])  # python-anvil's EtchSigner requires the key
    packet["signers"][4]["role"] = role
    return packet


def stored(eid: str) -> dict[str, tuple[str, int]]:
    return {s.alias_id: (s.role, s.routing_order) for s in Signer.objects.filter(packet__eid=eid)}


@pytest.mark.django_db(transaction=True)
def test_python_anvil_sends_approvers_and_viewers(python_anvil) -> None:
    created = python_anvil("create_etch_packet", payload=variables())

    assert "error" not in created, created
    eid = created["result"]["createEtchPacket"]["eid"]
    assert stored(eid) == WANTED
    shown = python_anvil("query", query=SIGNERS, variables={"eid": eid})
    packet = shown["result"]["etchPacket"]
    assert packet["numberRemainingSigners"] == 3  # nobody waits for the viewers
    signers = {s["aliasId"]: s for s in packet["documentGroup"]["signers"]}
    assert {a: (s["role"], s["routingOrder"]) for a, s in signers.items()} == WANTED


@pytest.mark.django_db(transaction=True)
def test_python_anvil_gets_a_bad_role_refused(python_anvil) -> None:
    report = python_anvil("create_etch_packet", payload=variables(role="spectator"))

    assert report["type"] == "TransportQueryError", report
    assert "'property': 'signers.4.role'" in report["error"]
    assert Packet.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_the_node_client_sends_approvers_and_viewers(node_anvil) -> None:
    created = node_anvil("createEtchPacket", variables=variables())

    assert created.get("errors") is None, created
    packet = created["data"]["data"]["createEtchPacket"]
    assert stored(packet["eid"]) == WANTED
    statuses = {s["aliasId"]: s["status"] for s in packet["documentGroup"]["signers"]}
    assert statuses == {
        "client": "sent",
        "manager": "created",
        "auditor": "created",
        "provider": "created",
        "cc": "created",
    }
    assert packet["numberRemainingSigners"] == 3


@pytest.mark.django_db(transaction=True)
def test_the_node_client_gets_a_bad_role_refused(node_anvil) -> None:
    packet = variables()
    packet["signers"][1]["fields"] = [{"fileId": "agreement", "fieldId": "title1"}]

    report = node_anvil("createEtchPacket", variables=packet)

    (error,) = report["errors"]
    fields = error["fields"] if "fields" in error else error["extensions"]["fields"]
    assert "signers.1.fields" in [f["property"] for f in fields]
    assert Packet.objects.count() == 0
