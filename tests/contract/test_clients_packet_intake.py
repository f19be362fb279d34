"""Both published clients through a createEtchPacket held while the seals are behind
(esign.sending.intake): the call takes longer and returns the packet, made once; held too long,
the refusal reaches the integrator as the clients' own error, at once, never as a hang. The
backlog is the intake's reading of the task table, made to say 4 s behind for the first reading
and caught up at the next (or behind for good); tests/esign/test_packet_intake.py reads real
queued seals."""

from __future__ import annotations

from typing import Any

import pytest

import esign.sending.intake as intake
from esign.models import Packet
from tests.esign.conftest import ada_terms_packet

VARIABLES = {**ada_terms_packet("Waited for"), "isTest": True}


@pytest.fixture
def behind_once(monkeypatch: pytest.MonkeyPatch, settings: Any) -> list[float]:
    """The seals are 4 s behind (1 s over the limit) at the first reading, then caught up."""
    settings.PACKET_INTAKE_MAX_SEAL_WAIT_SECONDS = 3
    readings: list[float] = []

    def age() -> float:
        readings.append(4.0 if not readings else 0.0)
        return readings[-1]

    monkeypatch.setattr(intake, "seal_backlog_seconds", age)
    return readings


@pytest.mark.django_db(transaction=True)
def test_python_anvil_gets_a_held_packet(python_anvil, behind_once) -> None:
    created = python_anvil("create_etch_packet", payload=VARIABLES)

    assert "error" not in created, created
    assert created["result"]["createEtchPacket"]["name"] == "Waited for"
    assert behind_once == [4.0, 0.0]  # held for one pause, then made
    assert Packet.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_node_client_gets_a_held_packet(node_anvil, behind_once) -> None:
    created = node_anvil("createEtchPacket", variables=VARIABLES)

    assert created.get("errors") is None, created
    assert created["statusCode"] == 200
    assert created["data"]["data"]["createEtchPacket"]["name"] == "Waited for"
    assert behind_once == [4.0, 0.0]
    assert Packet.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_python_anvil_is_told_when_held_too_long(
    python_anvil, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.PACKET_INTAKE_MAX_SEAL_WAIT_SECONDS = 3
    settings.PACKET_INTAKE_MAX_WAIT_SECONDS = 0.5
    monkeypatch.setattr(intake, "seal_backlog_seconds", lambda: 40.0)

    refused = python_anvil("create_etch_packet", payload=VARIABLES)

    assert "sealing a backlog" in refused["error"], refused
    assert Packet.objects.count() == 0
