"""python-anvil's create_etch_packet, generate_etch_signing_url and download_documents."""

from __future__ import annotations

import io
import json
import urllib.request
import zipfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko_certvalidator import ValidationContext

from esign.sealing.config import trust_roots
from tests.esign.conftest import embedded_ada, uploaded_file
from tests.esign.test_template_signer_fields import (
    aliased_signature_sample,
    packet_variables,
)
from tests.pdfcheck import words


def payload(demo_eid: str) -> dict:
    return {
        "name": "Contract packet",
        "isTest": True,
        "signers": [embedded_ada("upload")],
        "files": [
            uploaded_file(),
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
def test_create_sign_and_download(
    python_anvil, demo_template, live_server, tmp_path: Path, settings
) -> None:
    # The documents are sealed by a task once the last signer finishes; here it runs right after
    # that request's commit, so the download that follows finds them sealed.
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    settings.SEAL_DEV_DIR = tmp_path / "seal-dev"
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
    assert sorted(archive.namelist()) == ["audit-trail.pdf", "demo.pdf", "upload.pdf"]
    roots = trust_roots()
    for name in archive.namelist():  # each sealed with the service's certificate
        seal = PdfFileReader(io.BytesIO(archive.read(name))).embedded_regular_signatures[0]
        status = validate_pdf_signature(seal, ValidationContext(trust_roots=roots))
        assert (status.intact, status.trusted, status.coverage.name) == (True, True, "ENTIRE_FILE")
    assert "Contract packet" in " ".join(
        w.text for page in words(archive.read("audit-trail.pdf")) for w in page
    )
    filled = " ".join(w.text for page in words(archive.read("demo.pdf")) for w in page)
    assert "filled@example.com" in filled
    uploaded = " ".join(w.text for page in words(archive.read("upload.pdf")) for w in page)
    assert "Ada Lovelace" in uploaded


@pytest.mark.django_db(transaction=True)
def test_a_template_signer_field_is_named_by_its_alias(python_anvil, organization) -> None:
    """create_etch_packet with {fileId, fieldId} where fieldId is the template field's Field
    Alias (what cast shows), as the spec keys fields."""
    template, _ = aliased_signature_sample(organization, "signatureOfUsPerson")

    variables = packet_variables(template, ["signatureOfUsPerson"])
    created = python_anvil("create_etch_packet", payload=variables)

    assert "error" not in created, created
    [signer] = created["result"]["createEtchPacket"]["documentGroup"]["signers"]
    assert signer["aliasId"] == "employee"
