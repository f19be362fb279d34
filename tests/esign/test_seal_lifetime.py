"""The proof issue 33 asks for, end to end: a packet sealed through the service (PAdES-B-LTA, with
a test PKI whose CRLs live 30 days and whose TSA certificate lives 90), renewed by
``manage.py renew_seals`` with the service's clock moved to day 75, is at day 100 — past the
CRLs the seal carried and past the first TSA certificate — both

(a) passed by pyHanko's offline long-term (AdES-LTA) validation, and
(b) "valid", PAdES-B-LTA, in this service's own verifier (the engine and ``POST /api/v1/verify``)

while the file as sealed, unrenewed, is at day 100 no longer provable offline and is only
"valid" in this verifier with the notice that its last timestamp needs renewal.
"""

from __future__ import annotations

import io
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from esign.engine.seal_verify import verify_pdf
from esign.sealing.config import signer_trust_roots, tsa_trust_roots
from esign.sealing.seal import packet_seal
from tests.esign.lifetimes_pki import LifetimesPki, long_term_validation_at, passed
from tests.esign.test_seal_renewal import lifetimes, move_clock, zip_files  # noqa: F401

pytestmark = pytest.mark.django_db


def api_verify(api_client: Client, pdf: bytes, name: str = "sealed.pdf") -> dict[str, Any]:
    upload = io.BytesIO(pdf)
    upload.name = name
    response = api_client.post("/api/v1/verify", {"file": upload})
    assert response.status_code == 200, response.content
    body: dict[str, Any] = response.json()
    return body


def test_a_renewed_seal_is_proven_by_pyhanko_and_valid_in_our_verifier_after_its_data_expired(
    complete,
    lifetimes: LifetimesPki,  # noqa: F811 - the fixture of test_seal_renewal
    api_client: Client,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    created, packet = complete()
    sealed_at = timezone.now()
    assert packet_seal(packet_id=packet.pk) == "sealed (PAdES-B-LTA)"
    original = zip_files(api_client, created)
    tsa_expiry = lifetimes.tsa_certificate.not_valid_after_utc

    # Day 75: due (30 days before day 90). The TSA has rolled to a key whose certificate lives
    # ten years; the operator renews what is due.
    move_clock(monkeypatch, lifetimes, 75)
    lifetimes.new_tsa(timedelta(days=3650))
    out = io.StringIO()
    call_command("renew_seals", stdout=out)
    assert out.getvalue().endswith("Renewed 2 sealed file(s); 0 failed.\n")
    renewed = zip_files(api_client, created)
    assert sorted(renewed) == sorted(original) == ["agreement.pdf", "audit-trail.pdf"]

    # Day 100: the CRLs the seal carried (day 30) and the first TSA certificate (day 90) expired.
    at = sealed_at + timedelta(days=100)
    assert at > tsa_expiry
    monkeypatch.setattr("esign.verify.signatures.verification_time", lambda: at)
    signers, tsas = signer_trust_roots(), tsa_trust_roots()
    assert [c.sha256 for c in tsas] == [c.sha256 for c in signers] == [lifetimes.root.sha256]
    for name in renewed:
        # (a) pyHanko, offline, revocation data required.
        assert passed(long_term_validation_at(renewed[name], [lifetimes.root], at)), name
        assert not passed(long_term_validation_at(original[name], [lifetimes.root], at)), name

        # (b) this service's verifier: the engine, then the API.
        report = verify_pdf(renewed[name], trust_roots=signers, tsa_roots=tsas, now=at)
        assert (report.verdict, report.findings) == ("valid", ()), name
        assert [s.level for s in report.signatures] == ["PAdES-B-LTA"], name
        # The seal's timestamp, then the renewal's: what follows the first (a DSS, a document
        # timestamp) is long-term validation data, no change to what it covers.
        assert [(t.trusted, t.covers_whole_document) for t in report.document_timestamps] == [
            (True, True),
            (True, True),
        ], name
        body = api_verify(api_client, renewed[name])
        assert body["verdict"] == "valid_development", name  # the development key: see below
        assert [p["code"] for p in body["problems"]] == ["development_seal"], name
        assert [s["level"] for s in body["signatures"]] == ["PAdES-B-LTA"], name
        known = "sealed_audit_trail" if name == "audit-trail.pdf" else "sealed_document"
        assert (body["knownAs"], body["sealedByUs"]) == (known, True), name  # by its new hash

        # The file as sealed: its last timestamp still proves what it covers here (this
        # verifier judges each item at the time the next timestamp proves), but it is past its
        # authority's certificate, and says so.
        stale = verify_pdf(original[name], trust_roots=signers, tsa_roots=tsas, now=at)
        (stamp,) = stale.document_timestamps
        assert stale.verdict == "valid", name
        assert [(n, f.code) for n, f in stale.findings] == [
            (stamp.field_name, "timestamp_renewal_needed")
        ], name
        body = api_verify(api_client, original[name])
        assert body["verdict"] == "valid_development", name
        assert [p["code"] for p in body["problems"]] == [
            "timestamp_renewal_needed",
            "development_seal",
        ], name
