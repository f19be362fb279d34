"""Fetching revocation data for a seal's long-term validation material, where an answer that
cannot be read counts as no answer.

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
import logging
from collections.abc import Awaitable, Iterable
from typing import Any, TypeAlias

import requests
from asn1crypto import cms, crl, ocsp
from asn1crypto import x509 as asn1_x509
from pyhanko_certvalidator.authority import Authority
from pyhanko_certvalidator.errors import CRLFetchError, OCSPFetchError
from pyhanko_certvalidator.fetchers import FetcherBackend, Fetchers
from pyhanko_certvalidator.fetchers.aiohttp_fetchers import AIOHttpFetcherBackend
from pyhanko_certvalidator.fetchers.api import CRLFetcher, OCSPFetcher, OwnedFetcherBackend
from pyhanko_certvalidator.fetchers.common_utils import FetchBudget, FetchLimits
from pyhanko_certvalidator.fetchers.requests_fetchers import (
    RequestsCertificateFetcher,
    RequestsCRLFetcher,
    RequestsOCSPFetcher,
)

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


class _ReadableFetcherBackend(FetcherBackend):
    def __init__(self) -> None:
        self._inner = AIOHttpFetcherBackend()

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
