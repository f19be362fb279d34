"""What the seal is made with, as the settings name it: the key (an HSM token, or the
development key made on first use), the timestamp authorities, and the roots verification trusts.

The PKI work is esign.engine.seal_credentials and esign.engine.seal_keys; this module reads the
settings and the files they point at.
"""

from __future__ import annotations

import functools
import logging
from pathlib import Path

from asn1crypto import x509 as asn1_x509
from django.conf import settings
from django.utils import timezone

from esign.engine.errors import SealKeyUnavailable
from esign.engine.seal_credentials import Pkcs11Key, SealKey, SoftwareKey, load_credentials
from esign.engine.seal_keys import certificates_from_pem, create_development_pki, roots_of
from esign.engine.timestamps import TsaConfig
from esign.engine.trust_roles import timestamping_roots
from esign.sealing.key_settings import make_directory_once, pkcs11_key_from_settings, read_optional
from esign.sealing.signer_ca import signer_ca_roots

logger = logging.getLogger(__name__)

DEV_KEY, DEV_CERT, DEV_CA = "seal-key.pem", "seal-cert.pem", "ca-cert.pem"


def seal_key() -> SealKey:
    """The seal's key as the settings name it: an HSM token, or the development key."""
    in_hsm = pkcs11_key_from_settings("SEAL", read_optional(settings.SEAL_CERT_CHAIN_FILE))
    if in_hsm is not None:
        return in_hsm
    return _development_key(Path(settings.SEAL_DEV_DIR))


def _development_key(directory: Path) -> SoftwareKey:
    """The development key, made on first use (once for every process starting together)."""
    if not (directory / DEV_KEY).exists():
        if not settings.DEBUG:
            logger.warning(
                "seal: no HSM is configured (SEAL_PKCS11_MODULE); creating a DEVELOPMENT seal key "
                "in %s. Documents sealed with it are not trusted anywhere else.",
                directory,
            )
        pki = create_development_pki(now=timezone.now())
        make_directory_once(
            directory, {DEV_KEY: pki.key_pem, DEV_CERT: pki.cert_pem, DEV_CA: pki.ca_pem}
        )
    return SoftwareKey(
        key_pem=(directory / DEV_KEY).read_bytes(),
        cert_pem=(directory / DEV_CERT).read_bytes(),
        chain_pem=(directory / DEV_CA).read_bytes(),
    )


def tsa_config() -> TsaConfig | None:
    urls = tuple(url.strip() for url in settings.SEAL_TSA_URLS if url.strip())
    if not urls:
        return None
    return TsaConfig(urls=urls, deadline_seconds=settings.SEAL_TSA_TIMEOUT_SECONDS)


@functools.lru_cache(maxsize=4)
def _roots_in(path: str, modified: float) -> tuple[asn1_x509.Certificate, ...]:
    return tuple(certificates_from_pem(Path(path).read_bytes()))


def _roots_of_file(path: str) -> list[asn1_x509.Certificate]:
    if not path:
        return []
    return list(_roots_in(path, Path(path).stat().st_mtime))


def configured_roots() -> list[asn1_x509.Certificate]:
    """The roots of SEAL_TRUST_ROOTS_FILE and SEAL_TSA_TRUST_ROOTS_FILE: what sealing needs to
    validate its own chain and its TSAs' (to embed their validation data)."""
    roots = {
        c.sha256: c
        for c in [
            *_roots_of_file(settings.SEAL_TRUST_ROOTS_FILE),
            *_roots_of_file(settings.SEAL_TSA_TRUST_ROOTS_FILE),
        ]
    }
    return list(roots.values())


def trust_roots() -> list[asn1_x509.Certificate]:
    """Every root verification trusts, for either role: the seal's own and the configured."""
    roots = {c.sha256: c for c in [*_own_roots(), *configured_roots()]}
    return list(roots.values())


def signer_trust_roots() -> list[asn1_x509.Certificate]:
    """The roots verification trusts for document signatures: the seal's own and
    SEAL_TRUST_ROOTS_FILE's (never SEAL_TSA_TRUST_ROOTS_FILE's). Without
    SEAL_TSA_TRUST_ROOTS_FILE, the roles are kept apart all the same: a root of
    SEAL_TRUST_ROOTS_FILE that its certificates show to be a timestamp authority's
    (esign.engine.trust_roles) vouches for timestamps only."""
    configured = _roots_of_file(settings.SEAL_TRUST_ROOTS_FILE)
    if not settings.SEAL_TSA_TRUST_ROOTS_FILE:
        timestamping = {c.sha256 for c in timestamping_roots(configured)}
        configured = [c for c in configured if c.sha256 not in timestamping]
    # The signer CA's root too: what advanced signers' certificates chain to (issue 51).
    roots = {c.sha256: c for c in [*_own_roots(), *signer_ca_roots(), *configured]}
    return list(roots.values())


def tsa_trust_roots() -> list[asn1_x509.Certificate]:
    """The roots verification trusts for timestamps: SEAL_TSA_TRUST_ROOTS_FILE's when set;
    otherwise, as before it existed, the seal's own and SEAL_TRUST_ROOTS_FILE's (every one of
    them, timestamp authorities' included)."""
    if settings.SEAL_TSA_TRUST_ROOTS_FILE:
        return _roots_of_file(settings.SEAL_TSA_TRUST_ROOTS_FILE)
    roots = {c.sha256: c for c in [*_own_roots(), *_roots_of_file(settings.SEAL_TRUST_ROOTS_FILE)]}
    return list(roots.values())


def trust_roles() -> tuple[list[asn1_x509.Certificate], list[asn1_x509.Certificate]]:
    """(roots of both roles, roots kept to timestamps): with SEAL_TSA_TRUST_ROOTS_FILE, the
    roots listed in both files vouch for document signers and timestamp authorities alike;
    without it, the roots of SEAL_TRUST_ROOTS_FILE its certificates show to be a timestamp
    authority's vouch for timestamps only (both roles, before roles were kept apart)."""
    signers = _roots_of_file(settings.SEAL_TRUST_ROOTS_FILE)
    if settings.SEAL_TSA_TRUST_ROOTS_FILE:
        tsas = {c.sha256 for c in _roots_of_file(settings.SEAL_TSA_TRUST_ROOTS_FILE)}
        return [c for c in signers if c.sha256 in tsas], []
    return [], timestamping_roots(signers)


def _own_roots() -> list[asn1_x509.Certificate]:
    """The seal's own roots.

    With an HSM and SEAL_CERT_CHAIN_FILE the roots come from that file, so a web server needs
    no session on the HSM to verify; without the file they are read from the token, and an HSM
    that cannot be reached then leaves only the configured roots (logged).
    """
    key = seal_key()
    own: list[asn1_x509.Certificate] = []
    if isinstance(key, Pkcs11Key) and key.chain_pem:
        own = roots_of(certificates_from_pem(key.chain_pem))
    else:
        try:
            own = load_credentials(key).roots
        except SealKeyUnavailable as error:
            logger.warning("verify: the seal's roots are unknown (%s)", error.log_detail)
    return own
