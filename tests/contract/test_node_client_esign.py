"""@anvilco/anvil's createEtchPacket (multipart upload), generateEtchSignUrl, getEtchPacket."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.esign.conftest import ada_terms_packet, contract_pdf, embedded_ada


@pytest.mark.django_db(transaction=True)
def test_create_and_read_a_packet(node_anvil, tmp_path: Path) -> None:
    upload = tmp_path / "upload.pdf"
    upload.write_bytes(contract_pdf(1))
    variables = {
        "name": "Node packet",
        "isTest": True,
        "signers": [embedded_ada("f1")],
        "files": [
            {
                "id": "f1",
                "title": "Upload",
                "file": None,
                "fields": [
                    {
                        "id": "sig",
                        "type": "signature",
                        "pageNum": 0,
                        "rect": {"x": 72, "y": 400, "width": 200, "height": 40},
                    }
                ],
            }
        ],
    }

    created = node_anvil("createEtchPacket", variables=variables, uploads={"0": str(upload)})
    assert created.get("errors") is None, created
    packet = created["data"]["data"]["createEtchPacket"]
    assert packet["allowUpdates"] is False
    signer = packet["documentGroup"]["signers"][0]

    url = node_anvil(
        "generateEtchSignUrl", variables={"signerEid": signer["eid"], "clientUserId": "u1"}
    )
    assert url.get("errors") is None, url
    assert "/api/etch/verify/" in url["data"]["url"]

    read = node_anvil("getEtchPacket", variables={"eid": packet["eid"]})
    assert read.get("errors") is None, read
    assert read["data"]["data"]["etchPacket"]["numberRemainingSigners"] == 1


def _embedded_packet(node_anvil, name: str) -> dict:
    """A one-signer packet of a generated document, made through the Node client."""
    variables = ada_terms_packet(name)
    created = node_anvil("createEtchPacket", variables=variables)
    assert created.get("errors") is None, created
    return created["data"]["data"]["createEtchPacket"]


VOID = "mutation($eid: String!) { voidDocumentGroup(eid: $eid) { eid status } }"
REMOVE = "mutation($eid: String!) { removeEtchPacket(eid: $eid) }"


@pytest.mark.django_db(transaction=True)
def test_void_a_document_group_once(node_anvil) -> None:
    packet = _embedded_packet(node_anvil, "Node void")
    group = packet["documentGroup"]["eid"]

    voided = node_anvil("requestGraphQL", query=VOID, variables={"eid": group})
    assert voided.get("errors") is None, voided
    assert voided["data"]["data"]["voidDocumentGroup"] == {"eid": packet["eid"], "status": "voided"}
    read = node_anvil("getEtchPacket", variables={"eid": packet["eid"]})
    assert read["data"]["data"]["etchPacket"]["documentGroup"]["status"] == "voided"

    again = node_anvil("requestGraphQL", query=VOID, variables={"eid": group})
    assert again["errors"][0]["extensions"]["code"] == "ConflictError"


@pytest.mark.django_db(transaction=True)
def test_remove_a_packet(node_anvil) -> None:
    packet = _embedded_packet(node_anvil, "Node remove")

    removed = node_anvil("requestGraphQL", query=REMOVE, variables={"eid": packet["eid"]})
    assert removed.get("errors") is None, removed
    assert removed["data"]["data"]["removeEtchPacket"] is True
    gone = node_anvil("getEtchPacket", variables={"eid": packet["eid"]})
    assert gone["errors"][0]["extensions"]["code"] == "NotFoundError", gone
