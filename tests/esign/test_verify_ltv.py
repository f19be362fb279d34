"""Long-term validation of our own seals (issue 33, defect 1): a B-LTA seal stays valid after its
revocation data is superseded, because that data is judged at the time the document timestamp
proves, not at the time of verification. The PKI's CRL and OCSP responses are fresh for 120 s
(tests.esign.ltvpki), so "days later" is 200 s later; a year later is a ``now`` a year on.

Each verdict is also what pyHanko's own AdES long-term validation says at that time.
"""

from __future__ import annotations

import asyncio
import io
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.ades.report import AdESPassed
from pyhanko.sign.validation.ades import ades_lta_validation
from pyhanko.sign.validation.policy_decl import (
    CertificateFetchingRule,
    LocalKnowledge,
    PdfSignatureValidationSpec,
    RevinfoOnlineFetchingRule,
    RevocationInfoGatheringSpec,
    SignatureValidationSpec,
)
from pyhanko_certvalidator.context import CertValidationPolicySpec
from pyhanko_certvalidator.ltv.types import ValidationTimingInfo
from pyhanko_certvalidator.policy_decl import (
    REQUIRE_REVINFO,
    CertRevTrustPolicy,
    NonRevokedStatusAssertion,
)
from pyhanko_certvalidator.registry import SimpleTrustManager

from esign.engine.seal import seal_pdf
from esign.engine.seal_credentials import SoftwareKey, load_credentials
from esign.engine.seal_verify import verify_pdf
from esign.engine.timestamps import TsaConfig
from tests.esign.ltvpki import ShortLivedPki
from tests.esign.sealpki import asn1
from tests.esign.test_seal_engine import three_pages

YEAR = timedelta(days=365)


def _seal(pki: ShortLivedPki) -> tuple[bytes, datetime]:
    key_pem, cert_pem = pki.key_and_certificate("Seal tests LTV seal")
    sealed_at = datetime.now(UTC)
    sealed = seal_pdf(
        three_pages(),
        credentials=load_credentials(SoftwareKey(key_pem, cert_pem, pki.ca_pem)),
        signing_time=sealed_at,
        tsa=TsaConfig(urls=(pki.tsa_url,)),
    )
    return sealed, sealed_at


@pytest.fixture(scope="module", params=["ocsp", "crl"])
def sealed(request: pytest.FixtureRequest) -> tuple[bytes, datetime, ShortLivedPki]:
    """A B-LTA seal whose validation data is OCSP responses (or CRLs) fresh for 120 s."""
    pki = ShortLivedPki(ocsp=request.param == "ocsp")
    pdf, sealed_at = _seal(pki)
    assert (pki.ocsp_requests > 0) == (request.param == "ocsp")
    assert (pki.crl_requests > 0) == (request.param == "crl")
    return pdf, sealed_at, pki


def pyhanko_lta(pdf: bytes, pki: ShortLivedPki, at: datetime) -> object:
    """pyHanko's AdES-LTA validation at ``at``: revocation data required, nothing fetched.
    AdES judges the last timestamp's authority by its status at ``at``, which the file cannot
    hold (a verifier fetches it): the TSA's current status is asserted here, as a fresh OCSP
    response would."""
    signature = PdfFileReader(io.BytesIO(pdf)).embedded_regular_signatures[0]
    current = NonRevokedStatusAssertion(asn1(pki.tsa_certificate).sha256, at)
    spec = PdfSignatureValidationSpec(
        SignatureValidationSpec(
            local_knowledge=LocalKnowledge(nonrevoked_assertions=[current]),
            cert_validation_policy=CertValidationPolicySpec(
                trust_manager=SimpleTrustManager.build(trust_roots=[asn1(pki.certificate)]),
                revinfo_policy=CertRevTrustPolicy(REQUIRE_REVINFO),
            ),
            revinfo_gathering_policy=RevocationInfoGatheringSpec(
                online_fetching_rule=RevinfoOnlineFetchingRule.LOCAL_ONLY,
                certificate_fetching_rule=CertificateFetchingRule.NEVER_FETCH,
            ),
        )
    )
    timing = ValidationTimingInfo(at, at, point_in_time_validation=False)
    return asyncio.run(ades_lta_validation(signature, spec, timing_info=timing)).ades_subindic


@pytest.mark.parametrize("later", [timedelta(0), timedelta(seconds=200), timedelta(days=2), YEAR])
def test_our_b_lta_seal_stays_valid_after_its_revocation_data_expires(
    sealed: tuple[bytes, datetime, ShortLivedPki], later: timedelta
) -> None:
    """Before: "untrusted" (not_trusted, document_timestamp_not_trusted) from 200 s on, the
    OCSP responses and CRLs judged at the time of verification."""
    pdf, sealed_at, pki = sealed
    roots = [asn1(pki.certificate)]

    report = verify_pdf(pdf, trust_roots=roots, now=sealed_at + later)

    assert report.verdict == "valid"
    assert report.findings == ()
    (signature,) = report.signatures
    assert (signature.level, signature.trusted) == ("PAdES-B-LTA", True)
    (stamp,) = report.document_timestamps
    assert signature.trusted_at == stamp.at  # the time the document timestamp proves


def test_pyhanko_passes_the_seal_long_term(sealed: tuple[bytes, datetime, ShortLivedPki]) -> None:
    """pyHanko's AdES-LTA validation passes the same file, revocation data required. (Later
    than the data's 120 s, pyHanko 0.38's offline AdES-LTA gives INDETERMINATE even with the
    last TSA's current status asserted: it wants revocation data fresh at the validation time
    for the signer too, and fetches it in real use. This verifier fetches nothing: it judges
    each item at the time the next timestamp proves, as EN 319 102-1's past validation does.)"""
    pdf, sealed_at, pki = sealed
    # + 10 s: the seal's document timestamp is a moment after the clock read for sealing.
    assert pyhanko_lta(pdf, pki, sealed_at + timedelta(seconds=10)) == AdESPassed.OK


def test_past_the_last_timestamp_authority_certificate_it_needs_renewal_not_distrust(
    sealed: tuple[bytes, datetime, ShortLivedPki],
) -> None:
    """The TSA's certificate lives three years: four years on, the last document timestamp
    still proves what it covers, but the file is due for a new one."""
    pdf, sealed_at, pki = sealed

    report = verify_pdf(pdf, trust_roots=[asn1(pki.certificate)], now=sealed_at + 4 * YEAR)

    assert report.verdict == "valid"
    assert [(name, f.code) for name, f in report.findings] == [
        (report.document_timestamps[0].field_name, "timestamp_renewal_needed")
    ]
    assert report.signatures[0].level == "PAdES-B-LTA"
    assert report.document_timestamps[0].trusted


@pytest.mark.django_db
def test_the_api_says_valid_a_year_after_the_seal(
    sealed: tuple[bytes, datetime, ShortLivedPki],
    api_client: Client,
    settings: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The service passes its clock to the engine: moved a year on, still valid."""
    pdf, sealed_at, pki = sealed
    roots = tmp_path / "roots.pem"
    roots.write_bytes(pki.ca_pem)
    settings.SEAL_TRUST_ROOTS_FILE = str(roots)
    monkeypatch.setattr("esign.verify.signatures.verification_time", lambda: sealed_at + YEAR)

    upload = io.BytesIO(pdf)
    upload.name = "sealed.pdf"
    body = api_client.post("/api/v1/verify", {"file": upload}).json()

    assert (body["verdict"], body["problems"]) == ("valid", [])
    assert body["signatures"][0]["level"] == "PAdES-B-LTA"
