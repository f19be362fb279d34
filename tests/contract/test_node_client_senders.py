"""@anvilco/anvil with the senders' and signers' extensions of createEtchPacket (issue 40): the
signer JSON's keys (``verify``, ``group``, ``role``/``witnessFor``, ``attachments``,
``allowForward``) go through the client's own mutation unchanged; a packet-level one
(``expiresInDays``) through its documented ``mutation`` option, which integrators use to send
arguments its default mutation does not declare. Each comes back as GraphQL shows it; a bad value reaches the client as the
wire's ValidationError with nothing stored."""

from __future__ import annotations

from typing import Any

import pytest

from esign.models import Packet, Signer
from tests.esign.conftest import two_signer_packet
from tests.esign.test_signing_groups import group_packet

RESPONSE = """{
  eid status expiresAt
  documentGroup { signers {
    aliasId status role witnessFor group { id required }
    attachments { fieldId required acceptedTypes }
  } }
}"""

WITH_EXPIRY = (
    """mutation CreateEtchPacket($name: String, $files: [EtchFile!], $isTest: Boolean,
  $signers: [JSON!], $data: JSON, $expiresInDays: Int) {
  createEtchPacket(name: $name, files: $files, isTest: $isTest, signers: $signers, data: $data,
    expiresInDays: $expiresInDays) """
    + RESPONSE
    + "\n}"
)


def senders_packet() -> dict[str, Any]:
    """The groups' packet (a client, her witness, a group of three directors), the client
    verified by an email code and asked for a photo of her ID."""
    variables = group_packet(required=2)
    client = variables["signers"][0]
    client["verify"] = {"method": "email"}
    client["attachments"] = [
        {"id": "idPhoto", "label": "Photo of your ID", "acceptedTypes": ["jpeg", "png"]}
    ]
    return variables


@pytest.mark.django_db(transaction=True)
def test_the_signer_extensions_go_through_the_node_clients_own_mutation(node_anvil) -> None:
    created = node_anvil("createEtchPacket", variables=senders_packet(), responseQuery=RESPONSE)

    assert created.get("errors") is None, created
    packet = created["data"]["data"]["createEtchPacket"]
    signers = {s["aliasId"]: s for s in packet["documentGroup"]["signers"]}
    (photo,) = signers["client"]["attachments"]
    assert (photo["fieldId"], photo["required"], set(photo["acceptedTypes"])) == (
        "idPhoto",
        True,
        {"jpeg", "png"},
    )
    assert (signers["witness"]["role"], signers["witness"]["witnessFor"]) == ("witness", "client")
    assert signers["turing"]["group"] == {"id": "directors", "required": 2}
    stored = Signer.objects.get(packet__eid=packet["eid"], alias_id="client")
    assert stored.verify_method == "email"


@pytest.mark.django_db(transaction=True)
def test_a_packet_level_extension_goes_through_the_clients_mutation_option(node_anvil) -> None:
    created = node_anvil(
        "createEtchPacket",
        variables={**senders_packet(), "expiresInDays": 14},
        mutation=WITH_EXPIRY,
    )

    assert created.get("errors") is None, created
    packet = created["data"]["data"]["createEtchPacket"]
    assert packet["expiresAt"] is not None
    stored = Packet.objects.get(eid=packet["eid"])
    assert round((stored.expires_at - stored.created_at).total_seconds() / 86400) == 14


@pytest.mark.django_db(transaction=True)
def test_a_bad_extension_value_reaches_the_node_client_as_a_validation_error(node_anvil) -> None:
    variables = senders_packet()
    variables["signers"][0]["attachments"][0]["acceptedTypes"] = ["heic"]

    report = node_anvil("createEtchPacket", variables=variables)

    (error,) = report["errors"]
    assert error["extensions"]["code"] == "ValidationError"
    assert [f["property"] for f in error["extensions"]["fields"]] == [
        "signers.0.attachments.0.acceptedTypes.0"
    ]
    assert Packet.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_a_signers_allow_forward_goes_through_the_node_client(node_anvil) -> None:
    variables = two_signer_packet()
    variables["signers"][1].update(signerType="email", allowForward=True)

    created = node_anvil(
        "createEtchPacket",
        variables=variables,
        responseQuery="{ eid documentGroup { signers { aliasId allowForward } } }",
    )

    assert created.get("errors") is None, created
    signers = created["data"]["data"]["createEtchPacket"]["documentGroup"]["signers"]
    assert [(s["aliasId"], s["allowForward"]) for s in signers] == [
        (variables["signers"][0]["id"], False),
        (variables["signers"][1]["id"], True),
    ]
