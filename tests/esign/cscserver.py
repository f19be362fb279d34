"""A remote signing service for the tests, on 127.0.0.1: the Cloud Signature Consortium API v2
methods a signing application uses (``info``, ``oauth2/authorize`` with a consent page,
``oauth2/token``, ``credentials/list``, ``credentials/info``, ``credentials/authorize``,
``signatures/signHash``), written from the specification's description of them, with one
signer's credential: an RSA key and a certificate the seal tests' root CA issues
(tests.esign.sealpki), a PIN and a one-time code (SCAL2: the SAD is bound to the hashes it was
asked for and lives ``sad_seconds`` by the server's clock, ``now``, which tests move).

Errors, as ``{"error", "error_description"}`` with HTTP 400: a wrong PIN (``invalid_pin``), a
wrong OTP (``invalid_otp``), an expired SAD or hashes it was not granted for
(``invalid_request``), a disabled credential (``revoked = True``: ``credentials/info`` says the
key is disabled and the certificate revoked, ``credentials/authorize`` refuses).
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import secrets
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa, utils
from cryptography.x509.oid import NameOID

from tests.esign.sealpki import AnsweringHandler, crl_distribution, key_usage, shared_pki

CLIENT_ID = "esign-tests"
CLIENT_SECRET = "csc-client-secret"
PIN = "1234"
OTP = "246810"
CREDENTIAL_ID = "qes-credential-1"
SIGNER_NAME = "Grace Hopper"
SIGNER_EMAIL = "grace@example.com"


class CscTestService:
    def __init__(self) -> None:
        pki = shared_pki()
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        now = datetime.now(UTC)
        self.certificate = (
            x509.CertificateBuilder()
            .subject_name(
                x509.Name(
                    [
                        x509.NameAttribute(NameOID.COMMON_NAME, SIGNER_NAME),
                        x509.NameAttribute(NameOID.EMAIL_ADDRESS, SIGNER_EMAIL),
                        x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Local test QTSP"),
                    ]
                )
            )
            .issuer_name(pki.certificate.subject)
            .public_key(self.key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(days=1))
            .not_valid_after(now + timedelta(days=365))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(
                key_usage(digital_signature=True, content_commitment=True),
                critical=True,
            )
            .add_extension(crl_distribution(pki.crl_url), critical=False)
            .sign(pki.key, hashes.SHA256())
        )
        self.chain = [self.certificate, pki.certificate]
        self.revoked = False
        self.sad_seconds = 300
        self.now: Callable[[], datetime] = lambda: datetime.now(UTC)
        self.codes: dict[str, dict[str, str]] = {}  # code -> the authorize request's parameters
        self.tokens: set[str] = set()
        self.sads: dict[str, tuple[datetime, set[str]]] = {}  # SAD -> (expiry, hashes)
        self.calls: list[str] = []
        self.signed = 0
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.api_url = f"{self.base_url}/csc/v2"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # --- the methods -----------------------------------------------------------------------------

    def consent_page(self, query: dict[str, str]) -> str:
        hidden = "".join(
            f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
            for k, v in query.items()
        )
        return (
            '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            "<title>Local test QTSP: consent</title></head><body><main>"
            "<h1>Local test QTSP</h1>"
            f"<p>{html.escape(query.get('client_id', ''))} asks to use your signing credential "
            f"({html.escape(SIGNER_NAME)}) to sign documents.</p>"
            f'<form method="post" action="/oauth2/authorize">{hidden}'
            '<button type="submit" name="decision" value="allow">Allow</button> '
            '<button type="submit" name="decision" value="deny">Deny</button>'
            "</form></main></body></html>"
        )

    def decide(self, form: dict[str, str]) -> str:
        """The redirect back to the signing application after the consent page."""
        target = form.get("redirect_uri", "")
        separator = "&" if "?" in target else "?"
        if form.get("decision") != "allow":
            query = {"error": "access_denied", "state": form.get("state", "")}
            return f"{target}{separator}{urlencode(query)}"
        code = secrets.token_urlsafe(16)
        self.codes[code] = form
        return f"{target}{separator}{urlencode({'code': code, 'state': form.get('state', '')})}"

    def token(self, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        asked = self.codes.pop(form.get("code", ""), None)
        if asked is None or form.get("client_secret") != CLIENT_SECRET:
            return 400, {"error": "invalid_grant", "error_description": "Invalid code"}
        verifier = form.get("code_verifier", "").encode()
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).rstrip(b"=")
        if challenge.decode() != asked.get("code_challenge") or form.get(
            "redirect_uri"
        ) != asked.get("redirect_uri"):
            return 400, {"error": "invalid_grant", "error_description": "PKCE or redirect_uri"}
        access = secrets.token_urlsafe(24)
        self.tokens.add(access)
        return 200, {"access_token": access, "token_type": "Bearer", "expires_in": 3600}

    def api(self, method: str, body: dict[str, Any], bearer: str) -> tuple[int, dict[str, Any]]:
        self.calls.append(method)
        if method == "info":
            return 200, {
                "specs": "2.0.0.2",
                "name": "Local test QTSP",
                "region": "EU",
                "lang": "en-US",
                "authType": ["oauth2code"],
                "oauth2": self.base_url,
                "methods": [
                    "credentials/list",
                    "credentials/info",
                    "credentials/authorize",
                    "signatures/signHash",
                ],
            }
        if bearer not in self.tokens:
            return 401, {"error": "invalid_token", "error_description": "Invalid access token"}
        if method == "credentials/list":
            return 200, {"credentialIDs": [CREDENTIAL_ID]}
        if body.get("credentialID") != CREDENTIAL_ID:
            return 400, {"error": "invalid_request", "error_description": "Invalid credentialID"}
        if method == "credentials/info":
            der = [c.public_bytes(serialization.Encoding.DER) for c in self.chain]
            return 200, {
                "key": {
                    "status": "disabled" if self.revoked else "enabled",
                    "algo": ["1.2.840.113549.1.1.1"],
                    "len": 2048,
                },
                "cert": {
                    "status": "revoked" if self.revoked else "valid",
                    "certificates": [base64.b64encode(d).decode() for d in der],
                    "subjectDN": self.certificate.subject.rfc4514_string(),
                },
                "authMode": "explicit",
                "SCAL": "2",
                "PIN": {"presence": "true", "format": "N", "label": "PIN"},
                "OTP": {"presence": "true", "type": "offline", "format": "N", "label": "OTP"},
                "multisign": 10,
            }
        if method == "credentials/authorize":
            if self.revoked:
                return 400, {
                    "error": "invalid_request",
                    "error_description": "The credential is disabled",
                }
            if body.get("PIN") != PIN:
                return 400, {"error": "invalid_pin", "error_description": "The PIN is invalid"}
            if body.get("OTP") != OTP:
                return 400, {"error": "invalid_otp", "error_description": "The OTP is invalid"}
            sad = secrets.token_urlsafe(24)
            expiry = self.now() + timedelta(seconds=self.sad_seconds)
            self.sads[sad] = (expiry, set(body.get("hashes") or []))
            return 200, {"SAD": sad, "expiresIn": self.sad_seconds}
        if method == "signatures/signHash":
            expiry, granted = self.sads.get(body.get("SAD", ""), (None, set()))
            if expiry is None:
                return 400, {"error": "invalid_request", "error_description": "Invalid SAD"}
            if self.now() >= expiry:
                return 400, {"error": "invalid_request", "error_description": "SAD expired"}
            wanted = body.get("hashes") or []
            if not set(wanted) <= granted:
                return 400, {"error": "invalid_request", "error_description": "Hash not in SAD"}
            signatures = [
                self.key.sign(
                    base64.b64decode(h), padding.PKCS1v15(), utils.Prehashed(hashes.SHA256())
                )
                for h in wanted
            ]
            self.signed += len(signatures)
            return 200, {"signatures": [base64.b64encode(s).decode() for s in signatures]}
        return 404, {"error": "invalid_request", "error_description": f"No method {method}"}

    # --- HTTP --------------------------------------------------------------------------------

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        service = self

        class Handler(AnsweringHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                url = urlsplit(self.path)
                if url.path != "/oauth2/authorize":
                    self._answer(404, "text/plain", b"not found")
                    return
                query = {k: v[0] for k, v in parse_qs(url.query).items()}
                page = service.consent_page(query).encode()
                self._answer(200, "text/html; charset=utf-8", page)

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                path = urlsplit(self.path).path
                if path in ("/oauth2/authorize", "/oauth2/token"):
                    form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
                    if path == "/oauth2/authorize":
                        self.send_response(302)
                        self.send_header("Location", service.decide(form))
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                    status, answer = service.token(form)
                elif path.startswith("/csc/v2/"):
                    bearer = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
                    try:
                        request = json.loads(body or b"{}")
                    except ValueError:
                        request = {}
                    status, answer = service.api(path.removeprefix("/csc/v2/"), request, bearer)
                else:
                    status, answer = 404, {"error": "invalid_request"}
                self._answer(status, "application/json", json.dumps(answer).encode())

        return Handler
