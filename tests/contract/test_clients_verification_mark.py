"""Both published clients and createEtchPacket(verificationStamp: Boolean) (esign.sealing.marks):
neither has it among its own keywords, so each sends the mutation that declares it (python-anvil
through its ``query`` call, @anvilco/anvil through createEtchPacket's ``mutation`` option, as
docs/esign.md says); the packet stores it, and a value of another type is refused with nothing
stored."""

from __future__ import annotations

from typing import Any

import pytest

from esign.models import Packet
from tests.contract.test_python_client_forward import payload
from tests.esign.conftest import two_signer_packet

MUTATION = """mutation CreateEtchPacket($name: String, $files: [EtchFile!], $isTest: Boolean,
  $signers: [JSON!], $data: JSON, $verificationStamp: Boolean) {
  createEtchPacket(name: $name, files: $files, isTest: $isTest, signers: $signers, data: $data,
    verificationStamp: $verificationStamp) { eid verificationStamp }
}"""


def python_variables(**more: Any) -> dict[str, Any]:
    return {**{k: payload()[k] for k in ("name", "files", "signers", "isTest")}, **more}


@pytest.mark.django_db(transaction=True)
def test_python_anvil_sends_verification_stamp(python_anvil, live_server, settings) -> None:
    settings.PUBLIC_BASE_URL = live_server.url

    marked = python_anvil(
        "query", query=MUTATION, variables=python_variables(verificationStamp=True)
    )
    plain = python_anvil("query", query=MUTATION, variables=python_variables())

    assert "error" not in marked, marked
    packet = marked["result"]["createEtchPacket"]
    assert packet["verificationStamp"] is True
    assert Packet.objects.get(eid=packet["eid"]).verification_stamp is True
    assert plain["result"]["createEtchPacket"]["verificationStamp"] is False


@pytest.mark.django_db(transaction=True)
def test_python_anvil_gets_a_bad_verification_stamp_refused(
    python_anvil, live_server, settings
) -> None:
    settings.PUBLIC_BASE_URL = live_server.url

    wrong = python_anvil(
        "query", query=MUTATION, variables=python_variables(verificationStamp="yes")
    )

    assert "$verificationStamp" in wrong["error"], wrong
    assert Packet.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_the_node_client_sends_verification_stamp(node_anvil) -> None:
    created = node_anvil(
        "createEtchPacket",
        variables={**two_signer_packet(), "verificationStamp": True},
        mutation=MUTATION,
    )

    assert created.get("errors") is None, created
    packet = created["data"]["data"]["createEtchPacket"]
    assert packet["verificationStamp"] is True
    assert Packet.objects.get(eid=packet["eid"]).verification_stamp is True


@pytest.mark.django_db(transaction=True)
def test_the_node_client_gets_a_bad_verification_stamp_refused(node_anvil) -> None:
    report = node_anvil(
        "createEtchPacket",
        variables={**two_signer_packet(), "verificationStamp": 1},
        mutation=MUTATION,
    )

    (error,) = report["errors"]
    assert "$verificationStamp" in error["message"]
    assert Packet.objects.count() == 0
