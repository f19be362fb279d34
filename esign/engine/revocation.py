"""Revocation data: which counts (`authentic_revocation_data`), and fetching it for a seal's
long-term validation material, where an answer that cannot be read counts as no answer.

A file's document security store is anybody's to append to: a CRL or OCSP response in it counts
only when its signature chains to the certificate's issuer, a CRL signed by the issuer, an OCSP
response by the issuer or a responder it delegated (id-kp-OCSPSigning). Anything else (a
"CRL" naming the issuer, signed by another key) is left out before validation sees it: pyHanko
fails a path on a CRL whose signature does not verify, so one forged CRL appended in a DSS update
turned a trusted signature into an untrusted one. Where several certificates carry the issuer's
name, the ones that chain to a trusted root are the issuer.

pyHanko's fetchers turn an unreachable OCSP responder or CRL into a fetch error, and the
validation then uses the certificate's other revocation source. But a responder that answers
with junk (a body asn1crypto parses lazily and fails on later, deep inside) raised a ValueError
through the whole seal instead: one broken OCSP responder blocked every seal even with its CA's
CRL reachable. ``revocation_fetchers()`` wraps pyHanko's default fetchers so that such an answer
is a fetch error like any other: the CRL is used, and only when no source gives usable data does
the seal fail (``ValidationDataUnavailable``, in hard-fail mode).

Pure Python (no Django).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
import ssl
from collections.abc import Awaitable, Iterable
from typing import Any, TypeAlias

import aiohttp
import certifi
import requests
from asn1crypto import cms, crl, ocsp
from asn1crypto import x509 as asn1_x509
from cryptography.exceptions import InvalidSignature
from pyhanko_certvalidator.authority import Authority
from pyhanko_certvalidator.errors import CRLFetchError, OCSPFetchError
from pyhanko_certvalidator.fetchers import FetcherBackend, Fetchers
from pyhanko_certvalidator.fetchers.aiohttp_fetchers import AIOHttpFetcherBackend, LazySession
from pyhanko_certvalidator.fetchers.api import CRLFetcher, OCSPFetcher, OwnedFetcherBackend
from pyhanko_certvalidator.fetchers.common_utils import FetchBudget, FetchLimits
from pyhanko_certvalidator.fetchers.requests_fetchers import (
    RequestsCertificateFetcher,
    RequestsCRLFetcher,
    RequestsOCSPFetcher,
)
from pyhanko_certvalidator.sig_validate import DefaultSignatureValidator

from core.engine.fetch import FetchError, FetchPolicy, fetch, post

logger = logging.getLogger(__name__)

Certificate: TypeAlias = asn1_x509.Certificate | cms.AttributeCertificateV2


def _readable(response: ocsp.OCSPResponse) -> bool:
    """Whether every part of ``response`` that validation reads can be parsed."""
    try:
        response.native  # noqa: B018 - parsing is the point
        if response["response_status"].native == "successful":
            response.basic_ocsp_response.native  # noqa: B018 - the lazily parsed inner response
    except (ValueError, TypeError, KeyError) as error:
        logger.warning("an OCSP responder answered with an unreadable response: %s", error)
        return False
    return True


class _ReadableOcspFetcher(OCSPFetcher):
    def __init__(self, inner: OCSPFetcher) -> None:
        self._inner = inner

    async def fetch(self, cert: Certificate, authority: Authority) -> ocsp.OCSPResponse:
        try:
            response = await self._inner.fetch(cert, authority)
        except (ValueError, TypeError) as error:  # asn1crypto, reading a junk answer
            raise OCSPFetchError(f"Unreadable OCSP response: {error}") from error
        if not _readable(response):
            raise OCSPFetchError("Unreadable OCSP response")
        return response

    def fetched_responses(self) -> Iterable[ocsp.OCSPResponse]:
        return [r for r in self._inner.fetched_responses() if _readable(r)]

    def fetched_responses_for_cert(self, cert: Certificate) -> Iterable[ocsp.OCSPResponse]:
        return [r for r in self._inner.fetched_responses_for_cert(cert) if _readable(r)]


class _ReadableCrlFetcher(CRLFetcher):
    def __init__(self, inner: CRLFetcher) -> None:
        self._inner = inner

    async def fetch(
        self, cert: Certificate, *, use_deltas: bool | None = None
    ) -> Iterable[crl.CertificateList]:
        try:
            return await self._inner.fetch(cert, use_deltas=use_deltas)
        except (ValueError, TypeError) as error:  # asn1crypto, reading a junk answer
            raise CRLFetchError(f"Unreadable CRL: {error}") from error

    def fetched_crls(self) -> Iterable[crl.CertificateList]:
        return self._inner.fetched_crls()

    def fetched_crls_for_cert(self, cert: Certificate) -> Iterable[crl.CertificateList]:
        return self._inner.fetched_crls_for_cert(cert)


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """The TLS context of every seal's revocation fetches in this process (a context is safe to
    share between connections, threads and event loops)."""
    return ssl.create_default_context(cafile=certifi.where())


class _Session(LazySession):
    """pyHanko's lazy session (made on the first fetch, closed with the seal's validation
    context, as a session belongs to the event loop that made it), on the process's one TLS
    context. pyHanko's own made a context per seal, reading certifi's bundle each time: 90 ms of
    CPU a seal at load, more than half of a PAdES-B-LTA seal's CPU (bench/seal.py)."""

    def __init__(self) -> None:
        super().__init__()
        self._made: aiohttp.ClientSession | None = None

    def get_session(self) -> aiohttp.ClientSession:
        if self._made is None:
            self._made = aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=_tls_context()))
        return self._made

    async def close(self) -> None:
        made, self._made = self._made, None
        if made is not None:
            await made.close()


