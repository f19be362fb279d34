"""The seal's level from what the seal step embedded (esign.engine.seal.seal_document), checked
against the full verifier (esign.engine.seal_verify) once here instead of on every seal."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from esign.engine import seal_verify
from esign.engine.seal import seal_document
from esign.engine.seal_credentials import SoftwareKey, load_credentials
from esign.engine.seal_verify import verify_pdf
from esign.engine.timestamps import TsaConfig
from esign.sealing.seal import packet_seal
from tests.esign.sealpki import asn1, shared_pki
from tests.esign.test_seal_engine import (  # noqa: F401 - the development key fixture
    development,
    three_pages,
)


def test_a_seal_without_a_tsa_is_b_b_as_the_verifier_reads_it(development: Any) -> None:  # noqa: F811
    key, roots = development

    result = seal_document(
        three_pages(), credentials=load_credentials(key), signing_time=datetime.now(UTC)
    )

    assert result.level == "PAdES-B-B"
    assert verify_pdf(result.pdf, trust_roots=roots).signatures[-1].level == result.level


def test_a_seal_with_a_tsa_is_b_lta_as_the_verifier_reads_it() -> None:
    pki = shared_pki()
    key_pem, cert_pem = pki.software_seal()
    credentials = load_credentials(SoftwareKey(key_pem, cert_pem, pki.ca_pem))

    result = seal_document(
        three_pages(),
        credentials=credentials,
        signing_time=datetime.now(UTC),
        tsa=TsaConfig(urls=(pki.tsa_url,)),
    )

    assert result.level == "PAdES-B-LTA"
    report = verify_pdf(result.pdf, trust_roots=[asn1(pki.certificate)])
    assert report.signatures[-1].level == result.level


@pytest.mark.django_db
def test_sealing_a_packet_records_the_level_without_verifying_the_files_again(
    complete: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, packet = complete()

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the sealed file was verified again")

    # Wherever the verifier is reached from (the module, or a name imported from it).
    monkeypatch.setattr(seal_verify, "verify_pdf", refuse)
    monkeypatch.setattr("esign.sealing.seal.verify_pdf", refuse, raising=False)
    # Nor read again for a timestamp to renew: a B-B seal has none.
    monkeypatch.setattr("esign.sealing.renewal.timestamp_expiry", refuse)

    assert packet_seal(packet_id=packet.pk) == "sealed (PAdES-B-B)"
    packet.refresh_from_db()
    assert packet.seal_level == "PAdES-B-B"
    assert [v.renewal_due_at for v in packet.sealed_versions.all()] == [None, None]
