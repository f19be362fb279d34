"""A client of the Cloud Signature Consortium API v2: remote signing with a signer's own
credential at a trust service provider (``signatureLevel: "qualified"``, issue 51).

What it does, in the order a signing needs it:

- ``authorization_url``: where to send the signer's browser to consent (OAuth 2.0 authorization
  code, scope ``service``, with PKCE S256 and a ``state`` the caller checks on return);
- ``token``: the authorization code for an access token (``oauth2/token``);
- ``credentials_list``, ``credentials_info``: the signer's credentials, and one's certificate
  chain, key status and how it is authorized (PIN, OTP);
- ``authorize``: Signature Activation Data for the given hashes (``credentials/authorize``, with
  the PIN and OTP the signer typed: SCAL2 binds the SAD to those hashes);
- ``sign_hash``: the raw signatures of those hashes (``signatures/signHash``).

Every request is a POST through the project's outbound client (core.engine.fetch.post: one
deadline per request, a capped answer, no redirects) under the caller's FetchPolicy. A CSC error
answer (HTTP 4xx with ``{"error", "error_description"}``) becomes a ``CscError`` whose ``kind``
says what the signer can do about it: ``wrong_pin`` / ``wrong_otp`` (type it again),
``sad_expired`` (authorize again), ``credential_revoked`` (another credential, or the provider),
``consent`` (the consent was refused or its code is no longer good), ``unavailable`` (the
provider did not answer: try later).

Pure Python (no Django).
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from asn1crypto import x509 as asn1_x509

from core.engine.fetch import FetchError, FetchPolicy, post

SHA256_OID = "2.16.840.1.101.3.4.2.1"
# signAlgo for an RSA key (PKCS#1 v1.5 with the hash of hashAlgorithmOID) and for ECDSA-SHA256.
RSA_OID = "1.2.840.113549.1.1.1"
ECDSA_SHA256_OID = "1.2.840.10045.4.3.2"

# The signer-facing message of each kind of failure (the caller translates it).
MESSAGES = {
    "wrong_pin": "The PIN was not accepted by your signature provider. Type it again.",
    "wrong_otp": "The one-time code was not accepted by your signature provider. "
    "Ask for a new one.",
    "sad_expired": "Your authorization to sign expired before the documents were signed. "
    "Authorize again.",
    "credential_revoked": "Your signing certificate at the provider is revoked or disabled: it "
    "cannot sign. Contact your signature provider.",
    "consent": "The signature provider did not grant access to your signing credential.",
    "no_credential": "Your signature provider holds no signing credential for you.",
    "unavailable": "Your signature provider could not be reached. Try again in a moment.",
    "refused": "Your signature provider refused to sign.",
}


class CscError(Exception):
    """A CSC request that failed; ``kind`` is a key of MESSAGES, ``detail`` the provider's
    words (for the logs)."""

    def __init__(self, kind: str, detail: str = "") -> None:
        super().__init__(MESSAGES.get(kind, MESSAGES["refused"]))
        self.kind = kind
        self.detail = detail


@dataclass(frozen=True)
class CscProvider:
    """A provider as an organization configured it: the API's base URL (``.../csc/v2``), its
    OAuth 2.0 server's base URL (the ``oauth2`` of its ``info``; default: the API's), and this
    service's client there."""

    base_url: str
    client_id: str
    client_secret: str = field(repr=False, default="")
    oauth_url: str = ""

    def url(self, method: str) -> str:
        return f"{self.base_url.rstrip('/')}/{method}"

    def oauth(self, method: str) -> str:
        return f"{(self.oauth_url or self.base_url).rstrip('/')}/oauth2/{method}"


@dataclass(frozen=True)
class Consent:
    """Where to send the browser, and what to keep until it comes back (``state`` to compare,
    ``verifier`` for PKCE)."""

    url: str
    state: str
    verifier: str = field(repr=False)


@dataclass(frozen=True)
class Credential:
    """A signing credential: its id, certificate, the rest of the chain (as the provider gives
    it), and what authorizing it takes."""

    credential_id: str
    certificate: asn1_x509.Certificate
    chain: tuple[asn1_x509.Certificate, ...]
    pin: bool
    otp: bool
    multisign: int


def authorization_url(provider: CscProvider, *, redirect_uri: str, lang: str = "") -> Consent:
    """The consent URL for the signer's browser (OAuth 2.0 authorization code, PKCE S256)."""
    state = secrets.token_urlsafe(24)
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    query = {
        "response_type": "code",
        "client_id": provider.client_id,
        "redirect_uri": redirect_uri,
        "scope": "service",
        "code_challenge": challenge.rstrip(b"=").decode(),
        "code_challenge_method": "S256",
        "state": state,
    }
    if lang:
        query["lang"] = lang
    return Consent(f"{provider.oauth('authorize')}?{urlencode(query)}", state, verifier)


def token(
    provider: CscProvider, *, code: str, verifier: str, redirect_uri: str, policy: FetchPolicy
) -> str:
    """The access token for the authorization ``code`` the browser brought back."""
    body = urlencode(
        {
            "grant_type": "authorization_code",
            "code": code,
            "client_id": provider.client_id,
            "client_secret": provider.client_secret,
            "redirect_uri": redirect_uri,
            "code_verifier": verifier,
        }
    ).encode()
    answer = _post(
        provider.oauth("token"),
        body,
        policy,
        {"Content-Type": "application/x-www-form-urlencoded"},
        failure="consent",
    )
    access = answer.get("access_token")
    if not isinstance(access, str) or not access:
        raise CscError("consent", "no access_token in the token answer")
    return access


