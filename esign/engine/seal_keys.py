"""Keys and certificates of the seal: the development PKI made on first run, and reading PEM.

The development PKI is what a checkout signs with when no HSM is configured: a self-signed CA and
a seal certificate it issues, both with "DEVELOPMENT" in their subject, so nobody mistakes a
document sealed by a test install for one sealed by a production service. The CA's private key is
not returned: it signs the one certificate and is dropped, so nothing else can ever be issued
under that root.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from asn1crypto import pem
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

# The spec: the seal's private key is a 2048-bit RSA key.
KEY_SIZE = 2048
DEVELOPMENT_CA_NAME = "DEVELOPMENT ONLY - document automation root CA (not trusted)"
DEVELOPMENT_SEAL_NAME = "DEVELOPMENT ONLY - document automation seal (not trusted)"
DEVELOPMENT_ORGANIZATION = "Development install - not for production"
DEVELOPMENT_VALIDITY = timedelta(days=3650)


@dataclass(frozen=True)
class DevelopmentPki:
    """PEM of the seal's private key (PKCS#8), its certificate and the CA certificate."""

    key_pem: bytes = field(repr=False)
    cert_pem: bytes
    ca_pem: bytes


def _name(common_name: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, DEVELOPMENT_ORGANIZATION),
        ]
    )


def _key_usage(*, signing: bool) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=signing,
        content_commitment=signing,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=not signing,
        crl_sign=not signing,
        encipher_only=False,
        decipher_only=False,
    )


def create_development_pki(*, now: datetime) -> DevelopmentPki:
    """A new development CA and the seal certificate it issues, valid from ``now`` (aware)."""
    ca_key = rsa.generate_private_key(public_exponent=65537, key_size=KEY_SIZE)
    seal_key = rsa.generate_private_key(public_exponent=65537, key_size=KEY_SIZE)
    start, end = now - timedelta(minutes=5), now + DEVELOPMENT_VALIDITY
    ca_name = _name(DEVELOPMENT_CA_NAME)
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(_key_usage(signing=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False)
        .sign(ca_key, hashes.SHA256())
    )
    seal_cert = (
        x509.CertificateBuilder()
        .subject_name(_name(DEVELOPMENT_SEAL_NAME))
        .issuer_name(ca_name)
        .public_key(seal_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end - timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_key_usage(signing=True), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(seal_key.public_key()), False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
        .sign(ca_key, hashes.SHA256())
    )
    return DevelopmentPki(
        key_pem=seal_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ),
        cert_pem=seal_cert.public_bytes(serialization.Encoding.PEM),
        ca_pem=ca_cert.public_bytes(serialization.Encoding.PEM),
    )


def certificates_from_pem(data: bytes) -> list[asn1_x509.Certificate]:
    """Every certificate in PEM ``data`` (a bundle), or the one certificate of DER ``data``."""
    if not data.strip():
        return []
    if not pem.detect(data):
        return [asn1_x509.Certificate.load(data)]
    return [
        asn1_x509.Certificate.load(der)
        for kind, _, der in pem.unarmor(data, multiple=True)
        if kind.lower() in ("certificate", "trusted certificate")
    ]


def is_self_signed(certificate: asn1_x509.Certificate) -> bool:
    return certificate.self_signed in ("maybe", "yes")


def roots_of(certificates: Iterable[asn1_x509.Certificate]) -> list[asn1_x509.Certificate]:
    """The self-signed certificates among ``certificates`` (trust anchors), without repeats."""
    seen: dict[bytes, asn1_x509.Certificate] = {}
    for certificate in certificates:
        if is_self_signed(certificate):
            seen.setdefault(certificate.sha256, certificate)
    return list(seen.values())
