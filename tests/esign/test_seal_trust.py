"""What a seal refuses: a CRL that cannot be reached postpones it (no B-LTA without revocation
data), weak keys are refused, each timestamp is one TSA request and a TSA that failed is asked
once per attempt. Each sealed file is also checked with pyHanko's own long-term validation."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from pyhanko.sign.ades.report import AdESPassed

from esign.engine.errors import SealKeyUnavailable, ValidationDataUnavailable
from esign.engine.seal import seal_pdf
from esign.engine.seal_credentials import SoftwareKey, load_credentials
from esign.engine.timestamps import FallbackTimeStamper, TsaConfig
from tests.esign.conftest import silent_listener
from tests.esign.sealpki import SealTestPki, asn1, shared_pki
from tests.esign.test_seal_engine import lta_validation, three_pages


def _software_key(pki: SealTestPki, **options: int) -> SoftwareKey:
    key_pem, cert_pem = pki.software_seal(**options)
    return SoftwareKey(key_pem, cert_pem, pki.ca_pem)


def _key_of(pki: SealTestPki, made: Any, common_name: str) -> SoftwareKey:
    """The private key ``made`` with a certificate of ``pki``'s CA for it."""
    key_pem = made.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    certificate = pki.issue(made.public_key(), common_name)
    return SoftwareKey(key_pem, certificate.public_bytes(serialization.Encoding.PEM), pki.ca_pem)


def sealed_with_the_tsa(pki: SealTestPki, key: SoftwareKey) -> bytes:
    """three_pages() sealed now with ``key``, timestamped by ``pki``'s TSA."""
    return seal_pdf(
        three_pages(),
        credentials=load_credentials(key),
        signing_time=datetime.now(UTC),
        tsa=TsaConfig(urls=(pki.tsa_url,)),
    )


def test_a_crl_that_cannot_be_reached_postpones_the_seal() -> None:
    """Before, pyHanko's soft-fail mode sealed at once without revocation data, and the packet
    was recorded PAdES-B-LTA while the file was not long-term verifiable."""
    pki = SealTestPki()
    key = _software_key(pki)
    pki.crl_available = False

    with pytest.raises(ValidationDataUnavailable) as raised:
        sealed_with_the_tsa(pki, key)
    assert raised.value.kind == "unavailable"  # retried later, like an absent TSA

    pki.crl_available = True
    sealed = sealed_with_the_tsa(pki, key)
    assert lta_validation(sealed, [asn1(pki.certificate)]).ades_subindic == AdESPassed.OK


@pytest.mark.parametrize(
    ("private_key", "named"),
    [
        (lambda: None, "RSA of 1024 bits"),
        (lambda: ec.generate_private_key(ec.SECP224R1()), "EC on the curve secp224r1"),
    ],
)
def test_a_weak_key_is_refused(private_key, named: str) -> None:
    pki = shared_pki()
    if (made := private_key()) is None:
        key = _software_key(pki, key_size=1024)
    else:
        key = _key_of(pki, made, "Weak seal")

    with pytest.raises(SealKeyUnavailable) as raised:
        load_credentials(key)

    assert named in str(raised.value)
    assert "at least 2048 bits" in str(raised.value)


def test_an_ec_p256_key_seals() -> None:
    pki = shared_pki()
    key = _key_of(pki, ec.generate_private_key(ec.SECP256R1()), "EC seal")
    sealed = sealed_with_the_tsa(pki, key)
    assert lta_validation(sealed, [asn1(pki.certificate)]).ades_subindic == AdESPassed.OK


def test_each_timestamp_is_one_request_and_an_attempt_shares_its_tsas() -> None:
    """Before, each document cost three requests: one only to estimate the token's size."""
    pki = shared_pki()
    key = _software_key(pki)
    timestamper = FallbackTimeStamper(TsaConfig(urls=(pki.tsa_url,)))
    before = pki.tsa_requests

    documents = [
        seal_pdf(
            three_pages(),
            credentials=load_credentials(key),
            signing_time=datetime.now(UTC),
            tsa=timestamper,
        )
        for _ in range(2)
    ]

    # A signature timestamp and a document timestamp per document, nothing else.
    assert pki.tsa_requests - before == 4
    assert timestamper.requests == 4
    for sealed in documents:
        assert lta_validation(sealed, [asn1(pki.certificate)]).ades_subindic == AdESPassed.OK

    alone = pki.tsa_requests
    seal_pdf(
        three_pages(),
        credentials=load_credentials(key),
        signing_time=datetime.now(UTC),
        tsa=TsaConfig(urls=(pki.tsa_url,)),
    )
    assert pki.tsa_requests - alone == 2


@pytest.fixture
def hanging_tsa() -> Iterator[tuple[str, list[float]]]:
    """A TSA that accepts connections and never answers; yields its URL and when each came."""
    with silent_listener(16) as (port, _, arrivals):
        yield f"http://127.0.0.1:{port}/tsa", arrivals


def test_a_hanging_tsa_costs_one_timeout_per_attempt(hanging_tsa) -> None:
    url, arrivals = hanging_tsa
    pki = shared_pki()
    key = _software_key(pki)
    timestamper = FallbackTimeStamper(TsaConfig(urls=(url, pki.tsa_url), deadline_seconds=1))

    for _ in range(2):
        sealed = seal_pdf(
            three_pages(),
            credentials=load_credentials(key),
            signing_time=datetime.now(UTC),
            tsa=timestamper,
        )
        assert lta_validation(sealed, [asn1(pki.certificate)]).ades_subindic == AdESPassed.OK

    assert len(arrivals) == 1  # four timestamps, one timeout
    assert timestamper.failed_urls == {url}
