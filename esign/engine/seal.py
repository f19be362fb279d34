"""seal_pdf: the service's own PAdES signature on a finished document (pyHanko).

A packet's documents are sealed once, after the last signer's stamps are drawn: stamping
rewrites the whole file, so a signature made before it would break. The seal is one invisible
signature by the service's certificate, ``/SubFilter /ETSI.CAdES.detached``, SHA-256:

- without a timestamp authority: PAdES-B-B. The signing time is the claimed ``signing_time``
  only (the caller's clock), written as the signature dictionary's ``/M`` (PAdES forbids the
  CMS signing-time attribute), which is all a deployment without a TSA can offer.
- with timestamp authorities (``TsaConfig``, tried in the order given): an RFC 3161 signature
  timestamp (PAdES-B-T), the validation data of the seal's and the TSA's chains in the document
  security store (B-LT) and a document timestamp over it all (B-LTA). If no TSA answers, nothing
  is produced (``TimestampUnavailable``): a document is never sealed with a made-up time.

Keys: ``SoftwareKey`` (PEM in memory: the development default) or ``Pkcs11Key`` (a key that never
leaves its HSM, used through python-pkcs11 by pyHanko's PKCS#11 signer). ``load_credentials``
keeps one logged-in session per key for the life of the process, because opening a session and
logging in costs more than the signature itself.

Timestamp requests go through ``core.engine.fetch.post``, the project's one outbound HTTP path:
one deadline for the whole exchange, a capped response, no redirects, no proxy variables. The
TSA hosts are the operator's own configuration, not request data, so they are allowed even on a
private or loopback network; nothing else is. Revocation data (OCSP, CRLs) for the long-term
validation material is fetched by pyHanko's own client from the URLs in the seal's and the TSA's
certificates: certificates the operator chose, never ones from a document a user sent.

Pure Python (no Django); the clock is the caller's.
"""

from __future__ import annotations

import asyncio
import io
import logging
import threading
from collections.abc import Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar, TypeVar
from urllib.parse import urlsplit

from asn1crypto import cms, tsp
from asn1crypto import x509 as asn1_x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.padding import PKCS1v15
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey
from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes
from pyhanko.keys import load_private_key_from_pemder_data
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.pdf_utils.misc import PdfError
from pyhanko.sign import fields, signers
from pyhanko.sign.general import SigningError
from pyhanko.sign.signers.pdf_cms import PdfCMSSignedAttributes
from pyhanko.sign.timestamps.api import TimeStamper
from pyhanko.sign.timestamps.common_utils import TimestampRequestError, handle_tsp_response
from pyhanko_certvalidator import ValidationContext
from pyhanko_certvalidator.errors import PathBuildingError, PathValidationError
from pyhanko_certvalidator.registry import SimpleCertificateStore
from pyhanko_certvalidator.util import get_pyca_cryptography_hash

from core.engine.fetch import FetchError, FetchPolicy, post
from core.engine.problems import ErrorKind
from esign.engine.errors import EsignError
from esign.engine.seal_keys import certificates_from_pem, roots_of

logger = logging.getLogger(__name__)
T = TypeVar("T")

DIGEST = "sha256"
SEAL_FIELD = "DocumentSeal"
TSA_USER_AGENT = "docautomation-seal/1"
# Room in a seal's /Contents beyond its certificates: the signature (512 bytes up to RSA 4096)
# and the signed attributes (content type, message digest, signing time, signing certificate v2:
# under 400 bytes), with ample margin.
B_B_OVERHEAD_BYTES = 4096
# Room for the signature timestamp token of a B-T (and up) seal: its TSTInfo, the TSA's
# signature and the certificates the TSA embeds. Reserved without asking the TSA for a sample
# token first (pyHanko's estimate), so each timestamp costs one request.
TIMESTAMP_TOKEN_BYTES = 32 * 1024
# The weakest keys a seal may use: RSA of at least 2048 bits (what the spec asks), or EC on a
# NIST curve of at least 256 bits; the EdDSA curves are stronger still.
MIN_RSA_BITS = 2048
EC_CURVES = frozenset({"secp256r1", "secp384r1", "secp521r1"})
EDDSA = frozenset({"ed25519", "ed448"})


