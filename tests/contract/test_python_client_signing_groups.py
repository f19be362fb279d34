"""python-anvil's create_etch_packet with the signer JSON's extensions ``group`` and ``role`` /
``witnessFor`` (esign.packets.groups): the client passes them through unchanged, the packet
comes back with its signers, and a bad group reaches the client as the wire's ValidationError
with nothing stored."""

from __future__ import annotations

import pytest

from esign.models import Packet, Signer
from tests.esign.test_signing_groups import group_packet

SIGNERS = """
query Packet($eid: String!) {
  etchPacket(eid: $eid) { documentGroup { signers {
    aliasId status role witnessFor group { id required } } } }
}
"""


@pytest.mark.django_db(transaction=True)
def test_a_packet_with_a_group_and_a_witness_through_python_anvil(python_anvil) -> None:
    created = python_anvil("create_etch_packet", payload=group_packet(required=2))

    assert "error" not in created, created
    packet = created["result"]["createEtchPacket"]
    aliases = [s["aliasId"] for s in packet["documentGroup"]["signers"]]
    assert aliases == ["client", "witness", "babbage", "somerville", "turing"]
    stored = {s.alias_id: s for s in Signer.objects.filter(packet__eid=packet["eid"])}
    assert (stored["turing"].signing_group, stored["turing"].signing_group_required) == (
        "directors",
        2,
    )
    assert (stored["witness"].role, stored["witness"].witness_for) == ("witness", "client")

    shown = python_anvil("query", query=SIGNERS, variables={"eid": packet["eid"]})
    assert "error" not in shown, shown
    signers = {s["aliasId"]: s for s in shown["result"]["etchPacket"]["documentGroup"]["signers"]}
    assert signers["somerville"]["group"] == {"id": "directors", "required": 2}
    assert (signers["witness"]["role"], signers["witness"]["witnessFor"]) == ("witness", "client")
    assert signers["client"]["group"] is None


@pytest.mark.django_db(transaction=True)
def test_a_bad_group_reaches_python_anvil_as_a_validation_error(python_anvil) -> None:
    variables = group_packet(required=4)  # more than the group's three members

    report = python_anvil("create_etch_packet", payload=variables)

    assert report["type"] == "TransportQueryError", report
    assert "'code': 'ValidationError'" in report["error"]
    assert "'property': 'signers.2.group.required'" in report["error"]
    assert Packet.objects.count() == 0


REASSIGN = """mutation($s: String!, $name: String, $email: String) {
  reassignEtchSigner(signerEid: $s, name: $name, email: $email) {
    aliasId role witnessFor group { id required } }
}"""


@pytest.mark.django_db(transaction=True)
def test_a_successor_keeps_the_group_and_the_witness_follows_through_python_anvil(
    python_anvil,
) -> None:
    created = python_anvil("create_etch_packet", payload=group_packet(required=2))
    assert "error" not in created, created
    eid = created["result"]["createEtchPacket"]["eid"]
    stored = {s.alias_id: s for s in Signer.objects.filter(packet__eid=eid)}

    # The sender reassigns a director, then the signer the witness witnesses.
    member = python_anvil(
        "query",
        query=REASSIGN,
        variables={"s": stored["turing"].eid, "name": "Ada Byron", "email": "byron@example.com"},
    )
    signer_ = python_anvil(
        "query", query=REASSIGN, variables={"s": stored["client"].eid, "name": "Mary Shelley"}
    )

    assert "error" not in member, member
    assert member["result"]["reassignEtchSigner"] == {
        "aliasId": "turing-2",
        "role": "signer",
        "witnessFor": None,
        "group": {"id": "directors", "required": 2},
    }
    assert "error" not in signer_, signer_
    assert signer_["result"]["reassignEtchSigner"]["aliasId"] == "client-2"
    shown = python_anvil("query", query=SIGNERS, variables={"eid": eid})
    signers = {s["aliasId"]: s for s in shown["result"]["etchPacket"]["documentGroup"]["signers"]}
    assert (signers["witness"]["role"], signers["witness"]["witnessFor"]) == ("witness", "client-2")
    assert signers["turing-2"]["group"] == {"id": "directors", "required": 2}