def info(provider: CscProvider, *, policy: FetchPolicy) -> dict[str, Any]:
    """The provider's ``info``: its name, the specification version, its methods."""
    return _call(provider, "info", {}, "", policy)


def credentials_list(provider: CscProvider, access: str, *, policy: FetchPolicy) -> list[str]:
    ids = _call(provider, "credentials/list", {}, access, policy).get("credentialIDs")
    if not isinstance(ids, list) or not ids:
        raise CscError("no_credential")
    return [str(i) for i in ids]


def credentials_info(
    provider: CscProvider, access: str, credential_id: str, *, policy: FetchPolicy
) -> Credential:
    """One credential, refused (``credential_revoked``) when its key is disabled or its
    certificate is not valid."""
    answer = _call(
        provider,
        "credentials/info",
        {
            "credentialID": credential_id,
            "certificates": "chain",
            "certInfo": True,
            "authInfo": True,
        },
        access,
        policy,
    )
    key = answer.get("key") or {}
    cert = answer.get("cert") or {}
    if key.get("status") != "enabled" or cert.get("status", "valid") != "valid":
        raise CscError(
            "credential_revoked", f"key {key.get('status')}, certificate {cert.get('status')}"
        )
    try:
        certificates = [
            asn1_x509.Certificate.load(base64.b64decode(c)) for c in cert.get("certificates", [])
        ]
        certificates[0].native  # noqa: B018 - parsed now, not when signing
    except (ValueError, TypeError, IndexError) as error:
        raise CscError("refused", f"unreadable certificates: {error}") from None
    return Credential(
        credential_id=credential_id,
        certificate=certificates[0],
        chain=tuple(certificates[1:]),
        pin=str((answer.get("PIN") or {}).get("presence", "false")) == "true",
        otp=str((answer.get("OTP") or {}).get("presence", "false")) == "true",
        multisign=int(answer.get("multisign") or 1),
    )


def authorize(
    provider: CscProvider,
    access: str,
    credential: Credential,
    hashes: list[bytes],
    *,
    pin: str = "",
    otp: str = "",
    policy: FetchPolicy,
) -> str:
    """The SAD for ``hashes`` (SHA-256 digests), with the signer's PIN and OTP."""
    body: dict[str, Any] = {
        "credentialID": credential.credential_id,
        "numSignatures": len(hashes),
        "hashes": [base64.b64encode(h).decode() for h in hashes],
        "hashAlgorithmOID": SHA256_OID,
    }
    if pin:
        body["PIN"] = pin
    if otp:
        body["OTP"] = otp
    sad = _call(provider, "credentials/authorize", body, access, policy).get("SAD")
    if not isinstance(sad, str) or not sad:
        raise CscError("refused", "no SAD in the authorize answer")
    return sad


def sign_hash(
    provider: CscProvider,
    access: str,
    credential: Credential,
    sad: str,
    hashes: list[bytes],
    *,
    policy: FetchPolicy,
) -> list[bytes]:
    """The raw signature of each of ``hashes`` (PKCS#1 v1.5 for RSA, DER ECDSA for EC)."""
    algorithm = credential.certificate.public_key.algorithm
    sign_algo = RSA_OID if algorithm == "rsa" else ECDSA_SHA256_OID
    answer = _call(
        provider,
        "signatures/signHash",
        {
            "credentialID": credential.credential_id,
            "SAD": sad,
            "hashes": [base64.b64encode(h).decode() for h in hashes],
            "hashAlgorithmOID": SHA256_OID,
            "signAlgo": sign_algo,
        },
        access,
        policy,
    )
    signatures = answer.get("signatures")
    if not isinstance(signatures, list) or len(signatures) != len(hashes):
        raise CscError("refused", "signHash answered no signature for some hashes")
    return [base64.b64decode(s) for s in signatures]


def _call(
    provider: CscProvider, method: str, body: dict[str, Any], access: str, policy: FetchPolicy
) -> dict[str, Any]:
    headers = {"Content-Type": "application/json"}
    if access:
        headers["Authorization"] = f"Bearer {access}"
    return _post(provider.url(method), json.dumps(body).encode(), policy, headers)


def _post(
    url: str,
    body: bytes,
    policy: FetchPolicy,
    headers: dict[str, str],
    *,
    failure: str = "",
) -> dict[str, Any]:
    try:
        response = post(url, body, policy, headers=headers)
    except FetchError as error:
        raise CscError("unavailable", str(error)) from None
    try:
        answer = json.loads(response.body or b"{}")
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        raise CscError("unavailable", f"HTTP {response.status}, not a JSON object")
    if response.status >= 500:
        raise CscError("unavailable", f"HTTP {response.status}")
    if response.status >= 400:
        raise CscError(failure or error_kind(answer), _described(answer, response.status))
    return answer


def _described(answer: dict[str, Any], status: int) -> str:
    return f"HTTP {status} {answer.get('error')}: {answer.get('error_description')}"


def error_kind(answer: dict[str, Any]) -> str:
    """What a CSC error answer means for the signer. The specification's error object is
    ``{"error", "error_description"}``; providers name a wrong PIN or OTP, an expired SAD and a
    disabled credential in one or the other, so both are read."""
    error = str(answer.get("error", "")).lower()
    described = f"{error} {answer.get('error_description', '')}".lower()
    if "pin" in described:
        return "wrong_pin"
    if "otp" in described:
        return "wrong_otp"
    if "sad" in described and "expire" in described:
        return "sad_expired"
    if any(w in described for w in ("revoked", "disabled", "suspended")):
        return "credential_revoked"
    if error in ("invalid_grant", "access_denied", "invalid_token", "unauthorized_client"):
        return "consent"
    return "refused"
