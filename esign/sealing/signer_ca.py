"""The signer CA: what issues each ``advanced`` signer's one-hour certificate, as the settings
name it (esign.engine.signer_certificates issues them).

Configured like the seal's key: in an HSM (``SIGNER_CA_PKCS11_*``), or PEM files
(``SIGNER_CA_KEY_FILE``, ``SIGNER_CA_CERT_FILE``, ``SIGNER_CA_CHAIN_FILE``). Neither: a
development signer CA made on first use beside the seal's development key, its subject saying
DEVELOPMENT ONLY, trusted by this installation's /verify and nothing else.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from pathlib import Path

from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from django.conf import settings
from django.utils import timezone

from esign.engine.errors import SealKeyUnavailable
from esign.engine.seal_credentials import Pkcs11Key, SealKey, SoftwareKey, load_credentials
from esign.engine.seal_keys import DEVELOPMENT_ORGANIZATION, certificates_from_pem, roots_of
from esign.sealing.key_settings import make_directory_once, pkcs11_key_from_settings, read_optional

logger = logging.getLogger(__name__)

DEVELOPMENT_SIGNER_CA_NAME = "DEVELOPMENT ONLY - document automation signer CA (not trusted)"
DEV_KEY, DEV_CERT = "signer-ca-key.pem", "signer-ca-cert.pem"


def signer_ca_key() -> SealKey:
    """The signer CA's key as the settings name it."""
    chain = read_optional(settings.SIGNER_CA_CHAIN_FILE)
    in_hsm = pkcs11_key_from_settings("SIGNER_CA", chain)
    if in_hsm is not None:
        return in_hsm
    if settings.SIGNER_CA_KEY_FILE:
        return SoftwareKey(
            key_pem=read_optional(settings.SIGNER_CA_KEY_FILE),
            cert_pem=read_optional(settings.SIGNER_CA_CERT_FILE),
            chain_pem=chain,
        )
    return _development_ca(_development_dir())


def _development_dir() -> Path:
    return Path(f"{settings.SEAL_DEV_DIR}-signer-ca")


def signer_ca_roots() -> list[asn1_x509.Certificate]:
    """The roots the signer CA chains to: what /verify trusts for advanced signers. From the
    chain file when there is one (no HSM session needed); a CA that cannot be loaded adds none
    (logged). The development CA only once it exists (an advanced signer signed with it):
    verifying never makes one."""
    configured = settings.SIGNER_CA_PKCS11_MODULE or settings.SIGNER_CA_KEY_FILE
    if not configured and not (_development_dir() / DEV_KEY).exists():
        return []
    key = signer_ca_key()
    if isinstance(key, Pkcs11Key) and key.chain_pem:
        return roots_of(certificates_from_pem(key.chain_pem))
    try:
        return load_credentials(key).roots
    except SealKeyUnavailable as error:
        logger.warning("verify: the signer CA's roots are unknown (%s)", error.log_detail)
        return []


def _development_ca(directory: Path) -> SoftwareKey:
    """The development signer CA, made on first use (once for every process starting
    together)."""
    if not (directory / DEV_KEY).exists():
        if not settings.DEBUG:
            logger.warning(
                "signer CA: none is configured (SIGNER_CA_PKCS11_MODULE, SIGNER_CA_KEY_FILE); "
                "creating a DEVELOPMENT signer CA in %s.",
                directory,
            )
        key_pem, cert_pem = _development_pki(timezone.now())
        make_directory_once(directory, {DEV_KEY: key_pem, DEV_CERT: cert_pem})
    return SoftwareKey(
        key_pem=(directory / DEV_KEY).read_bytes(), cert_pem=(directory / DEV_CERT).read_bytes()
    )


def _development_pki(now: datetime) -> tuple[bytes, bytes]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, DEVELOPMENT_SIGNER_CA_NAME),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, DEVELOPMENT_ORGANIZATION),
        ]
    )
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=False,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return key_pem, certificate.public_bytes(serialization.Encoding.PEM)
