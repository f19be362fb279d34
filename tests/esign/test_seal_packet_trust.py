"""A packet's seal records what its files reach: an unreachable CRL postpones it (retried like
an absent TSA), the level is read back from the sealed files, and the zip is what people
expect (the audit trail under its own name, ordinary file modes)."""

from __future__ import annotations

import hashlib
import io
import stat
import zipfile
from typing import Any

import pytest
from django.test import Client
from pyhanko.sign.ades.report import AdESPassed

from esign.engine.seal_verify import verify_pdf
from esign.models import AuditEvent
from esign.sealing.config import trust_roots
from esign.sealing.seal import packet_seal
from tests.esign.sealpki import asn1, shared_pki, with_the_hsm_seal
from tests.esign.test_seal_engine import lta_validation
from tests.esign.test_seal_packets import seal_while_down, zip_url

pytestmark = pytest.mark.django_db


def _sealed_level(packet) -> str:
    return AuditEvent.objects.get(packet=packet, action="packetSealed").detail["level"]


@with_the_hsm_seal
def test_with_the_crl_down_nothing_is_sealed_until_it_is_back(
    complete, api_client: Client, settings: Any, django_capture_on_commit_callbacks
) -> None:
    pki, created, packet = seal_while_down(
        "crl_available", complete, settings, django_capture_on_commit_callbacks
    )

    assert packet.seal_error.startswith("validation_data_unavailable: ")
    assert packet.documents.get().sealed_sha256 == ""
    assert api_client.get(zip_url(created)).status_code == 503

    assert packet_seal(packet_id=packet.pk, attempt=2) == "sealed (PAdES-B-LTA)"
    assert _sealed_level(packet) == "PAdES-B-LTA"
    archive = zipfile.ZipFile(io.BytesIO(api_client.get(zip_url(created)).content))
    for name in archive.namelist():
        sealed = archive.read(name)
        assert lta_validation(sealed, [asn1(pki.certificate)]).ades_subindic == AdESPassed.OK
        assert verify_pdf(sealed, trust_roots=trust_roots()).signatures[-1].level == ("PAdES-B-LTA")


def test_the_recorded_level_is_read_back_from_the_files(
    complete, api_client: Client, settings: Any
) -> None:
    """The development key names no revocation source; with a TSA its seals are timestamped.
    What the packet records is what verification reads in each downloaded file."""
    pki = shared_pki()
    settings.SEAL_TSA_URLS = [pki.tsa_url]
    roots_file = settings.SEAL_DEV_DIR.parent / "tsa-roots.pem"
    roots_file.write_bytes(pki.ca_pem)
    settings.SEAL_TRUST_ROOTS_FILE = str(roots_file)
    created, packet = complete()

    outcome = packet_seal(packet_id=packet.pk)

    recorded = _sealed_level(packet)
    assert outcome == f"sealed ({recorded})"
    archive = zipfile.ZipFile(io.BytesIO(api_client.get(zip_url(created)).content))
    levels = {
        verify_pdf(archive.read(name), trust_roots=trust_roots()).signatures[-1].level
        for name in archive.namelist()
    }
    assert levels == {recorded}


def test_without_a_tsa_the_level_is_b_b(complete) -> None:
    _, packet = complete()

    assert packet_seal(packet_id=packet.pk) == "sealed (PAdES-B-B)"
    assert _sealed_level(packet) == "PAdES-B-B"


def test_the_zip_keeps_the_audit_trail_name_and_ordinary_modes(
    complete, api_client: Client
) -> None:
    """A document named audit-trail.pdf no longer pushes the real trail to audit-trail-1.pdf,
    and unzipped files are readable by the people they are shared with (not 0600)."""
    created, packet = complete()
    packet.documents.update(filename="audit-trail.pdf")
    packet_seal(packet_id=packet.pk)

    archive = zipfile.ZipFile(io.BytesIO(api_client.get(zip_url(created)).content))

    assert archive.namelist() == ["audit-trail-2.pdf", "audit-trail.pdf"]
    trail = archive.read("audit-trail.pdf")
    packet.refresh_from_db()
    assert hashlib.sha256(trail).hexdigest() == packet.audit_trail_sha256
    for info in archive.infolist():
        assert stat.S_IMODE(info.external_attr >> 16) == 0o644, info.filename
        assert stat.S_ISREG(info.external_attr >> 16)
        assert info.date_time[0] == packet.sealed_at.year
