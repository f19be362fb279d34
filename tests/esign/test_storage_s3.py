"""A packet's stored files in an S3-compatible bucket (S3_BUCKET): the uploaded and prepared
documents, the drawn signature, the stamped, sealed and merged documents and the audit trail;
the zip is read back from the bucket, and nothing is written under MEDIA_ROOT."""

from __future__ import annotations

import base64
import hashlib
import io
import zipfile
from pathlib import Path

import pytest
from django.test import Client

from core import blobs
from esign.models import Packet
from esign.sealing.seal import packet_seal
from esign.sending.packets import packet_delete
from tests.esign.conftest import DRAWN
from tests.s3server import S3Storage

pytestmark = pytest.mark.django_db
# The drawn signature as stored: the PNG of the data URL the signer sent.
DRAWN_PNG = base64.b64decode(DRAWN.split(",", 1)[1])


def test_a_signed_and_sealed_packet_lives_in_the_bucket(
    s3_storage: S3Storage, complete, api_client: Client, settings
) -> None:
    created, packet = complete()
    prefix = f"packets/{packet.organization.eid}/{packet.eid}/"
    signer = packet.signers.get(alias_id="provider")
    document = packet.documents.get()

    stored = s3_storage.names()
    assert signer.signature_path in stored
    assert s3_storage.read(signer.signature_path) == DRAWN_PNG
    assert document.current_path in stored
    assert document.current_path.startswith(prefix)
    assert hashlib.sha256(s3_storage.read(document.current_path)).hexdigest() == (
        document.current_sha256
    )

    assert packet_seal(packet_id=packet.pk) == "sealed (PAdES-B-B)"
    blobs._cache.clear()  # the zip is read back from the bucket, as on another machine

    packet.refresh_from_db()
    document.refresh_from_db()
    assert {document.sealed_path, packet.audit_trail_path} <= set(s3_storage.names())
    response = api_client.get(
        created["documentGroup"]["downloadZipURL"].removeprefix(settings.PUBLIC_BASE_URL)
    )
    assert response.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert archive.read("agreement.pdf") == s3_storage.read(document.sealed_path)
    assert archive.read("audit-trail.pdf") == s3_storage.read(packet.audit_trail_path)
    assert not Path(settings.MEDIA_ROOT).exists()


def test_a_removed_packet_leaves_nothing_of_its_own_in_the_bucket(
    s3_storage: S3Storage, create_packet, django_capture_on_commit_callbacks
) -> None:
    created = create_packet()
    packet = Packet.objects.get(eid=created["eid"])
    prefix = f"packets/{packet.organization.eid}/{packet.eid}/"
    assert [key for key in s3_storage.names() if key.startswith(prefix)] != []

    with django_capture_on_commit_callbacks(execute=True):
        packet_delete(packet=packet)

    assert [key for key in s3_storage.names() if key.startswith(prefix)] == []