def run_coroutine(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run``, also from a thread whose event loop is already running (there it runs in
    a thread of its own): pyHanko's API is asynchronous, ours is not."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


# --- errors -------------------------------------------------------------------------------------


class SealError(EsignError):
    """The document could not be sealed; ``log_detail`` says why (never document content)."""

    code = "seal_failed"
    kind: ClassVar[ErrorKind] = "internal"

    def __init__(self, message: str, *, log_detail: str | None = None) -> None:
        super().__init__(message)
        self.log_detail = log_detail


class TimestampUnavailable(SealError):
    """No timestamp authority gave a usable timestamp: retry later, never seal without one."""

    code = "timestamp_unavailable"
    kind = "unavailable"


class SealKeyUnavailable(SealError):
    """The seal's key cannot be used now: the PKCS#11 module, token, PIN, key or certificate."""

    code = "seal_key_unavailable"
    kind: ClassVar[ErrorKind] = "unavailable"


class SealKeyTooWeak(SealKeyUnavailable):
    """The seal's key is weaker than a seal may use: an operator must configure another."""

    code = "seal_key_too_weak"
    kind: ClassVar[ErrorKind] = "internal"


class ValidationDataUnavailable(SealError):
    """The long-term validation data of the seal's or the TSA's certificate chain could not be
    gathered (an untrusted TSA, an unreachable OCSP responder or CRL)."""

    code = "validation_data_unavailable"
    kind = "unavailable"


# --- keys ---------------------------------------------------------------------------------------


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
    from pyhanko.config.pkcs11 import TokenCriteria
    from pyhanko.sign.pkcs11 import PKCS11Signer, open_pkcs11_session

    chain = tuple(certificates_from_pem(key.chain_pem))
    try:
        session = open_pkcs11_session(
            key.module, token_criteria=TokenCriteria(label=key.token_label), user_pin=key.pin
        )
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


# --- timestamp authorities ----------------------------------------------------------------------


@dataclass(frozen=True)
class TsaConfig:
    """RFC 3161 timestamp authorities, tried in this order for every timestamp."""

    urls: tuple[str, ...]
    deadline_seconds: float = 10.0
    max_response_bytes: int = 256 * 1024

    def __post_init__(self) -> None:
        if not self.urls:
            raise ValueError("a TsaConfig needs at least one URL")

    @property
    def policy(self) -> FetchPolicy:
        hosts = frozenset(urlsplit(url).hostname or "" for url in self.urls) - {""}
        return FetchPolicy(
            deadline_seconds=self.deadline_seconds,
            max_bytes=self.max_response_bytes,
            allow_hosts=hosts,
            user_agent=TSA_USER_AGENT,
        )


class FallbackTimeStamper(TimeStamper):
    """pyHanko's TimeStamper over a list of TSAs: each request goes to the first that answers
    with a valid token (status granted, our nonce, our digest); every failure is remembered.

    One is meant to serve one sealing attempt (every document of a packet): a TSA that failed
    (timed out, refused, answered nonsense) is not asked again by it, so a hanging TSA costs
    one timeout per attempt, not one per timestamp. Each timestamp is one request: the last
    token stands in for pyHanko's sample token (used to size a document timestamp and to find
    the TSA's certificates for the validation data), which would otherwise cost a request.
    """

    def __init__(self, config: TsaConfig) -> None:
        super().__init__(include_nonce=True)
        self.config = config
        self.policy = config.policy
        self.failures: list[str] = []
        self.failed_urls: set[str] = set()
        self.requests = 0

    def _post(self, url: str, request: bytes) -> tsp.TimeStampResp:
        response = post(
            url,
            request,
            self.policy,
            headers={"Content-Type": "application/timestamp-query"},
        )
        if response.status != 200:
            raise TimestampRequestError(f"HTTP status {response.status}")
        if response.truncated:
            raise TimestampRequestError("the response is larger than the limit")
        return tsp.TimeStampResp.load(response.body)

    async def async_request_tsa_response(self, req: tsp.TimeStampReq) -> tsp.TimeStampResp:
        raise NotImplementedError("FallbackTimeStamper.async_timestamp asks each TSA itself")

    async def async_timestamp(self, message_digest: bytes, md_algorithm: str) -> cms.ContentInfo:
        for url in self.config.urls:
            if url in self.failed_urls:
                continue
            nonce, request = self.request_cms(message_digest, md_algorithm)
            self.requests += 1
            try:
                response = await asyncio.to_thread(self._post, url, request.dump())
                token = handle_tsp_response(response, nonce)
                self._check_imprint(token, message_digest)
            except (FetchError, TimestampRequestError, ValueError, TypeError) as error:
                # ValueError and TypeError: asn1crypto on a body that is not a TimeStampResp.
                self.failed_urls.add(url)
                self.failures.append(f"{_safe_url(url)}: {type(error).__name__}: {error}")
                logger.warning("timestamp authority %s failed: %s", _safe_url(url), error)
                continue
            # The sample token of later size estimates and TSA validation paths.
            self._register_dummy(md_algorithm, token)
            return token
        raise TimestampUnavailable(
            "No timestamp authority answered; the document is sealed once one does.",
            log_detail="; ".join(self.failures[-len(self.config.urls) :]),
        )

    @staticmethod
    def _check_imprint(token: cms.ContentInfo, message_digest: bytes) -> None:
        info = token["content"]["encap_content_info"]["content"].parsed
        if info["message_imprint"]["hashed_message"].native != message_digest:
            raise TimestampRequestError("the token is for another digest")


def _safe_url(url: str) -> str:
    """The URL without its query (it might carry a token) for logs."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


# --- sealing ------------------------------------------------------------------------------------


def seal_pdf(
    pdf: bytes,
    *,
    credentials: SealCredentials,
    signing_time: datetime,
    tsa: TsaConfig | FallbackTimeStamper | None = None,
    trust_roots: Sequence[asn1_x509.Certificate] = (),
    reason: str = "",
    location: str = "",
) -> bytes:
    """``pdf`` with the seal appended as an incremental update (the original bytes unchanged).

    signing_time: aware; the claimed signing time (the only time of a B-B seal: the
    signature's ``/M``). With ``tsa`` (the TSAs, or the ``FallbackTimeStamper`` of a sealing
    attempt that seals several documents, which remembers the TSAs that failed) the result is
    PAdES-B-LTA: ``trust_roots`` (besides the seal's own roots) are the roots the TSAs'
    certificates chain to. Raises TimestampUnavailable, ValidationDataUnavailable,
    SealKeyUnavailable or SealError.
    """
    if signing_time.tzinfo is None:
        raise ValueError("signing_time must be aware")
    if isinstance(tsa, TsaConfig):
        tsa = FallbackTimeStamper(tsa)
    timestamper = tsa
    try:
        return run_coroutine(
            _seal(pdf, credentials, signing_time, timestamper, trust_roots, reason, location)
        )
    except SealError:
        raise
    except (PathBuildingError, PathValidationError) as error:
        raise ValidationDataUnavailable(
            "The validation data of a certificate chain could not be gathered.",
            log_detail=f"{type(error).__name__}: {error}",
        ) from None
    except TimestampRequestError as error:
        raise TimestampUnavailable(
            "No timestamp authority answered.", log_detail=str(error)
        ) from None
    except SigningError as error:
        cause = error.__cause__ or error.__context__
        if isinstance(cause, TimestampUnavailable):
            raise cause from None
        if isinstance(cause, PathBuildingError | PathValidationError):
            raise ValidationDataUnavailable(
                "The validation data of a certificate chain could not be gathered.",
                log_detail=f"{type(cause).__name__}: {cause}",
            ) from None
        raise SealError("The document could not be sealed.", log_detail=str(error)) from None
    except PdfError as error:
        raise SealError("The document could not be read.", log_detail=str(error)) from None
    except RuntimeError as error:  # python-pkcs11's errors are RuntimeErrors
        if type(error).__module__.startswith("pkcs11"):
            raise SealKeyUnavailable(
                "The seal's key failed to sign.", log_detail=f"{type(error).__name__}: {error}"
            ) from None
        raise


async def _seal(
    pdf: bytes,
    credentials: SealCredentials,
    signing_time: datetime,
    timestamper: FallbackTimeStamper | None,
    trust_roots: Sequence[asn1_x509.Certificate],
    reason: str,
    location: str,
) -> bytes:
    long_term = timestamper is not None
    context: ValidationContext | None = None
    if long_term:
        roots = {c.sha256: c for c in [*credentials.roots, *trust_roots]}
        context = ValidationContext(
            trust_roots=list(roots.values()),
            other_certs=list(credentials.chain),
            allow_fetching=True,
            # A CRL or OCSP responder that cannot be reached fails the attempt (it is retried
            # later): the seal must carry the revocation data its level promises.
            revocation_mode="hard-fail",
        )
    meta = signers.PdfSignatureMetadata(
        field_name=SEAL_FIELD,
        md_algorithm=DIGEST,
        subfilter=fields.SigSeedSubFilter.PADES,
        reason=reason or None,
        location=location or None,
        embed_validation_info=long_term,
        use_pades_lta=long_term,
        validation_context=context,
    )
    try:
        writer = IncrementalPdfFileWriter(io.BytesIO(pdf), strict=False)
        signer = signers.PdfSigner(meta, signer=credentials.signer, timestamper=timestamper)
        # pyHanko's sign_pdf, step by step, so that the claimed signing time is the caller's.
        session = signer.init_signing_session(writer)
        session.system_time = signing_time
        if timestamper is not None and not timestamper._dummy_response_cache:
            # Before this attempt's first timestamp, pyHanko would ask the TSA for a sample
            # token to find its certificates; they are found in the real token instead, whose
            # validation data joins the document security store with the document timestamp.
            session.timestamper = None
            validation = await session.perform_presign_validation(writer)
            session.timestamper = timestamper
        else:
            validation = await session.perform_presign_validation(writer)
        # pyHanko would estimate by building and signing a dummy CMS object (and, with a TSA,
        # by asking for a sample token): as costly as the real ones. The CMS object is the
        # certificates, the signature, a few attributes and, with a TSA, the timestamp token,
        # so a reservation from their sizes is exact enough. Counted in hexadecimal digits, as
        # /Contents holds it.
        embedded = {
            c.sha256: c for c in [credentials.certificate, *credentials.signer.cert_registry]
        }
        reserved_bytes = sum(len(c.dump()) for c in embedded.values()) + B_B_OVERHEAD_BYTES
        if long_term:
            reserved_bytes += TIMESTAMP_TOKEN_BYTES
        reserved = 2 * reserved_bytes
        document = session.prepare_tbs_document(validation_info=validation, bytes_reserved=reserved)
        prepared, output = document.digest_tbs_document()
        attributes: dict[str, Any] = {"signing_time": signing_time}
        if validation is not None:
            attributes["adobe_revinfo_attr"] = validation.adobe_revinfo_attr
        signed = await document.perform_signature(
            document_digest=prepared.document_digest,
            pdf_cms_signed_attrs=PdfCMSSignedAttributes(**attributes),
        )
        await signed.post_signature_processing(output)
        output.seek(0)
        return bytes(output.read())
    finally:
        if context is not None:
            await context.aclose()  # the HTTP session pyHanko opened for revocation data
