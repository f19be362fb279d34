"""A test PKI for the seal tests: a root CA, its CRL and an RFC 3161 TSA served on loopback, and
a SoftHSM2 token holding the seal's key.

Everything is made once per test process (``shared_pki()``, ``softhsm_key()``): SoftHSM2 reads its
configuration (``SOFTHSM2_CONF``) when the PKCS#11 module is first loaded, so one process has one
token directory, made before anything loads the module. The key is generated inside the token by
``pkcs11-tool`` and never leaves it; the test CA issues its certificate from the public key.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
import threading
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TypeVar

import pytest
from asn1crypto import keys as asn1_keys
from asn1crypto import tsp
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from pyhanko.sign.timestamps.dummy_client import DummyTimeStamper
from pyhanko.sign.validation.policy_decl import (
    CertificateFetchingRule,
    PdfSignatureValidationSpec,
    RevinfoOnlineFetchingRule,
    RevocationInfoGatheringSpec,
    SignatureValidationSpec,
)
from pyhanko_certvalidator.context import CertValidationPolicySpec
from pyhanko_certvalidator.policy_decl import REQUIRE_REVINFO, CertRevTrustPolicy
from pyhanko_certvalidator.registry import SimpleCertificateStore, SimpleTrustManager

from esign.engine.seal_credentials import Pkcs11Key

SOFTHSM_MODULE = "/usr/lib/softhsm/libsofthsm2.so"
TOKEN_LABEL = "seal-test"
KEY_LABEL = "seal"
USER_PIN = "4711"
SO_PIN = "9876"
T = TypeVar("T")


def _name(common_name: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Seal tests"),
        ]
    )


def _pem(certificate: x509.Certificate) -> bytes:
    return certificate.public_bytes(serialization.Encoding.PEM)


def asn1(certificate: x509.Certificate) -> asn1_x509.Certificate:
    return asn1_x509.Certificate.load(certificate.public_bytes(serialization.Encoding.DER))


def root_certificate(
    key: rsa.RSAPrivateKey, common_name: str, *, not_before: datetime, not_after: datetime
) -> x509.Certificate:
    """A self-signed CA certificate of ``key``."""
    return (
        x509.CertificateBuilder()
        .subject_name(_name(common_name))
        .issuer_name(_name(common_name))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(_usage(ca=True), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False)
        .sign(key, hashes.SHA256())
    )


def leaf_builder(
    issuer: x509.Certificate,
    issuer_key: rsa.RSAPrivateKey,
    public_key: rsa.RSAPublicKey,
    common_name: str,
    *,
    not_before: datetime,
    not_after: datetime,
    usage: x509.KeyUsage | None = None,
    crl_url: str | None = None,
    ocsp_url: str | None = None,
    time_stamping: bool = False,
) -> x509.CertificateBuilder:
    """An end-entity certificate of ``issuer`` for ``public_key`` (a signing key's usage by
    default), naming the revocation sources given, a time-stamping unit's if ``time_stamping``;
    the caller signs it."""
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(common_name))
        .issuer_name(issuer.subject)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(usage or _usage(ca=False), critical=True)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), False
        )
    )
    if crl_url:
        builder = builder.add_extension(crl_distribution(crl_url), critical=False)
    if ocsp_url:
        builder = builder.add_extension(
            x509.AuthorityInformationAccess(
                [
                    x509.AccessDescription(
                        x509.oid.AuthorityInformationAccessOID.OCSP,
                        x509.UniformResourceIdentifier(ocsp_url),
                    )
                ]
            ),
            critical=False,
        )
    if time_stamping:
        builder = builder.add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.TIME_STAMPING]), critical=True
        )
    return builder


def signed_crl(
    issuer: x509.Certificate,
    key: rsa.RSAPrivateKey,
    *,
    last_update: datetime,
    next_update: datetime,
    number: int,
    revoked: list[tuple[int, datetime]],
) -> bytes:
    """A DER CRL of ``issuer`` that revokes each (serial number, from) of ``revoked``."""
    builder = (
        x509.CertificateRevocationListBuilder()
        .issuer_name(issuer.subject)
        .last_update(last_update)
        .next_update(next_update)
        .add_extension(x509.CRLNumber(number), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(key.public_key()), False)
    )
    for serial_number, date in revoked:
        builder = builder.add_revoked_certificate(
            x509.RevokedCertificateBuilder()
            .serial_number(serial_number)
            .revocation_date(date)
            .build()
        )
    return builder.sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.DER)


def init_token(label: str) -> None:
    """A SoftHSM2 token named ``label`` in the first free slot, with the tests' PINs."""
    command = ["softhsm2-util", "--init-token", "--free", "--label", label]
    command += ["--pin", USER_PIN, "--so-pin", SO_PIN]
    subprocess.run(command, check=True, capture_output=True, timeout=60)


