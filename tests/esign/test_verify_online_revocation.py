"""The opt-in online revocation check (VERIFY_ONLINE_REVOCATION): off, nothing is fetched and a
signer without revocation data in the file is said unchecked; on, the verifier fetches the
signer's OCSP response or CRL through core.engine.fetch (its address guard: loopback only when
FETCH_ALLOW_NETWORKS allows it) and a revoked signer is reported revoked."""

from __future__ import annotations

import io
from typing import Any

import pytest
from cryptography import x509
from django.test import Client

from esign.engine.seal_credentials import SoftwareKey
from tests.esign.ltvpki import ShortLivedPki
from tests.esign.test_verify_report_file import pdf_text
from tests.esign.test_verify_trust_roles import signed


@pytest.fixture(scope="module")
def revoked_pdf(pki: ShortLivedPki) -> bytes:
    key_pem, cert_pem = pki.key_and_certificate("Revoked signer")
    pki.revoke(x509.load_pem_x509_certificate(cert_pem))
    return signed(SoftwareKey(key_pem, cert_pem, pki.ca_pem))


@pytest.fixture(scope="module")
def good_pdf(pki: ShortLivedPki) -> bytes:
    key_pem, cert_pem = pki.key_and_certificate("Good signer")
    return signed(SoftwareKey(key_pem, cert_pem, pki.ca_pem))


def _verify(client: Client, pdf: bytes) -> dict[str, Any]:
    upload = io.BytesIO(pdf)
    upload.name = "signed.pdf"
    response = client.post("/api/v1/verify", {"file": upload})
    assert response.status_code == 200
    return response.json()


def _requests(pki: ShortLivedPki) -> int:
    return pki.ocsp_requests + pki.crl_requests


@pytest.mark.django_db
def test_off_by_default_nothing_is_fetched(
    pki: ShortLivedPki, revoked_pdf: bytes, api_client: Client, trusted: Any
) -> None:
    trusted.FETCH_ALLOW_NETWORKS = ["127.0.0.0/8"]  # allowed, but the check is off
    assert trusted.VERIFY_ONLINE_REVOCATION is False
    before = _requests(pki)

    body = _verify(api_client, revoked_pdf)

    assert _requests(pki) == before  # no request reached the CA's server
    assert body["verdict"] == "valid"
    assert body["signatures"][0]["revocationChecked"] is False
    assert body["signatures"][0]["revocationCheckedOnline"] is False


@pytest.mark.django_db
def test_on_a_revoked_signer_is_reported_revoked(
    pki: ShortLivedPki, revoked_pdf: bytes, good_pdf: bytes, api_client: Client, trusted: Any
) -> None:
    trusted.VERIFY_ONLINE_REVOCATION = True
    trusted.FETCH_ALLOW_NETWORKS = ["127.0.0.0/8"]
    before = _requests(pki)

    revoked = _verify(api_client, revoked_pdf)
    good = _verify(api_client, good_pdf)

    assert _requests(pki) > before
    signature = revoked["signatures"][0]
    assert signature["revoked"] is True
    assert signature["trusted"] is False
    assert signature["revocationChecked"] is True
    assert signature["revocationCheckedOnline"] is True
    # EN 319 102-1: revoked, and no timestamp proves the signature was made before (issue 47)
    assert signature["indication"] == "INDETERMINATE"
    assert signature["subIndication"] == "REVOKED_NO_POE"
    assert revoked["verdict"] != "valid"
    assert "revoked (by revocation data fetched online)" in str(signature["problems"])
    assert good["verdict"] == "valid"
    assert good["signatures"][0]["revocationCheckedOnline"] is True
    assert good["problems"] == []


@pytest.mark.django_db
def test_on_the_address_guard_still_refuses_loopback_unless_allowed(
    pki: ShortLivedPki, revoked_pdf: bytes, api_client: Client, trusted: Any
) -> None:
    trusted.VERIFY_ONLINE_REVOCATION = True
    trusted.FETCH_ALLOW_NETWORKS = []
    trusted.FETCH_ALLOW_HOSTS = []
    before = _requests(pki)

    body = _verify(api_client, revoked_pdf)

    assert _requests(pki) == before
    assert body["signatures"][0]["revocationChecked"] is False
    assert [p["code"] for p in body["problems"]] == ["revocation_not_checked"]


@pytest.mark.django_db
def test_on_the_page_and_the_pdf_report_say_revocation_was_checked_online(
    good_pdf: bytes, api_client: Client, trusted: Any
) -> None:
    trusted.VERIFY_ONLINE_REVOCATION = True
    trusted.FETCH_ALLOW_NETWORKS = ["127.0.0.0/8"]
    upload = io.BytesIO(good_pdf)
    upload.name = "signed.pdf"

    html = " ".join(Client().post("/verify", {"file": upload}).content.decode().split())
    upload = io.BytesIO(good_pdf)
    upload.name = "signed.pdf"
    report = api_client.post("/api/v1/verify?format=pdf", {"file": upload}).content

    assert "Revocation checked online, with the certificate's authority" in html
    assert "Revocation not checked" not in html
    text = " ".join(pdf_text(report).split())
    assert "Checked online, with the certificate's authority" in text
