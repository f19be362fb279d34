"""Both published clients and the signer JSON's ``signatureLevel`` (issue 51; esign.packets.
signature_levels): each sends the signer JSON it builds with the key unchanged (python-anvil's
EtchSigner keeps unknown keys; @anvilco/anvil sends the variables as given), the packet keeps
the level, and a bad one reaches each client as the wire's ValidationError with nothing
stored."""

from __future__ import annotations

import pytest

from esign.models import Packet
from esign.signature_models import SignerLevel
from tests.esign.test_signature_levels import with_levels


def levels(eid: str) -> dict[str, str]:
    rows = SignerLevel.objects.filter(signer__packet__eid=eid)
    return dict(rows.values_list("signer__alias_id", "level"))


@pytest.mark.django_db(transaction=True)
def test_python_anvil_sends_the_signature_level(python_anvil) -> None:
    created = python_anvil("create_etch_packet", payload=with_levels("advanced", "simple"))

    assert "error" not in created, created
    assert levels(created["result"]["createEtchPacket"]["eid"]) == {"client": "advanced"}


@pytest.mark.django_db(transaction=True)
def test_python_anvil_gets_a_bad_level_refused(python_anvil) -> None:
    report = python_anvil("create_etch_packet", payload=with_levels(None, "platinum"))

    assert report["type"] == "TransportQueryError", report
    assert "'property': 'signers.1.signatureLevel'" in report["error"]
    assert Packet.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_the_node_client_sends_the_signature_level(node_anvil) -> None:
    created = node_anvil("createEtchPacket", variables=with_levels("simple", "advanced"))

    assert created.get("errors") is None, created
    assert levels(created["data"]["data"]["createEtchPacket"]["eid"]) == {"provider": "advanced"}


@pytest.mark.django_db(transaction=True)
def test_the_node_client_gets_a_bad_level_refused(node_anvil) -> None:
    report = node_anvil("createEtchPacket", variables=with_levels("advanced!", None))

    (error,) = report["errors"]
    fields = error["fields"] if "fields" in error else error["extensions"]["fields"]
    assert "signers.0.signatureLevel" in [f["property"] for f in fields]
    assert Packet.objects.count() == 0
