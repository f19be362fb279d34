"""A seal key weaker than RSA 2048 or EC P-256 is refused at start (a system check, which
migrate, the task worker and runserver run) and by every seal, with the reason in the admin."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from esign.sealing.config import DEV_CA, DEV_CERT, DEV_KEY
from esign.sealing.seal import packet_seal
from tests.esign.sealpki import shared_pki
from tests.staff import superuser_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def weak_seal(settings: Any, tmp_path: Path) -> None:
    pki = shared_pki()
    key_pem, cert_pem = pki.software_seal(key_size=1024)
    directory = tmp_path / "seal-dev"
    directory.mkdir()
    (directory / DEV_KEY).write_bytes(key_pem)
    (directory / DEV_CERT).write_bytes(cert_pem)
    (directory / DEV_CA).write_bytes(pki.ca_pem)
    settings.SEAL_DEV_DIR = directory
    settings.SEAL_PKCS11_MODULE = ""
    settings.SEAL_TSA_URLS = []


@pytest.mark.usefixtures("weak_seal")
def test_the_check_stops_the_start_with_a_weak_key() -> None:
    with pytest.raises(SystemCheckError) as raised:
        call_command("check")

    assert "esign.E001" in str(raised.value)
    assert "The seal's key is RSA of 1024 bits" in str(raised.value)


def test_the_check_passes_with_the_development_key(settings: Any, tmp_path: Path) -> None:
    settings.SEAL_DEV_DIR = tmp_path / "none-yet"
    settings.SEAL_PKCS11_MODULE = ""
    call_command("check")  # no key yet: nothing to check, and nothing made
    assert not settings.SEAL_DEV_DIR.exists()


@pytest.mark.usefixtures("weak_seal")
def test_a_packet_is_not_sealed_with_a_weak_key_and_the_admin_says_why(complete) -> None:
    _, packet = complete()

    outcome = packet_seal(packet_id=packet.pk)

    assert outcome.startswith("retrying at ")
    packet.refresh_from_db()
    assert packet.seal_status == "retrying"
    assert packet.seal_error.startswith("seal_key_too_weak: The seal's key is RSA of 1024 bits")
    assert packet.documents.get().sealed_sha256 == ""
    browser = superuser_client()
    page = browser.get(f"/admin/esign/packet/{packet.pk}/change/").content.decode()
    assert "The seal&#x27;s key is RSA of 1024 bits" in page
