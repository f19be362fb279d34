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

import logging
from collections.abc import Iterable
from typing import TypeAlias

from asn1crypto import cms, crl, ocsp
from asn1crypto import x509 as asn1_x509
from pyhanko_certvalidator.authority import Authority
from pyhanko_certvalidator.errors import CRLFetchError, OCSPFetchError
from pyhanko_certvalidator.fetchers import FetcherBackend, Fetchers
from pyhanko_certvalidator.fetchers.aiohttp_fetchers import AIOHttpFetcherBackend
from pyhanko_certvalidator.fetchers.api import CRLFetcher, OCSPFetcher, OwnedFetcherBackend

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
