"""Revocation data while sealing: an OCSP responder that answers junk does not block the seal
(the CRL is used), and a revoked seal certificate fails the seal at once, with its own error,
shown in the admin and the logs."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from django.test import Client

from esign.engine.errors import SealCertificateRevoked
from esign.engine.seal import seal_pdf
from esign.engine.seal_credentials import SoftwareKey, load_credentials
from esign.engine.timestamps import TsaConfig
from esign.models import Packet
from esign.sealing.seal import packet_seal
from tests.esign.lifetimes_pki import LifetimesPki, ocsp_is_parsed
from tests.esign.test_seal_engine import three_pages
from tests.esign.test_seal_packets import seal_tasks


@pytest.fixture
def ocsp_pki() -> Iterator[LifetimesPki]:
    pki = LifetimesPki(ocsp=True)
    yield pki
    pki.close()


@pytest.fixture
def seal_certificate(ocsp_pki: LifetimesPki, settings: Any, tmp_path: Path) -> x509.Certificate:
    return ocsp_pki.use_for_seals(settings, tmp_path / "seal")


def engine_seal(pki: LifetimesPki) -> tuple[bytes, x509.Certificate]:
    key_pem, cert_pem, certificate = pki.software_seal()
    credentials = load_credentials(SoftwareKey(key_pem, cert_pem, pki.ca_pem))
    sealed = seal_pdf(
        three_pages(),
        credentials=credentials,
        signing_time=datetime.now(UTC),
        tsa=TsaConfig((pki.tsa_url,)),
        trust_roots=[pki.root],
    )
    return sealed, certificate


@pytest.mark.parametrize("mode", ["junk-inside", "junk", "text", "truncated"])
def test_an_ocsp_responder_answering_junk_leaves_the_crl_to_prove_the_seal(
    ocsp_pki: LifetimesPki, mode: str
) -> None:
    ocsp_pki.ocsp_mode = mode

    sealed, _ = engine_seal(ocsp_pki)

    assert ocsp_pki.ocsp_requests >= 1  # asked first, answered junk
    assert ocsp_pki.crl_requests >= 1  # then the CRL
    assert b"/DSS" in sealed


def test_the_junk_is_no_ocsp_response_asn1crypto_can_read() -> None:
    pki = LifetimesPki(ocsp=True)
    try:
        pki.ocsp_mode = "junk-inside"
        assert not ocsp_is_parsed(pki.ocsp_response(b""))
    finally:
        pki.close()


def test_a_revoked_seal_certificate_is_its_own_error(ocsp_pki: LifetimesPki) -> None:
    key_pem, cert_pem, certificate = ocsp_pki.software_seal()
    ocsp_pki.revoke(certificate)
    credentials = load_credentials(SoftwareKey(key_pem, cert_pem, ocsp_pki.ca_pem))

    with pytest.raises(SealCertificateRevoked) as raised:
        seal_pdf(
            three_pages(),
            credentials=credentials,
            signing_time=datetime.now(UTC),
            tsa=TsaConfig((ocsp_pki.tsa_url,)),
            trust_roots=[ocsp_pki.root],
        )

    assert raised.value.code == "seal_certificate_revoked"
    assert raised.value.retryable is False
    assert str(raised.value).startswith(
        "The certificate Organization: Seal tests, Common Name: Lifetimes seal was revoked on "
    )


@pytest.mark.django_db
def test_junk_from_the_ocsp_responder_does_not_hold_up_a_packet_seal(
    complete, ocsp_pki: LifetimesPki, seal_certificate: x509.Certificate
) -> None:
    ocsp_pki.ocsp_mode = "junk-inside"
    _, packet = complete()

    assert packet_seal(packet_id=packet.pk) == "sealed (PAdES-B-LTA)"


@pytest.mark.django_db
def test_a_revoked_seal_certificate_fails_the_packet_at_once_shown_in_admin_and_logs(
    complete,
    ocsp_pki: LifetimesPki,
    seal_certificate: x509.Certificate,
    caplog: pytest.LogCaptureFixture,
    admin_client: Client,
) -> None:
    ocsp_pki.revoke(seal_certificate)
    _, packet = complete()

    with caplog.at_level(logging.ERROR, logger="esign.sealing.seal"):
        assert packet_seal(packet_id=packet.pk) == "failed"

    packet.refresh_from_db()
    assert packet.seal_status == Packet.SealStatus.FAILED
    assert packet.seal_attempts == 1
    assert packet.seal_retry_at is None
    assert packet.seal_error.startswith(
        "seal_certificate_revoked: The certificate Organization: Seal tests, Common Name: "
        "Lifetimes seal was revoked on "
    )
    assert len(seal_tasks()) == 1  # the one at completion: no retry enqueued
    event = packet.audit_events.get(action="packetSealFailed")
    assert event.detail == {"attempt": 1, "error": "seal_certificate_revoked", "willRetry": False}
    messages = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert any("seal_certificate_revoked" in m for m in messages), messages
    page = admin_client.get(f"/admin/esign/packet/{packet.pk}/change/")
    assert "seal_certificate_revoked: The certificate" in page.content.decode()


def test_seals_share_one_tls_context_for_their_revocation_fetches(
    ocsp_pki: LifetimesPki, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each seal's fetches of its CRL and OCSP answers run in a session of their own (a session
    belongs to its event loop), but on the process's one TLS context: pyHanko's default made a
    context per seal, reading certifi's whole bundle (bench/seal.py: 121 -> 102 ms of CPU a
    PAdES-B-LTA seal)."""
    import ssl

    from esign.engine import revocation

    made: list[object] = []
    create = ssl.create_default_context

    def counted(*args: Any, **kwargs: Any) -> ssl.SSLContext:
        made.append(kwargs.get("cafile"))
        return create(*args, **kwargs)

    monkeypatch.setattr(ssl, "create_default_context", counted)
    revocation._tls_context.cache_clear()  # made again here, once
    fetched = ocsp_pki.crl_requests + ocsp_pki.ocsp_requests
    for _ in range(3):
        engine_seal(ocsp_pki)
    assert ocsp_pki.crl_requests + ocsp_pki.ocsp_requests > fetched  # they fetched online
    assert len(made) == 1, made
