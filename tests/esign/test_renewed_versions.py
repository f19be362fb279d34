"""A renewed sealed file (esign.sealing.renewal stores it as a new SealedFileVersion) is the same
sealed file to this service: ``POST /api/v1/verify`` (and /verify, the same lookup) recognises its hash, and the
signer's download of a document serves its newest version, as the zip does.

A renewal proper needs a TSA (tests/esign/test_seal_lifetime.py does one end to end); here a
version 2 with other bytes stands for it, since only which version is looked up and served is
in question.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from django.test import Client

from core.blobs import blob_read, blob_save
from esign.links.tokens import signer_token_issue
from esign.models import Packet, PacketDocument, SealedFileVersion, Signer
from esign.sealing.seal import packet_seal
from tests.esign.test_seal_lifetime import api_verify

pytestmark = pytest.mark.django_db


def _renew(packet: Packet, slot: str) -> bytes:
    """Store a version 2 of ``slot``: its version 1 grown by a few bytes at the end."""
    first = SealedFileVersion.objects.get(packet=packet, slot=slot, version=1)
    data = blob_read(first.path, first.sha256) + b"\n% a renewal's incremental update\n"
    path, sha = blob_save(prefix=f"packets/{packet.eid}", data=data)
    SealedFileVersion.objects.create(packet=packet, slot=slot, version=2, path=path, sha256=sha)
    return data


def _verify(client: Client, data: bytes) -> dict[str, Any]:
    return api_verify(client, data, "renewed.pdf")


def test_the_api_knows_a_renewed_document_and_audit_trail(
    complete: Any, api_client: Client
) -> None:
    _, packet = complete()
    packet_seal(packet_id=packet.pk)
    document = PacketDocument.objects.get(packet=packet)
    renewed = _renew(packet, SealedFileVersion.document_slot(document.pk))
    trail = _renew(packet, SealedFileVersion.AUDIT_TRAIL)

    body = _verify(api_client, renewed)
    assert (body["knownAs"], body["sealedByUs"]) == ("sealed_document", True)
    assert [(s["name"], s["source"]) for s in body["signers"]] == [
        ("Ada Lovelace", "audit_trail"),
        ("Charles Babbage", "audit_trail"),
    ]
    body = _verify(api_client, trail)
    assert (body["knownAs"], body["sealedByUs"]) == ("sealed_audit_trail", True)

    # A renewed version of a packet that is no longer sealed (resealing) is not vouched for.
    Packet.objects.filter(pk=packet.pk).update(seal_status=Packet.SealStatus.PENDING)
    body = _verify(api_client, renewed)
    assert (body["knownAs"], body["sealedByUs"]) == (None, False)


def test_the_signers_download_serves_the_newest_version(complete: Any, sign_url: Any) -> None:
    _, packet = complete()
    signer = Signer.objects.get(packet=packet, alias_id="client")
    # A link the signer holds from before (generateEtchSignURL makes none after they signed).
    token = signer_token_issue(signer=signer)
    packet_seal(packet_id=packet.pk)
    document = PacketDocument.objects.get(packet=packet)
    url = f"/api/etch/sign/{signer.eid}/documents/agreement.pdf?token={token}&download=1"
    assert hashlib.sha256(Client().get(url).content).hexdigest() == document.sealed_sha256

    renewed = _renew(packet, SealedFileVersion.document_slot(document.pk))

    assert Client().get(url).content == renewed
