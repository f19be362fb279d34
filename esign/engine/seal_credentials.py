"""The seal's key, loaded for signing: ``SoftwareKey`` (PEM in memory: the development default)
or ``Pkcs11Key`` (a key that never leaves its HSM, used through python-pkcs11 by pyHanko's
PKCS#11 signer). ``load_credentials`` keeps one logged-in session per key for the life of the
process, because opening a session and logging in costs more than the signature itself; a key
weaker than a seal may use is refused.

Pure Python (no Django).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any

from asn1crypto import x509 as asn1_x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.padding import PKCS1v15
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey
from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes
from pyhanko.keys import load_private_key_from_pemder_data
from pyhanko.sign import signers
from pyhanko.sign.general import SigningError
from pyhanko_certvalidator.registry import SimpleCertificateStore
from pyhanko_certvalidator.util import get_pyca_cryptography_hash

from esign.engine.errors import SealKeyTooWeak, SealKeyUnavailable
from esign.engine.seal_keys import certificates_from_pem, roots_of

logger = logging.getLogger(__name__)

# The weakest keys a seal may use: RSA of at least 2048 bits (what the spec asks), or EC on a
# NIST curve of at least 256 bits; the EdDSA curves are stronger still.
MIN_RSA_BITS = 2048
EC_CURVES = frozenset({"secp256r1", "secp384r1", "secp521r1"})
EDDSA = frozenset({"ed25519", "ed448"})


@dataclass(frozen=True)
class SoftwareKey:
    """A private key held in memory (PEM, PKCS#8 or traditional), with its certificate and the
    certificates of its issuers (PEM bundle, root included)."""

    key_pem: bytes = field(repr=False)
    cert_pem: bytes
    chain_pem: bytes = b""


@dataclass(frozen=True)
class Pkcs11Key:
    """A key on a PKCS#11 token: the module (a shared library path), the token's label, the
    key's label, the user PIN, the certificate's label on the token (default: the key's) and
    the issuers' certificates (PEM bundle; empty: every other certificate on the token)."""

    module: str
    token_label: str
    key_label: str
    pin: str = field(repr=False)
    cert_label: str = ""
    chain_pem: bytes = b""


SealKey = SoftwareKey | Pkcs11Key


@dataclass
class SealCredentials:
    """A loaded key: pyHanko's signer, the seal's certificate and its issuers."""

    signer: signers.Signer
    certificate: asn1_x509.Certificate
    chain: tuple[asn1_x509.Certificate, ...]

    @property
    def subject(self) -> str:
        return str(self.certificate.subject.human_friendly)

    @property
    def roots(self) -> list[asn1_x509.Certificate]:
        """The self-signed certificates of the chain: what verification trusts by default."""
        return roots_of([self.certificate, *self.chain])


def check_key_strength(certificate: asn1_x509.Certificate) -> None:
    """Refuse a seal certificate whose key is weaker than RSA 2048 or EC P-256
    (SealKeyTooWeak, which says what the key is)."""
    public_key = certificate.public_key
    algorithm = public_key.algorithm
    if algorithm == "rsa" and public_key.bit_size >= MIN_RSA_BITS:
        return
    if algorithm == "ec" and public_key.curve[1] in EC_CURVES:
        return
    if algorithm in EDDSA:
        return
    what = f"RSA of {public_key.bit_size} bits" if algorithm == "rsa" else algorithm.upper()
    if algorithm == "ec":
        what = f"EC on the curve {public_key.curve[1]}"
    raise SealKeyTooWeak(
        f"The seal's key is {what}: a seal needs RSA of at least {MIN_RSA_BITS} bits or EC on"
        " P-256, P-384 or P-521. Configure a stronger key.",
        log_detail=f"seal certificate {certificate.subject.human_friendly}: {what}",
    )


_credentials: dict[SealKey, SealCredentials] = {}
_credentials_lock = threading.Lock()


def load_credentials(key: SealKey) -> SealCredentials:
    """The credentials of ``key``, loaded once per process (a PKCS#11 session stays open).

    Raises SealKeyUnavailable when the key cannot be loaded; after a failed seal, call
    ``forget_credentials`` so that the next attempt opens a fresh session.
    """
    with _credentials_lock:
        loaded = _credentials.get(key)
        if loaded is None:
            loaded = _load(key)
            try:
                check_key_strength(loaded.certificate)
            except SealKeyUnavailable:
                _close(key, loaded)
                raise
            _credentials[key] = loaded
        return loaded


def forget_credentials(key: SealKey) -> None:
    with _credentials_lock:
        loaded = _credentials.pop(key, None)
    if loaded is not None:
        _close(key, loaded)


def _close(key: SealKey, loaded: SealCredentials) -> None:
    if isinstance(key, Pkcs11Key):
        session = getattr(loaded.signer, "pkcs11_session", None)
        try:
            if session is not None:
                session.close()
        except Exception:  # noqa: BLE001 - a session that is already gone is what we wanted
            logger.debug("the PKCS#11 session was already closed", exc_info=True)


def _load(key: SealKey) -> SealCredentials:
    if isinstance(key, SoftwareKey):
        try:
            certificate = certificates_from_pem(key.cert_pem)[0]
            chain = tuple(certificates_from_pem(key.chain_pem))
            private_key = load_private_key_from_pemder_data(key.key_pem, passphrase=None)
        except (ValueError, TypeError, IndexError) as error:
            raise SealKeyUnavailable(
                "The seal's key or certificate cannot be read.", log_detail=str(error)
            ) from None
        signer = _SoftwareSigner(
            signing_cert=certificate,
            signing_key=private_key,
            cert_registry=SimpleCertificateStore.from_certs(chain),
        )
        return SealCredentials(signer, certificate, chain)
    return _load_pkcs11(key)


class _SoftwareSigner(signers.SimpleSigner):
    """pyHanko's SimpleSigner with the private key parsed once, not at every signature (parsing
    and checking an RSA key costs far more than signing with it)."""

    _loaded: PrivateKeyTypes | None = None

    def sign_raw(self, data: bytes, digest_algorithm: str) -> bytes:
        mechanism = self.get_signature_mechanism_for_digest(digest_algorithm)
        try:
            pkcs1v15 = mechanism.signature_algo == "rsassa_pkcs1v15"
        except ValueError:  # algorithms asn1crypto cannot name (EdDSA...): pyHanko's own way
            pkcs1v15 = False
        if self._loaded is None:
            self._loaded = serialization.load_der_private_key(
                self.signing_key.dump(), password=None
            )
        if not (pkcs1v15 and isinstance(self._loaded, RSAPrivateKey)):
            return bytes(super().sign_raw(data, digest_algorithm))
        return self._loaded.sign(data, PKCS1v15(), get_pyca_cryptography_hash(digest_algorithm))


def _load_pkcs11(key: Pkcs11Key) -> SealCredentials:
    # Imported here: python-pkcs11 loads a native extension, needless for the software key.
    from pkcs11 import PKCS11Error as TokenError
    from pyhanko.sign.pkcs11 import PKCS11Signer

    chain = tuple(certificates_from_pem(key.chain_pem))
    try:
        session = _open_session(key)
        signer = PKCS11Signer(
            session,
            cert_label=key.cert_label or key.key_label,
            key_label=key.key_label,
            ca_chain=chain,
            # Without a chain in the configuration, the issuers come from the token itself.
            other_certs_to_pull=() if chain else None,
        )
        certificate = signer.signing_cert  # loads the key and the certificates now
        if not chain:
            chain = tuple(
                c for c in signer.cert_registry if c.issuer_serial != certificate.issuer_serial
            )
    except (TokenError, SigningError, OSError, RuntimeError) as error:
        raise SealKeyUnavailable(
            "The seal's key cannot be used (PKCS#11).",
            log_detail=f"{type(error).__name__}: {error}",
        ) from None
    return SealCredentials(signer, certificate, chain)


def _open_session(key: Pkcs11Key) -> Any:
    """A logged-in session on the key's token (called with _credentials_lock held). A PKCS#11
    library lists its slots and tokens when it is initialized, once per process: a token it did
    not see then (an HSM that came back, a token made after the library was loaded, a SoftHSM2
    store read while another process wrote it) stays invisible, and every seal of the process
    would fail. So when no token matches, the library is initialized again and the token looked
    for once more."""
    from pkcs11 import PKCS11Error as TokenError
    from pkcs11 import lib as pkcs11_lib
    from pyhanko.config.pkcs11 import TokenCriteria
    from pyhanko.sign.pkcs11 import open_pkcs11_session

    def attempt() -> Any:
        return open_pkcs11_session(
            key.module, token_criteria=TokenCriteria(label=key.token_label), user_pin=key.pin
        )

    try:
        return attempt()
    except TokenError as missing:
        if "No token matching" not in str(missing):
            raise
        logger.warning("PKCS#11: no token %r; initializing the library again", key.token_label)
        pkcs11_lib(key.module).reinitialize()
        # Every session the library had is gone with it: the credentials loaded through it are
        # forgotten (the caller holds _credentials_lock), to be loaded again when next used.
        for stale in [
            k for k in _credentials if isinstance(k, Pkcs11Key) and k.module == key.module
        ]:
            del _credentials[stale]
        return attempt()
