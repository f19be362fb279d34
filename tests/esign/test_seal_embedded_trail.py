"""SEAL_EMBED_AUDIT_TRAIL: a sealed document carries the packet's certificate of completion as
an associated file, inside the seal's revision, and the seal still validates in pyHanko."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.ades.report import AdESPassed
from pyhanko.sign.validation.status import SignatureCoverageLevel

from esign.sealing.config import trust_roots
from esign.sealing.seal import packet_seal
from tests.esign.lifetimes_pki import LifetimesPki
from tests.esign.test_seal_engine import lta_validation
from tests.esign.test_seal_packets import validate, zip_url
from tests.pdfcheck import words

pytestmark = pytest.mark.django_db


def sealed_files(api_client: Client, created: dict[str, Any]) -> dict[str, bytes]:
    archive = zipfile.ZipFile(io.BytesIO(api_client.get(zip_url(created)).content))
    return {name: archive.read(name) for name in archive.namelist()}


def associated_files(pdf: bytes) -> list[tuple[str, str, bytes]]:
    """(name, relationship, data) of each file associated with the whole document (/AF)."""
    root = PdfFileReader(io.BytesIO(pdf)).root
    if "/AF" not in root:
        return []
    return [
        (
            str(spec["/UF"]),
            str(spec["/AFRelationship"]),
            spec["/EF"]["/F"].get_object().data,
        )
        for spec in (ref.get_object() for ref in root["/AF"])
    ]


def text_of(pdf: bytes) -> str:
    return " ".join(w.text for page in words(pdf) for w in page)


def test_a_sealed_document_carries_its_audit_trail_and_still_validates(
    complete, api_client: Client, settings: Any
) -> None:
    settings.SEAL_EMBED_AUDIT_TRAIL = True
    created, packet = complete()
    assert packet_seal(packet_id=packet.pk) == "sealed (PAdES-B-B)"

    files = sealed_files(api_client, created)

    ((name, relationship, trail),) = associated_files(files["agreement.pdf"])
    assert (name, relationship) == ("audit-trail.pdf", "/Supplement")
    assert trail.startswith(b"%PDF")
    text = text_of(trail)
    assert "Certificate of completion" in text
    assert "Services agreement" in text
    assert "Ada Lovelace" in text
    assert packet.documents.get().prepared_sha256[:16] in text.replace(" ", "")
    status = validate(files["agreement.pdf"], trust_roots())
    assert (status.intact, status.valid, status.trusted) == (True, True, True)
    assert status.coverage == SignatureCoverageLevel.ENTIRE_FILE
    # The zip's own audit trail is sealed on its own, and carries nothing inside it.
    assert associated_files(files["audit-trail.pdf"]) == []


def test_the_embedded_trail_keeps_a_b_lta_seal_valid_in_the_long_term(
    complete, api_client: Client, settings: Any, tmp_path: Path
) -> None:
    pki = LifetimesPki()
    try:
        pki.use_for_seals(settings, tmp_path / "seal")
        settings.SEAL_EMBED_AUDIT_TRAIL = True
        created, packet = complete()
        assert packet_seal(packet_id=packet.pk) == "sealed (PAdES-B-LTA)"

        document = sealed_files(api_client, created)["agreement.pdf"]
    finally:
        pki.close()

    assert [n for n, _, _ in associated_files(document)] == ["audit-trail.pdf"]
    assert lta_validation(document, [pki.root]).ades_subindic == AdESPassed.OK


def test_without_the_setting_nothing_is_embedded(complete, api_client: Client) -> None:
    created, packet = complete()
    packet_seal(packet_id=packet.pk)

    assert associated_files(sealed_files(api_client, created)["agreement.pdf"]) == []
