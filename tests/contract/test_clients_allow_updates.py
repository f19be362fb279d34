"""Both published clients and allowUpdates (issue 51, item 4; esign.packets.updates). The hosted
API's ``allowUpdates`` is createEtchPacket's Boolean: @anvilco/anvil's own mutation declares it
(``$allowUpdates: Boolean``) and sends it from ``variables``; python-anvil's create_etch_packet
does not declare it, so a python-anvil sender gives it in the signer JSON (``"allowUpdates":
true``, kept as every unknown key of a signer). Both send a field's ``value`` in the file's fields
as given. A bad value reaches each client as the wire's ValidationError with nothing stored."""

from __future__ import annotations

import pytest

from esign.models import Packet, PacketDocument, Signer
from tests.esign.test_allow_updates import fee_packet


def fee_field(eid: str) -> dict:
    document = PacketDocument.objects.get(packet__eid=eid)
    return next(f for f in document.fields if f["id"] == "fee")


@pytest.mark.django_db(transaction=True)
def test_python_anvil_sends_a_prefilled_value_and_the_signers_allow_updates(python_anvil) -> None:
    variables = fee_packet()
    variables["signers"][1]["allowUpdates"] = True

    created = python_anvil("create_etch_packet", payload=variables)

    assert "error" not in created, created
    eid = created["result"]["createEtchPacket"]["eid"]
    assert fee_field(eid)["value"] == "1200 EUR"
    assert Signer.objects.get(alias_id="provider").allow_updates is True
    assert Signer.objects.get(alias_id="client").allow_updates is False


@pytest.mark.django_db(transaction=True)
def test_python_anvil_gets_a_bad_value_refused(python_anvil) -> None:
    report = python_anvil("create_etch_packet", payload=fee_packet(value=["1200"]))

    assert report["type"] == "TransportQueryError", report
    assert "'property': 'files.0.fields.5.value'" in report["error"]
    assert Packet.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_the_node_client_sends_the_packets_allow_updates(node_anvil) -> None:
    created = node_anvil("createEtchPacket", variables=fee_packet(allowUpdates=True))

    assert created.get("errors") is None, created
    packet = created["data"]["data"]["createEtchPacket"]
    assert packet["allowUpdates"] is True
    assert fee_field(packet["eid"])["value"] == "1200 EUR"
    assert Signer.objects.get(alias_id="provider").allow_updates is True


@pytest.mark.django_db(transaction=True)
def test_the_node_client_gets_a_bad_allow_updates_refused(node_anvil) -> None:
    report = node_anvil("createEtchPacket", variables=fee_packet(allowUpdates="yes"))

    (error,) = report["errors"]
    assert "$allowUpdates" in error["message"]
    assert Packet.objects.count() == 0