class _ReadableFetcherBackend(FetcherBackend):
    def __init__(self) -> None:
        self._inner = AIOHttpFetcherBackend(session=_Session())  # type: ignore[arg-type]

    def get_fetchers(self) -> Fetchers:
        fetchers = self._inner.get_fetchers()
        return Fetchers(
            ocsp_fetcher=_ReadableOcspFetcher(fetchers.ocsp_fetcher),
            crl_fetcher=_ReadableCrlFetcher(fetchers.crl_fetcher),
            cert_fetcher=fetchers.cert_fetcher,
        )

    async def close(self) -> None:
        await self._inner.close()


def revocation_fetchers() -> OwnedFetcherBackend:
    """Fetchers for a ValidationContext (``fetcher_backend=``), closed with the context."""
    return OwnedFetcherBackend(_ReadableFetcherBackend())


class _GuardedResponse:
    """What pyHanko's requests fetchers read of a response: its body and its headers."""

    def __init__(self, content: bytes, content_type: str) -> None:
        self.content = content
        self.headers = {"Content-Type": content_type}
        self.status_code = 200


class _GuardedHttp:
    """pyHanko's requests fetchers' two HTTP calls, made by the project's one outbound client
    (core.engine.fetch: its address guard, one deadline, a size cap) instead of ``requests``:
    a URL in a certificate is named by whoever made the file, so a private or loopback
    address is refused unless the policy allows it."""

    policy: FetchPolicy

    def _get(self, url: str, *, acceptable_content_types: Iterable[str]) -> Awaitable[Any]:
        def task() -> _GuardedResponse:
            try:
                fetched = fetch(url, self.policy)
            except FetchError as error:
                raise requests.RequestException(f"{error.code}: {error.message}") from error
            return _GuardedResponse(fetched.data, fetched.content_type)

        return asyncio.to_thread(task)

    def _post(
        self, url: str, data: bytes, *, content_type: str, acceptable_content_types: Iterable[str]
    ) -> Awaitable[Any]:
        def task() -> _GuardedResponse:
            headers = {"Content-Type": content_type, "Accept": ",".join(acceptable_content_types)}
            try:
                answer = post(url, data, self.policy, headers=headers)
            except FetchError as error:
                raise requests.RequestException(f"{error.code}: {error.message}") from error
            if answer.status != 200 or answer.truncated:
                raise requests.RequestException(f"status {answer.status}")
            return _GuardedResponse(answer.body, answer.header("Content-Type") or "")

        return asyncio.to_thread(task)


