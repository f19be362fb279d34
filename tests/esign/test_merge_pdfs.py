"""mergePDFs: a completed packet's documents are downloaded as one sealed PDF."""

from __future__ import annotations

import base64
import hashlib
import io
import zipfile
from typing import Any

import pytest
from django.test import Client
from pypdf import PdfReader

from esign.sealing.config import trust_roots
from esign.sealing.seal import packet_seal
from tests.esign.conftest import two_signer_packet
from tests.esign.test_seal_engine import three_pages
from tests.esign.test_seal_packets import validate, zip_url
from tests.pdfsound import assert_sound

pytestmark = pytest.mark.django_db


def with_an_annex(**overrides: Any) -> dict[str, Any]:
    """The two-signer packet's agreement (2 pages) and a 3-page annex nobody signs."""
    annex = {
        "id": "annex",
        "title": "Annex",
        "file": {
            "data": base64.b64encode(three_pages()).decode(),
            "filename": "annex.pdf",
            "mimetype": "application/pdf",
        },
        "fields": [],
    }
    return {"files": [*two_signer_packet()["files"], annex], **overrides}


@pytest.fixture
def sealed_packet(
    complete,  # noqa: F811 - the fixture imported above
) -> Any:
    """Complete a packet created with these variables, and seal it."""

    def run(**variables: Any) -> tuple[dict[str, Any], Any]:
        created, packet = complete(**variables)
        packet_seal(packet_id=packet.pk)
        packet.refresh_from_db()
        return created, packet

    return run


def download(api_client: Client, created: dict[str, Any]) -> zipfile.ZipFile:
    response = api_client.get(zip_url(created))
    assert response.status_code == 200, response.content[:300]
    return zipfile.ZipFile(io.BytesIO(response.content))


def test_merged_the_download_is_one_sealed_pdf_of_every_page(sealed_packet, api_client) -> None:
    created, packet = sealed_packet(**with_an_annex(mergePDFs=True))

    archive = download(api_client, created)

    assert archive.namelist() == ["Services agreement.pdf", "audit-trail.pdf"]
    merged = archive.read("Services agreement.pdf")
    pages = PdfReader(io.BytesIO(merged)).pages
    assert len(pages) == 2 + 3
    assert_sound(merged)
    assert "Services agreement, page 1" in pages[0].extract_text()
    assert "Ada Lovelace" in "".join(p.extract_text() for p in pages[:2])  # the typed signature
    status = validate(merged, trust_roots())
    assert (status.intact, status.valid, status.trusted) == (True, True, True)
    assert packet.merged_sha256 == hashlib.sha256(merged).hexdigest()
    # /verify knows it as a document this service sealed.
    upload = io.BytesIO(merged)
    upload.name = "merged.pdf"
    verified = api_client.post("/api/v1/verify", {"file": upload}).json()
    assert verified["sealedByUs"] is True


def test_sealing_twice_merges_once(sealed_packet) -> None:
    _, packet = sealed_packet(**with_an_annex(mergePDFs=True))
    first = packet.merged_sha256

    packet_seal(packet_id=packet.pk)
    packet.refresh_from_db()

    assert packet.merged_sha256 == first


def test_not_merged_each_document_is_its_own_pdf(sealed_packet, api_client) -> None:
    created, packet = sealed_packet(**with_an_annex())

    archive = download(api_client, created)

    assert archive.namelist() == ["agreement.pdf", "annex.pdf", "audit-trail.pdf"]
    assert packet.merged_sha256 == ""


def test_one_document_merged_is_that_document(sealed_packet, api_client) -> None:
    created, _ = sealed_packet(mergePDFs=True)

    assert download(api_client, created).namelist() == ["agreement.pdf", "audit-trail.pdf"]
