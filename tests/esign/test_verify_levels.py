"""The PAdES level is earned by the validation data, not by the DSS's mere presence (issue 33,
defect 5): B-LT only when the document security store covers the signer's own chain (and the
signature timestamp's), with revocation data about each certificate that names a source."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization

from esign.engine.seal_credentials import SoftwareKey
from esign.engine.seal_verify import verify_pdf
from tests.esign.ltvpki import ShortLivedPki, _root
from tests.esign.sealpki import asn1
from tests.esign.test_verify_trust_roles import signed
from tests.esign.verify_files import _with_dss


@pytest.fixture(scope="module")
def pki() -> ShortLivedPki:
    return ShortLivedPki(revocation_seconds=86400, ocsp=False)


def unrelated_crl() -> bytes:
    """A CRL of a CA that has nothing to do with the file."""
    now = datetime.now(UTC)
    key, root = _root("Unrelated CA", now)
    return (
        x509.CertificateRevocationListBuilder()
        .issuer_name(root.subject)
        .last_update(now - timedelta(minutes=1))
        .next_update(now + timedelta(days=7))
        .sign(key, hashes.SHA256())
        .public_bytes(serialization.Encoding.DER)
    )


def b_t(pki: ShortLivedPki) -> tuple[bytes, x509.Certificate]:
    key_pem, cert_pem = pki.key_and_certificate("B-T signer")
    pdf = signed(SoftwareKey(key_pem, cert_pem, pki.ca_pem), pki.timestamper)
    return pdf, x509.load_pem_x509_certificate(cert_pem)


def test_an_unrelated_crl_in_the_dss_does_not_make_a_b_t_file_b_lt(pki: ShortLivedPki) -> None:
    """Before: PAdES-B-LT, for the signer's certificate and any CRL at all in the DSS."""
    pdf, certificate = b_t(pki)
    roots = [asn1(pki.certificate)]
    assert verify_pdf(pdf, trust_roots=roots, now=datetime.now(UTC)).signatures[0].level == (
        "PAdES-B-T"
    )
    padded = _with_dss(pdf, certs=[asn1(certificate), asn1(pki.certificate)], crl=unrelated_crl())

    report = verify_pdf(padded, trust_roots=roots, now=datetime.now(UTC))

    assert report.verdict == "valid"
    assert report.signatures[0].level == "PAdES-B-T"


def test_the_dss_with_the_signer_and_tsa_revocation_data_is_b_lt(pki: ShortLivedPki) -> None:
    """The CA's own CRL (it issued both the signer's and the TSA's certificates) with both
    certificates: the chains are covered, B-LT."""
    pdf, certificate = b_t(pki)
    roots = [asn1(pki.certificate)]
    covered = _with_dss(
        pdf,
        certs=[asn1(certificate), asn1(pki.tsa_certificate), asn1(pki.certificate)],
        crl=pki._crl(),
    )

    report = verify_pdf(covered, trust_roots=roots, now=datetime.now(UTC))

    assert report.signatures[0].level == "PAdES-B-LT"


def test_without_the_tsa_certificate_in_the_dss_it_stays_b_t(pki: ShortLivedPki) -> None:
    pdf, certificate = b_t(pki)
    roots = [asn1(pki.certificate)]
    signer_only = _with_dss(pdf, certs=[asn1(certificate), asn1(pki.certificate)], crl=pki._crl())

    report = verify_pdf(signer_only, trust_roots=roots, now=datetime.now(UTC))

    assert report.signatures[0].level == "PAdES-B-T"
