"""python-anvil's create_etch_packet, generate_etch_signing_url and download_documents."""

from __future__ import annotations

import base64
import io
import json
import urllib.request
import zipfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.esign.conftest import contract_pdf
from tests.pdfcheck import words


def payload(demo_eid: str) -> dict:
    return {
        "name": "Contract packet",
        "isTest": True,
        "signers": [
            {
                "id": "signer1",
                "name": "Ada Lovelace",
                "email": "ada@example.com",
                "signerType": "embedded",
                "fields": [{"fileId": "upload", "fieldId": "sig"}],
            }
        ],
        "files": [
            {
                "id": "upload",
                "title": "Uploaded",
                "file": {
                    "data": base64.b64encode(contract_pdf(1)).decode(),
                    "filename": "upload.pdf",
                    "mimetype": "application/pdf",
                },
                "fields": [
                    {
                        "id": "sig",
                        "type": "signature",
                        "pageNum": 0,
                        "rect": {"x": 72, "y": 400, "width": 200, "height": 40},
                    }
                ],
            },
            {"id": "demo", "castEid": demo_eid},
        ],
        "data": {"payloads": {"demo": {"data": {"email": "filled@example.com"}}}},
    }


def _post_json(url: str, token: str, body: dict) -> dict:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "X-Signing-Token": token},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - loopback
        return json.loads(response.read())


@pytest.mark.django_db(transaction=True)
def test_create_sign_and_download(python_anvil, demo_template, live_server, tmp_path: Path) -> None:
    created = python_anvil("create_etch_packet", payload=payload(demo_template.eid))
    assert "error" not in created, created
    packet = created["result"]["createEtchPacket"]
    assert packet["name"] == "Contract packet"
    signer = packet["documentGroup"]["signers"][0]
    assert signer["aliasId"] == "signer1"
    assert signer["signActionType"] == "embedded"

    url_report = python_anvil(
        "generate_etch_signing_url", signer_eid=signer["eid"], client_user_id="user-7"
    )
    assert "error" not in url_report, url_report
    url = url_report["result"]["generateEtchSignURL"]
    parts = urlsplit(url)
    token = parts.query.split("token=")[1]
    local = f"{live_server.url}{parts.path}?{parts.query}"
    with urllib.request.urlopen(local, timeout=30) as page:  # noqa: S310 - loopback
        assert page.status == 200

    done = _post_json(
        f"{live_server.url}/api/etch/sign/{signer['eid']}/complete",
        token,
        {"signature": {"typed": "Ada Lovelace"}},
    )
    assert done["event"]["documentGroupStatus"] == "completed"

    out = tmp_path / "documents.zip"
    report = python_anvil(
        "download_documents", document_group_eid=packet["documentGroup"]["eid"], out=str(out)
    )
    assert "error" not in report, report
    archive = zipfile.ZipFile(io.BytesIO(out.read_bytes()))
    assert sorted(archive.namelist()) == ["demo.pdf", "upload.pdf"]
    filled = " ".join(w.text for page in words(archive.read("demo.pdf")) for w in page)
    assert "filled@example.com" in filled
    uploaded = " ".join(w.text for page in words(archive.read("upload.pdf")) for w in page)
    assert "Ada Lovelace" in uploaded
