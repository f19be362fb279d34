"""Both published clients and the signer JSON's ``initialsOnEveryPage`` / ``initialsPosition``
(issue 51, item 3; esign.packets.initials): each passes the keys through unchanged in the signer
JSON it builds (python-anvil's EtchSigner keeps unknown keys), the signer is given an initials
field on every page, and a bad value reaches each client as the wire's ValidationError with
nothing stored."""

from __future__ import annotations

import pytest

from esign.models import Packet
from tests.esign.test_initials_every_page import CORNER, POSITION, initialled, initials_fields


@pytest.mark.django_db(transaction=True)
def test_python_anvil_sends_initials_on_every_page(python_anvil) -> None:
    created = python_anvil("create_etch_packet", payload=initialled(initialsOnEveryPage=True))

    assert "error" not in created, created
    fields = initials_fields("provider")
    assert [(f["page"], f["rect"]) for f in fields] == [(page, CORNER) for page in range(3)]


@pytest.mark.django_db(transaction=True)
def test_python_anvil_gets_bad_initials_refused(python_anvil) -> None:
    report = python_anvil("create_etch_packet", payload=initialled(initialsOnEveryPage=["nothing"]))

    assert report["type"] == "TransportQueryError", report
    assert "'property': 'signers.1.initialsOnEveryPage.0'" in report["error"]
    assert Packet.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_the_node_client_sends_initials_at_a_position(node_anvil) -> None:
    variables = initialled(initialsOnEveryPage=["agreement"], initialsPosition=POSITION)

    created = node_anvil("createEtchPacket", variables=variables)

    assert created.get("errors") is None, created
    fields = initials_fields("provider")
    assert [(f["page"], f["rect"]) for f in fields] == [(page, POSITION) for page in range(3)]


@pytest.mark.django_db(transaction=True)
def test_the_node_client_gets_bad_initials_refused(node_anvil) -> None:
    variables = initialled(initialsOnEveryPage=True, initialsPosition={"x": "left"})

    report = node_anvil("createEtchPacket", variables=variables)

    (error,) = report["errors"]
    fields = error["fields"] if "fields" in error else error["extensions"]["fields"]
    assert "signers.1.initialsPosition" in [f["property"] for f in fields]
    assert Packet.objects.count() == 0
