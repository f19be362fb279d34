"""A signer whose revocation was not checked is said to be so (issue 33, defect 8): nothing is
fetched, so a revoked certificate without revocation data in the file cannot be told from a
good one, and the page and the API say plainly that revocation was not checked."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from django.test import Client

from esign.engine.seal_credentials import SoftwareKey
from tests.esign.ltvpki import ShortLivedPki
from tests.esign.test_verify_trust_roles import signed


@pytest.mark.django_db
def test_a_revoked_signer_without_revocation_data_is_said_unchecked(
    api_client: Client, settings: Any, tmp_path: Path
) -> None:
    """Before: valid on the page and in the API, with nothing said about revocation."""
    pki = ShortLivedPki(revocation_seconds=86400)
    key_pem, cert_pem = pki.key_and_certificate("Revoked, unknown to the file")
    pki.revoke(x509.load_pem_x509_certificate(cert_pem))
    pdf = signed(SoftwareKey(key_pem, cert_pem, pki.ca_pem))
    roots = tmp_path / "roots.pem"
    roots.write_bytes(pki.ca_pem)
    settings.SEAL_TRUST_ROOTS_FILE = str(roots)

    upload = io.BytesIO(pdf)
    upload.name = "signed.pdf"
    body = api_client.post("/api/v1/verify", {"file": upload}).json()

    assert body["verdict"] == "valid"  # nothing in the file says otherwise
    assert body["signatures"][0]["revocationChecked"] is False
    assert [p["code"] for p in body["problems"]] == ["revocation_not_checked"]
    upload = io.BytesIO(pdf)
    upload.name = "signed.pdf"
    html = " ".join(Client().post("/verify", {"file": upload}).content.decode().split())
    assert "Revocation not checked: the file carries no revocation data for this certificate" in (
        html
    )
    assert "Whether the signer&#x27;s certificate was revoked was not checked" in html