class _GuardedOcspFetcher(_GuardedHttp, RequestsOCSPFetcher):
    def __init__(self, policy: FetchPolicy, budget: FetchBudget) -> None:
        super().__init__(per_request_timeout=policy.deadline_seconds, budget=budget)
        self.policy = policy


class _GuardedCrlFetcher(_GuardedHttp, RequestsCRLFetcher):
    def __init__(self, policy: FetchPolicy, budget: FetchBudget) -> None:
        super().__init__(per_request_timeout=policy.deadline_seconds, budget=budget)
        self.policy = policy


class _GuardedCertificateFetcher(_GuardedHttp, RequestsCertificateFetcher):
    def __init__(self, policy: FetchPolicy, budget: FetchBudget) -> None:
        super().__init__(per_request_timeout=policy.deadline_seconds, budget=budget)
        self.policy = policy


def guarded_revocation_fetchers(policy: FetchPolicy) -> Fetchers:
    """Fetchers (a ValidationContext's ``fetchers=``) whose every request goes through
    core.engine.fetch under ``policy``: the verifier's opt-in online revocation check.
    Unreadable answers count as none. Nothing to close: each request is its own connection."""
    budget = FetchBudget(FetchLimits())
    return Fetchers(
        ocsp_fetcher=_ReadableOcspFetcher(_GuardedOcspFetcher(policy, budget)),
        crl_fetcher=_ReadableCrlFetcher(_GuardedCrlFetcher(policy, budget)),
        cert_fetcher=_GuardedCertificateFetcher(policy, budget),
    )


def authentic_revocation_data(
    crls: Iterable[bytes],
    ocsps: Iterable[bytes],
    certificates: Iterable[asn1_x509.Certificate],
    roots: Iterable[asn1_x509.Certificate],
) -> tuple[tuple[bytes, ...], tuple[bytes, ...]]:
    """The CRLs and OCSP responses (DER) whose signatures chain to the issuer of what they
    answer for, among ``certificates`` (the file's) and ``roots`` (the trusted ones)."""
    issuers = _Issuers([*certificates, *roots], roots)
    kept_crls = tuple(data for data in crls if issuers.crl_is_authentic(data))
    kept_ocsps = tuple(data for data in ocsps if issuers.ocsp_is_authentic(data))
    return kept_crls, kept_ocsps


