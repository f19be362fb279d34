"""Test PKIs for long-term validation (issue 33), built on tests.esign.sealpki:

- ``ShortLivedPki``: a CA whose CRL and OCSP responses are fresh for a short while only (120 s
  by default, made anew for each request), whose certificates name both sources and live for
  years, and whose TSA is a separate CA's (``tsa_root``) when asked: what an ordinary PKI does
  in days, in seconds;
- ``self_made_tsa``: a TSA of a CA nobody trusts, that stamps whatever time it is told.

Everything is served on 127.0.0.1 by the parent's server; OCSP requests go to ``/ocsp``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509 import ocsp
from cryptography.x509.oid import ExtendedKeyUsageOID
from pyhanko.sign.timestamps.dummy_client import DummyTimeStamper
from pyhanko_certvalidator.registry import SimpleCertificateStore

from tests.esign.sealpki import (
    SealTestPki,
    _name,
    _usage,
    asn1,
    leaf_builder,
    private_key_info,
    root_certificate,
    signed_crl,
)


def _root(common_name: str, now: datetime) -> tuple[rsa.RSAPrivateKey, x509.Certificate]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    certificate = root_certificate(
        key, common_name, not_before=now - timedelta(days=1), not_after=now + timedelta(days=3650)
    )
    return key, certificate


class ShortLivedPki(SealTestPki):
    """Revocation data fresh for ``revocation_seconds`` after it is fetched; certificates valid
    for ``certificate_days``; they name an OCSP responder unless ``ocsp`` is False (then the
    CRL only). With ``separate_tsa`` the TSA's certificate is issued by a second
    root (``tsa_root``), so a signer's roots and a TSA's can be told apart."""

    def __init__(
        self,
        *,
        revocation_seconds: int = 120,
        certificate_days: int = 3 * 365,
        separate_tsa: bool = False,
        ocsp: bool = True,
    ) -> None:
        self.revocation_seconds = revocation_seconds
        self.with_ocsp = ocsp
        self.certificate_days = certificate_days
        self.ocsp_requests = 0
        super().__init__()
        self.ocsp_url = f"{self.base_url}/ocsp"
        # A delegated OCSP responder (id-pkix-ocsp-nocheck), as public CAs run them: a response
        # signed by the CA itself sends pyHanko's AdES time slide after the root's revocation.
        self.responder_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.responder = (
            x509.CertificateBuilder()
            .subject_name(_name("Seal tests OCSP responder"))
            .issuer_name(self.certificate.subject)
            .public_key(self.responder_key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(self.now - timedelta(days=1))
            .not_valid_after(self.now + timedelta(days=self.certificate_days))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(_usage(ca=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.OCSP_SIGNING]), True)
            .add_extension(x509.OCSPNoCheck(), critical=False)
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(self.key.public_key()), False
            )
            .sign(self.key, hashes.SHA256())
        )
        self.tsa_root: x509.Certificate = self.certificate
        tsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.tsa_key: rsa.RSAPrivateKey = self.key
        if separate_tsa:
            self.tsa_key, self.tsa_root = _root("Seal tests TSA root CA", self.now)
        self.tsa_certificate = self._issue_by(
            self.tsa_key, self.tsa_root, tsa_key.public_key(), "Seal tests TSA", time_stamping=True
        )
        self.timestamper = DummyTimeStamper(
            tsa_cert=asn1(self.tsa_certificate),
            tsa_key=private_key_info(tsa_key),
            certs_to_embed=SimpleCertificateStore.from_certs([asn1(self.tsa_root)]),
        )

    def _crl(self) -> bytes:
        now = datetime.now(UTC)
        return signed_crl(
            self.certificate,
            self.key,
            last_update=now - timedelta(seconds=1),
            next_update=now + timedelta(seconds=self.revocation_seconds),
            number=int(now.timestamp()),
            revoked=self._revocation_dates(self.now - timedelta(1)),
        )

    def issue(
        self, public_key: rsa.RSAPublicKey, common_name: str, *, time_stamping: bool = False
    ) -> x509.Certificate:
        return self._issue_by(
            self.key, self.certificate, public_key, common_name, time_stamping=time_stamping
        )

    def _issue_by(
        self,
        issuer_key: rsa.RSAPrivateKey,
        issuer: x509.Certificate,
        public_key: rsa.RSAPublicKey,
        common_name: str,
        *,
        time_stamping: bool = False,
        key_usage: x509.KeyUsage | None = None,
    ) -> x509.Certificate:
        """A certificate naming this CA's CRL and OCSP responder (a separate TSA root's
        certificates name none: their revocation is not what these tests are about)."""
        ours = issuer is self.certificate
        builder = leaf_builder(
            issuer,
            issuer_key,
            public_key,
            common_name,
            not_before=self.now - timedelta(days=1),
            not_after=self.now + timedelta(days=self.certificate_days),
            usage=key_usage,
            crl_url=self.crl_url if ours else None,
            ocsp_url=f"{self.base_url}/ocsp" if ours and self.with_ocsp else None,
            time_stamping=time_stamping,
        )
        certificate = builder.sign(issuer_key, hashes.SHA256())
        self._issued[certificate.serial_number] = certificate
        return certificate

    def key_and_certificate(
        self,
        common_name: str,
        *,
        key_usage: x509.KeyUsage | None = None,
        of_tsa_root: bool = False,
        time_stamping: bool = False,
    ) -> tuple[bytes, bytes]:
        """(key PEM, certificate PEM) of a new key, issued by the signers' root (by the TSAs'
        root with ``of_tsa_root``, which needs ``separate_tsa``)."""
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        issuer_key, issuer = (
            (self.tsa_key, self.tsa_root) if of_tsa_root else (self.key, self.certificate)
        )
        certificate = self._issue_by(
            issuer_key,
            issuer,
            key.public_key(),
            common_name,
            key_usage=key_usage,
            time_stamping=time_stamping,
        )
        return (
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            ),
            certificate.public_bytes(serialization.Encoding.PEM),
        )

    def ocsp_response(self, request_der: bytes) -> bytes:
        request = ocsp.load_der_ocsp_request(request_der)
        now = datetime.now(UTC)
        revoked = {c.serial_number: c for c in self.revoked}
        target = revoked.get(request.serial_number)
        status = ocsp.OCSPCertStatus.REVOKED if target else ocsp.OCSPCertStatus.GOOD
        # The response names the certificate by the request's hashes; the builder wants a
        # certificate, any with that serial number and issuer will do.
        subject = target or self._issued.get(request.serial_number)
        if subject is None:
            return ocsp.OCSPResponseBuilder.build_unsuccessful(
                ocsp.OCSPResponseStatus.UNAUTHORIZED
            ).public_bytes(serialization.Encoding.DER)
        builder = (
            ocsp.OCSPResponseBuilder()
            .add_response(
                cert=subject,
                issuer=self.certificate,
                algorithm=request.hash_algorithm,
                cert_status=status,
                this_update=now - timedelta(seconds=1),
                next_update=now + timedelta(seconds=self.revocation_seconds),
                revocation_time=(
                    self.revocation_dates.get(subject.serial_number, self.now - timedelta(1))
                    if target
                    else None
                ),
                revocation_reason=None,
            )
            .responder_id(ocsp.OCSPResponderEncoding.HASH, self.responder)
            .certificates([self.responder])
        )
        return builder.sign(self.responder_key, hashes.SHA256()).public_bytes(
            serialization.Encoding.DER
        )

    @property
    def _issued(self) -> dict[int, x509.Certificate]:
        return self.__dict__.setdefault("_issued_certificates", {})

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        parent = super()._handler()
        pki = self

        class Handler(parent):  # type: ignore[valid-type, misc]
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                pki.crl = pki._crl()  # fresh for each request
                super().do_GET()

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                if self.path == "/ocsp":
                    body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                    pki.ocsp_requests += 1
                    self._answer(200, "application/ocsp-response", pki.ocsp_response(body))
                    return
                super().do_POST()

        return Handler


def self_made_tsa(at: datetime) -> DummyTimeStamper:
    """A TSA of a CA of its own, nobody's root, that stamps ``at`` whatever the time."""
    now = datetime.now(UTC)
    root_key, root = _root("Self-made TSA root", min(at, now))
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(_name("Self-made TSA"))
        .issuer_name(root.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(at - timedelta(days=1))
        .not_valid_after(now + timedelta(days=365))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.TIME_STAMPING]), critical=True)
        .sign(root_key, hashes.SHA256())
    )
    return DummyTimeStamper(
        tsa_cert=asn1(certificate),
        tsa_key=private_key_info(key),
        certs_to_embed=SimpleCertificateStore.from_certs([asn1(root)]),
        fixed_dt=at,
    )