def private_key_info(key: rsa.RSAPrivateKey) -> asn1_keys.PrivateKeyInfo:
    """The key as asn1crypto holds it (what pyHanko's DummyTimeStamper takes)."""
    return asn1_keys.PrivateKeyInfo.load(
        key.private_bytes(
            serialization.Encoding.DER,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )


def key_usage(**allowed: bool) -> x509.KeyUsage:
    """A KeyUsage extension with only the ``allowed`` uses set."""
    uses = ("digital_signature", "content_commitment", "key_encipherment", "data_encipherment")
    uses += ("key_agreement", "key_cert_sign", "crl_sign", "encipher_only", "decipher_only")
    return x509.KeyUsage(**{**dict.fromkeys(uses, False), **allowed})


def crl_distribution(url: str) -> x509.CRLDistributionPoints:
    """The extension that names ``url`` as where a certificate's CRL is published."""
    point = x509.DistributionPoint([x509.UniformResourceIdentifier(url)], None, None, None)
    return x509.CRLDistributionPoints([point])


def offline_lta_spec(roots: list) -> PdfSignatureValidationSpec:
    """pyHanko's AdES long-term validation trusting ``roots``, requiring revocation data and
    fetching nothing: it passes only on what the file carries."""
    return PdfSignatureValidationSpec(
        SignatureValidationSpec(
            cert_validation_policy=CertValidationPolicySpec(
                trust_manager=SimpleTrustManager.build(trust_roots=roots),
                revinfo_policy=CertRevTrustPolicy(REQUIRE_REVINFO),
            ),
            revinfo_gathering_policy=RevocationInfoGatheringSpec(
                online_fetching_rule=RevinfoOnlineFetchingRule.LOCAL_ONLY,
                certificate_fetching_rule=CertificateFetchingRule.NEVER_FETCH,
            ),
        )
    )


class AnsweringHandler(BaseHTTPRequestHandler):
    """What the loopback servers of the test PKIs share: a whole answer in one call, no log."""

    def _answer(self, status: int, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _time_stamp(self, body: bytes, timestamper: DummyTimeStamper, *, available: bool) -> None:
        """The TSA's answer to the time-stamp request ``body`` (a 503 while it is down)."""
        if not available:
            self._answer(503, "text/plain", b"down for maintenance")
            return
        request = tsp.TimeStampReq.load(body)
        self._answer(
            200, "application/timestamp-reply", timestamper.request_tsa_response(request).dump()
        )

    def log_message(self, *args: object) -> None:
        pass


class SealTestPki:
    """A root CA that publishes a CRL and runs a TSA, both over HTTP on 127.0.0.1."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC)
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.certificate = root_certificate(
            self.key,
            "Seal tests root CA",
            not_before=self.now - timedelta(days=1),
            not_after=self.now + timedelta(days=3650),
        )
        self.ca_pem = _pem(self.certificate)
        self.tsa_available = True
        self.tsa_requests = 0
        self.crl_requests = 0
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.crl_url = f"{self.base_url}/ca.crl"
        self.tsa_url = f"{self.base_url}/tsa"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        tsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.tsa_certificate = self.issue(
            tsa_key.public_key(), "Seal tests TSA", time_stamping=True
        )
        self.timestamper = DummyTimeStamper(
            tsa_cert=asn1(self.tsa_certificate),
            tsa_key=private_key_info(tsa_key),
            certs_to_embed=SimpleCertificateStore.from_certs([asn1(self.certificate)]),
        )
        self.crl_available = True
        self.revoked: list[x509.Certificate] = []
        self.revocation_dates: dict[int, datetime] = {}
        self.crl = self._crl()

    def _crl(self) -> bytes:
        return signed_crl(
            self.certificate,
            self.key,
            last_update=self.now - timedelta(minutes=5),
            next_update=self.now + timedelta(days=30),
            number=1 + len(self.revoked),
            revoked=self._revocation_dates(self.now - timedelta(minutes=1)),
        )

    def _revocation_dates(self, default: datetime) -> list[tuple[int, datetime]]:
        """Each revoked certificate's serial number and date (``default`` where none was set)."""
        return [
            (c.serial_number, self.revocation_dates.get(c.serial_number, default))
            for c in self.revoked
        ]

    def revoke(self, certificate: x509.Certificate, *, at: datetime | None = None) -> None:
        """Publish a CRL that revokes ``certificate``, from ``at`` (a minute before the PKI was
        made by default: before anything it issued signed)."""
        self.revoked.append(certificate)
        if at is not None:
            self.revocation_dates[certificate.serial_number] = at
        self.crl = self._crl()

    def issue(
        self, public_key: rsa.RSAPublicKey, common_name: str, *, time_stamping: bool = False
    ) -> x509.Certificate:
        """A certificate for ``public_key``, with this CA's CRL as its revocation source."""
        builder = leaf_builder(
            self.certificate,
            self.key,
            public_key,
            common_name,
            not_before=self.now - timedelta(days=1),
            not_after=self.now + timedelta(days=365),
            crl_url=self.crl_url,
            time_stamping=time_stamping,
        )
        return builder.sign(self.key, hashes.SHA256())

    def software_seal(self, *, key_size: int = 2048) -> tuple[bytes, bytes]:
        """(key PEM, certificate PEM) of a seal key held in memory, issued by this CA."""
        key = rsa.generate_private_key(public_exponent=65537, key_size=key_size)
        certificate = self.issue(key.public_key(), "Seal tests software seal")
        key_pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        return key_pem, _pem(certificate)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        pki = self

        class Handler(AnsweringHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                pki.crl_requests += 1
                if not pki.crl_available:
                    self._answer(503, "text/plain", b"down for maintenance")
                    return
                self._answer(200, "application/pkix-crl", pki.crl)

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                pki.tsa_requests += 1
                self._time_stamp(body, pki.timestamper, available=pki.tsa_available)

        return Handler


def _usage(*, ca: bool) -> x509.KeyUsage:
    return key_usage(
        digital_signature=not ca, content_commitment=not ca, key_cert_sign=ca, crl_sign=ca
    )


@functools.cache
def shared_pki() -> SealTestPki:
    return SealTestPki()


def softhsm_available() -> bool:
    return Path(SOFTHSM_MODULE).exists() and bool(
        shutil.which("softhsm2-util") and shutil.which("pkcs11-tool")
    )


def with_the_hsm_seal(test: T) -> T:
    """Marks a test that seals with the SoftHSM2 key (the hsm_seal fixture): hsm, and skipped
    where SoftHSM2 is not installed."""
    test = pytest.mark.usefixtures("hsm_seal")(test)
    test = pytest.mark.skipif(not softhsm_available(), reason="SoftHSM2 is not installed")(test)
    return pytest.mark.hsm(test)


@functools.cache
def softhsm_key() -> Pkcs11Key:
    """A SoftHSM2 token of this process with the seal's key, generated in the token, and its
    certificate and the CA's written to the token (the signer pulls the chain from there)."""
    directory = Path(tempfile.mkdtemp(prefix="softhsm-"))
    (directory / "tokens").mkdir()
    config = directory / "softhsm2.conf"
    config.write_text(
        f"directories.tokendir = {directory / 'tokens'}\nobjectstore.backend = file\n"
        "log.level = ERROR\nslots.removable = false\n"
    )
    os.environ["SOFTHSM2_CONF"] = str(config)

    def run(*command: str) -> None:
        subprocess.run(command, check=True, capture_output=True, timeout=60)

    init_token(TOKEN_LABEL)
    tool = ["pkcs11-tool", "--module", SOFTHSM_MODULE, "--token-label", TOKEN_LABEL]
    tool += ["--login", "--pin", USER_PIN]
    run(*tool, "--keypairgen", "--key-type", "rsa:2048", "--label", KEY_LABEL, "--id", "01")
    public_der = directory / "public.der"
    run(*tool, "--read-object", "--type", "pubkey", "--label", KEY_LABEL, "-o", str(public_der))
    public_key = serialization.load_der_public_key(public_der.read_bytes())
    assert isinstance(public_key, rsa.RSAPublicKey)
    pki = shared_pki()
    certificate = pki.issue(public_key, "Seal tests HSM seal")
    for label, identifier, cert in (
        (KEY_LABEL, "01", certificate),
        ("ca", "02", pki.certificate),
    ):
        path = directory / f"{label}.der"
        path.write_bytes(cert.public_bytes(serialization.Encoding.DER))
        run(
            *tool,
            "--write-object",
            str(path),
            "--type",
            "cert",
            "--label",
            label,
            "--id",
            identifier,
        )
    return Pkcs11Key(
        module=SOFTHSM_MODULE, token_label=TOKEN_LABEL, key_label=KEY_LABEL, pin=USER_PIN
    )