class _Issuers:
    """Certificates by subject, and whether each chains (signature by signature) to a root."""

    def __init__(
        self, certificates: Iterable[asn1_x509.Certificate], roots: Iterable[asn1_x509.Certificate]
    ) -> None:
        self.by_subject: dict[bytes, dict[bytes, asn1_x509.Certificate]] = {}
        for certificate in certificates:
            self._add(certificate)
        self.roots = frozenset(root.sha256 for root in roots)
        self._anchored: dict[bytes, bool] = {}

    def _add(self, certificate: asn1_x509.Certificate) -> None:
        self.by_subject.setdefault(certificate.subject.dump(), {})[certificate.sha256] = certificate

    def anchored(self, certificate: asn1_x509.Certificate, depth: int = 0) -> bool:
        """Whether ``certificate`` is a root or is signed by one that is, up the chain."""
        known = self._anchored.get(certificate.sha256)
        if known is not None:
            return known
        self._anchored[certificate.sha256] = False  # a loop in the names anchors nothing
        anchored = certificate.sha256 in self.roots or (
            depth < 8
            and certificate.issuer != certificate.subject
            and any(
                signed_by(certificate, issuer) and self.anchored(issuer, depth + 1)
                for issuer in self.named(certificate.issuer)
            )
        )
        self._anchored[certificate.sha256] = anchored
        return anchored

    def named(self, name: asn1_x509.Name) -> list[asn1_x509.Certificate]:
        return list(self.by_subject.get(name.dump(), {}).values())

    def issuers(self, name: asn1_x509.Name) -> list[asn1_x509.Certificate]:
        """The certificates that are the issuer called ``name``: those that chain to a root,
        when any does (a certificate merely bearing the name is no issuer then)."""
        named = self.named(name)
        return [c for c in named if self.anchored(c)] or named

    def crl_is_authentic(self, data: bytes) -> bool:
        try:
            crl_list = crl.CertificateList.load(data)
            tbs = crl_list["tbs_cert_list"]
            return any(
                _verifies(
                    issuer.public_key,
                    crl_list["signature"].native,
                    tbs.dump(),
                    crl_list["signature_algorithm"],
                )
                for issuer in self.issuers(tbs["issuer"])
            )
        except (ValueError, TypeError, KeyError):
            return False

    def ocsp_is_authentic(self, data: bytes) -> bool:
        try:
            response = ocsp.OCSPResponse.load(data)
            if response["response_status"].native != "successful":
                return False
            basic = response.basic_ocsp_response
            tbs = basic["tbs_response_data"]
            for certificate in basic["certs"] or ():
                self._add(certificate)
            responders = [
                c
                for c in self._responders(tbs["responder_id"])
                if _verifies(
                    c.public_key,
                    basic["signature"].native,
                    tbs.dump(),
                    basic["signature_algorithm"],
                )
            ]
            singles = list(tbs["responses"])
            return bool(singles) and any(
                all(self._answers_for(responder, single["cert_id"]) for single in singles)
                for responder in responders
            )
        except (ValueError, TypeError, KeyError):
            return False

    def _responders(self, responder_id: ocsp.ResponderId) -> list[asn1_x509.Certificate]:
        if responder_id.name == "by_name":
            return self.named(responder_id.chosen)
        key_hash = responder_id.chosen.native
        return [
            c
            for subjects in self.by_subject.values()
            for c in subjects.values()
            if c.public_key.sha1 == key_hash
        ]

    def _answers_for(self, responder: asn1_x509.Certificate, cert_id: ocsp.CertId) -> bool:
        """Whether ``responder`` may answer for the certificates of ``cert_id``'s issuer: it is
        that issuer, or a responder the issuer certified for OCSP signing (RFC 6960 § 4.2.2.2)."""
        algorithm = cert_id["hash_algorithm"]["algorithm"].native
        key_hash = cert_id["issuer_key_hash"].native
        name_hash = cert_id["issuer_name_hash"].native
        for subjects in self.by_subject.values():
            for issuer in subjects.values():
                if _key_hash(issuer, algorithm) != key_hash:
                    continue
                if hashlib.new(algorithm, issuer.subject.dump()).digest() != name_hash:
                    continue
                if issuer.public_key.dump() == responder.public_key.dump():
                    return True
                if (
                    _is_ocsp_signer(responder)
                    and responder.issuer == issuer.subject
                    and signed_by(responder, issuer)
                    and (self.anchored(issuer) or not self.roots)
                ):
                    return True
        return False


def _is_ocsp_signer(certificate: asn1_x509.Certificate) -> bool:
    usage = certificate.extended_key_usage_value
    return usage is not None and "ocsp_signing" in usage.native


def _key_hash(certificate: asn1_x509.Certificate, algorithm: str) -> bytes:
    return hashlib.new(algorithm, certificate.public_key["public_key"].contents[1:]).digest()


def signed_by(certificate: asn1_x509.Certificate, issuer: asn1_x509.Certificate) -> bool:
    """Whether ``issuer``'s key verifies ``certificate``'s signature."""
    return _verifies(
        issuer.public_key,
        certificate["signature_value"].native,
        certificate["tbs_certificate"].dump(),
        certificate["signature_algorithm"],
    )


def _verifies(key: object, signature: bytes, signed: bytes, algorithm: object) -> bool:
    try:
        DefaultSignatureValidator().validate_signature(signature, signed, key, algorithm)
    except InvalidSignature:
        return False
    except (ValueError, TypeError, AssertionError):  # keys or algorithms it cannot read
        return False
    return True
