"""python-anvil with an attachment field (an extension of the signer JSON, which the client
passes through): create_etch_packet keeps it, a bad one is the wire's ValidationError, the
signer attaches a photo on the signing page's endpoint, and download_documents' zip holds it
beside the sealed audit trail that lists its SHA-256."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests
from PIL import Image

from esign.models import Packet
from tests.esign.conftest import embedded_ada, uploaded_file
from tests.pdfcheck import words

ATTACHMENT = {
    "type": "attachment",
    "id": "idPhoto",
    "label": "Photo of your ID",
    "acceptedTypes": ["jpeg", "png"],
}


def payload(attachment: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": "Attachment packet",
        "signers": [embedded_ada("upload", attachments=[attachment])],
        "files": [uploaded_file()],
    }


def photo() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (800, 600), (30, 90, 160)).save(out, "JPEG", quality=80)
    return out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_a_bad_attachment_field_is_a_validation_error(python_anvil: Any) -> None:
    created = python_anvil(
        "create_etch_packet", payload=payload(ATTACHMENT | {"acceptedTypes": ["heic"]})
    )
    assert "error" in created, created
    assert "signers.0.attachments.0.acceptedTypes.0" in created["error"]
    assert not Packet.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_attach_sign_and_download(
    python_anvil: Any, live_server: Any, tmp_path: Path, settings: Any
) -> None:
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    settings.SEAL_DEV_DIR = tmp_path / "seal-dev"
    created = python_anvil("create_etch_packet", payload=payload(ATTACHMENT))
    assert "error" not in created, created
    packet = created["result"]["createEtchPacket"]
    signer_eid = packet["documentGroup"]["signers"][0]["eid"]
    url = python_anvil("generate_etch_signing_url", signer_eid=signer_eid, client_user_id="u1")
    token = urlsplit(url["result"]["generateEtchSignURL"]).query.split("token=")[1]
    base = f"{live_server.url}/api/etch/sign/{signer_eid}"
    headers = {"X-Signing-Token": token}

    refused = requests.post(
        f"{base}/complete", json={"signature": {"typed": "Ada"}}, headers=headers, timeout=30
    )
    assert refused.status_code == 400
    assert refused.json()["fields"][0]["property"] == "attachments.idPhoto"

    image = photo()
    attached = requests.post(
        f"{base}/attachments",
        data={"fieldId": "idPhoto"},
        files={"file": ("IMG_1234.jpg", image, "image/jpeg")},
        headers=headers,
        timeout=30,
    )
    assert attached.status_code == 200, attached.text
    done = requests.post(
        f"{base}/complete", json={"signature": {"typed": "Ada"}}, headers=headers, timeout=30
    )
    assert done.json()["event"]["documentGroupStatus"] == "completed"

    query = """query($eid: String!) { etchPacket(eid: $eid) {
      documentGroup { signers { attachments { fieldId filename sha256 size } } } } }"""
    shown = python_anvil("query", query=query, variables={"eid": packet["eid"]})
    [attachment] = shown["result"]["etchPacket"]["documentGroup"]["signers"][0]["attachments"]
    sha = hashlib.sha256(image).hexdigest()
    assert attachment == {
        "fieldId": "idPhoto",
        "filename": "IMG_1234.jpg",
        "sha256": sha,
        "size": float(len(image)),
    }

    out = tmp_path / "documents.zip"
    report = python_anvil(
        "download_documents", document_group_eid=packet["documentGroup"]["eid"], out=str(out)
    )
    assert "error" not in report, report
    archive = zipfile.ZipFile(io.BytesIO(out.read_bytes()))
    entry = "attachments/Ada Lovelace - Photo of your ID - IMG_1234.jpg"
    assert sorted(archive.namelist()) == sorted(["upload.pdf", entry, "audit-trail.pdf"])
    assert archive.read(entry) == image
    trail = " ".join(w.text for page in words(archive.read("audit-trail.pdf")) for w in page)
    assert sha in trail
