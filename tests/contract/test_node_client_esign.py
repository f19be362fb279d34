"""@anvilco/anvil's createEtchPacket (multipart upload), generateEtchSignUrl, getEtchPacket."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.esign.conftest import contract_pdf


@pytest.mark.django_db(transaction=True)
def test_create_and_read_a_packet(node_anvil, tmp_path: Path) -> None:
    upload = tmp_path / "upload.pdf"
    upload.write_bytes(contract_pdf(1))
    variables = {
        "name": "Node packet",
        "isTest": True,
        "signers": [
            {
                "id": "signer1",
                "name": "Ada Lovelace",
                "email": "ada@example.com",
                "signerType": "embedded",
                "fields": [{"fileId": "f1", "fieldId": "sig"}],
            }
        ],
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
