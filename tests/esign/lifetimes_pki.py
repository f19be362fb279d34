"""A test PKI whose lifetimes the test chooses, for seals that must outlive them: a root CA, a CRL
that goes stale after ``crl_lifetime``, timestamp authorities whose certificates expire (a new
one can replace the current, as a real TSA rolls its key), and an OCSP responder that answers
properly or with junk. Everything is served over HTTP on 127.0.0.1.

tests/esign/sealpki.py's PKI lives for years and is shared by the process; this one is made per
test (``LifetimesPki()``) and stopped with ``close()``.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import io
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from asn1crypto import core as asn1_core
from asn1crypto import ocsp
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509 import ocsp as x509_ocsp
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.ades.report import AdESStatus
from pyhanko.sign.timestamps.dummy_client import DummyTimeStamper
from pyhanko.sign.validation.ades import ades_lta_validation
from pyhanko_certvalidator.ltv.types import ValidationTimingInfo
from pyhanko_certvalidator.registry import SimpleCertificateStore

from tests.esign.sealpki import (
    AnsweringHandler,
    _pem,
    asn1,
    leaf_builder,
    offline_lta_spec,
    private_key_info,
    root_certificate,
    signed_crl,
)


def _key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


class LifetimesPki:
    """A root CA valid for 30 years, its CRL (valid ``crl_lifetime`` from when it is published),
    a TSA whose certificate lives ``tsa_lifetime`` and, with ``ocsp``, an OCSP responder named
    in the certificates it issues (``ocsp_mode``: "good", or "junk" for a body that is no OCSP
    response at all)."""

    def __init__(
        self,
        *,
        crl_lifetime: timedelta = timedelta(days=7),
        tsa_lifetime: timedelta = timedelta(days=90),
        ocsp: bool = False,
    ) -> None:
        self.now = datetime.now(UTC)
        # How far ahead of the real clock the CA and the TSA live: a test that moves time moves
        # this too, so that what they publish "later" is dated later.
        self.offset = timedelta(0)
        self.crl_lifetime = crl_lifetime
        self.key = _key()
        self.certificate = root_certificate(
            self.key,
            "Lifetimes root CA",
            not_before=self.now - timedelta(days=1),
            not_after=self.now + timedelta(days=30 * 365),
        )
        self.ca_pem = _pem(self.certificate)
        self.root = asn1(self.certificate)
        self.ocsp_mode = "good"
        self.tsa_available = True
        self.ocsp_requests = 0
        self.crl_requests = 0
        self.revoked: dict[int, datetime] = {}
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.crl_url = f"{self.base_url}/ca.crl"
        self.tsa_url = f"{self.base_url}/tsa"
        self.ocsp_url = f"{self.base_url}/ocsp" if ocsp else ""
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.tsa_certificate: x509.Certificate
        self.timestamper: DummyTimeStamper
        self.new_tsa(tsa_lifetime)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def new_tsa(self, lifetime: timedelta) -> x509.Certificate:
        """Make the TSA sign with a new key and a certificate valid for ``lifetime`` from now."""
        key = _key()
        now = self.clock()
        self.tsa_certificate = self.issue(
            key.public_key(),
            "Lifetimes TSA",
            not_before=now - timedelta(minutes=5),
            not_after=now + lifetime,
            time_stamping=True,
        )
        self.timestamper = DummyTimeStamper(
            tsa_cert=asn1(self.tsa_certificate),
            tsa_key=private_key_info(key),
            certs_to_embed=SimpleCertificateStore.from_certs([self.root]),
            fixed_dt=now if self.offset else None,
        )
        return self.tsa_certificate

    def clock(self) -> datetime:
        return datetime.now(UTC) + self.offset

    def move(self, by: timedelta) -> None:
        """Move the CA's and the TSA's clock ``by`` ahead of the real one."""
        self.offset = by
        self.timestamper.fixed_dt = self.clock() if by else None

    def issue(
        self,
        public_key: rsa.RSAPublicKey,
        common_name: str,
        *,
        not_before: datetime | None = None,
        not_after: datetime | None = None,
        time_stamping: bool = False,
    ) -> x509.Certificate:
        """A certificate for ``public_key`` naming this CA's CRL (and OCSP responder, if any)."""
        builder = leaf_builder(
            self.certificate,
            self.key,
            public_key,
            common_name,
            not_before=not_before or self.now - timedelta(days=1),
            not_after=not_after or self.now + timedelta(days=20 * 365),
            crl_url=self.crl_url,
            ocsp_url=self.ocsp_url,
            time_stamping=time_stamping,
        )
        return builder.sign(self.key, hashes.SHA256())

    def software_seal(self) -> tuple[bytes, bytes, x509.Certificate]:
        """(key PEM, certificate PEM, certificate) of a seal key in memory issued by this CA."""
        key = _key()
        certificate = self.issue(key.public_key(), "Lifetimes seal")
        key_pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        return key_pem, _pem(certificate), certificate

    def use_for_seals(self, settings: Any, directory: Path) -> x509.Certificate:
        """Make the service seal with a software key of this PKI (the development key's files
        in ``directory``) and timestamp with its TSA; returns the seal's certificate."""
        key_pem, cert_pem, certificate = self.software_seal()
        directory.mkdir()
        (directory / "seal-key.pem").write_bytes(key_pem)
        (directory / "seal-cert.pem").write_bytes(cert_pem)
        (directory / "ca-cert.pem").write_bytes(self.ca_pem)
        settings.SEAL_DEV_DIR = directory
        settings.SEAL_TSA_URLS = [self.tsa_url]
        return certificate

    def revoke(self, certificate: x509.Certificate) -> None:
        """Revoke ``certificate`` from a minute ago, in the CRL and the OCSP answers."""
        self.revoked[certificate.serial_number] = self.clock() - timedelta(minutes=1)

    def crl(self) -> bytes:
        """The CRL as published now: valid ``crl_lifetime`` from now."""
        now = self.clock()
        return signed_crl(
            self.certificate,
            self.key,
            last_update=now - timedelta(minutes=5),
            next_update=now + self.crl_lifetime,
            number=int(now.timestamp() * 1000),
            revoked=list(self.revoked.items()),
        )

    def ocsp_response(self, body: bytes) -> bytes:
        """The answer to an OCSP request, signed by the CA itself."""
        if self.ocsp_mode == "junk":
            # DER that is not an OCSPResponse.
            return asn1_core.OctetString(b"not an OCSP response").dump()
        if self.ocsp_mode == "text":
            return b"<html>Service unavailable</html>"
        if self.ocsp_mode == "truncated":
            good = self.ocsp_response_for(body)
            return good[: len(good) // 2]
        if self.ocsp_mode == "junk-inside":
            # A successful OCSPResponse whose basic response is garbage: asn1crypto parses
            # lazily, so it fails only once pyHanko looks inside.
            junk = asn1_core.ParsableOctetString(b"\x30\x03\x02\x01\xff-junk")
            answer = ocsp.ResponseBytes({"response_type": "basic_ocsp_response", "response": junk})
            return ocsp.OCSPResponse(
                {"response_status": "successful", "response_bytes": answer}
            ).dump()
        return self.ocsp_response_for(body)

    def ocsp_response_for(self, body: bytes) -> bytes:
        request = x509_ocsp.load_der_ocsp_request(body)
        now = self.clock()
        revoked_at = self.revoked.get(request.serial_number)
        status = (
            x509_ocsp.OCSPCertStatus.REVOKED
            if revoked_at is not None
            else x509_ocsp.OCSPCertStatus.GOOD
        )
        response = (
            x509_ocsp.OCSPResponseBuilder()
            .add_response_by_hash(
                issuer_name_hash=request.issuer_name_hash,
                issuer_key_hash=request.issuer_key_hash,
                serial_number=request.serial_number,
                algorithm=request.hash_algorithm,
                cert_status=status,
                this_update=now - timedelta(minutes=5),
                next_update=now + self.crl_lifetime,
                revocation_time=revoked_at,
                revocation_reason=None,
            )
            .responder_id(x509_ocsp.OCSPResponderEncoding.HASH, self.certificate)
            .sign(self.key, hashes.SHA256())
        )
        return response.public_bytes(serialization.Encoding.DER)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        pki = self

        class Handler(AnsweringHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                pki.crl_requests += 1
                self._answer(200, "application/pkix-crl", pki.crl())

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.path == "/ocsp":
                    pki.ocsp_requests += 1
                    self._answer(200, "application/ocsp-response", pki.ocsp_response(body))
                    return
                self._time_stamp(body, pki.timestamper, available=pki.tsa_available)

        return Handler


def ocsp_is_parsed(body: bytes) -> bool:
    """Whether asn1crypto reads ``body`` as an OCSP response (a test's sanity check)."""
    try:
        ocsp.OCSPResponse.load(body).native  # noqa: B018 - parsing is the point
    except ValueError:
        return False
    return True


# The modules whose ``datetime.now()`` pyHanko's long-term validation reads: a validation "at"
# a future moment still takes some times from the real clock (the initial control time of past
# validation, the proof of existence of what nothing proves), so the clock itself is moved.
_PYHANKO_CLOCK_MODULES = (
    "pyhanko.sign.validation.ades",
    "pyhanko_certvalidator.ltv.poe",
    "pyhanko_certvalidator.ltv.ades_past",
    "pyhanko_certvalidator.ltv.types",
    "pyhanko_certvalidator.context",
)


@contextlib.contextmanager
def pyhanko_clock(at: datetime) -> Iterator[None]:
    """pyHanko's validation reads ``at`` as the current time."""

    class Moved(datetime):
        @classmethod
        def now(cls, tz=None):  # type: ignore[no-untyped-def,override]
            return at.astimezone(tz) if tz else at.replace(tzinfo=None)

    patched = []
    for name in _PYHANKO_CLOCK_MODULES:
        module = importlib.import_module(name)
        if getattr(module, "datetime", None) is datetime:
            module.datetime = Moved  # type: ignore[attr-defined]
            patched.append(module)
    try:
        yield
    finally:
        for module in patched:
            module.datetime = datetime  # type: ignore[attr-defined]


def long_term_validation_at(pdf: bytes, roots: list, at: datetime) -> object:
    """pyHanko's PAdES long-term (LTA) validation of the file's first signature at the moment
    ``at``, offline: revocation data required, nothing fetched, only what the file carries."""
    signature = PdfFileReader(io.BytesIO(pdf)).embedded_regular_signatures[0]
    spec = offline_lta_spec(roots)
    timing = ValidationTimingInfo(
        validation_time=at, best_signature_time=at, point_in_time_validation=False
    )
    with pyhanko_clock(at):
        result = asyncio.run(ades_lta_validation(signature, spec, timing_info=timing))
    return result.ades_subindic


def passed(subindication: object) -> bool:
    return getattr(subindication, "status", None) == AdESStatus.PASSED
