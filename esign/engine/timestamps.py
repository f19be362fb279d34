"""RFC 3161 timestamp authorities for the seal: ``TsaConfig`` names them, and
``FallbackTimeStamper`` asks them in turn, remembering within one sealing attempt which failed.

Timestamp requests go through ``core.engine.fetch.post``, the project's one outbound HTTP path:
one deadline for the whole exchange, a capped response, no redirects, no proxy variables. The
TSA hosts are the operator's own configuration, not request data, so they are allowed even on a
private or loopback network; nothing else is.

Pure Python (no Django).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from urllib.parse import urlsplit

from asn1crypto import cms, tsp
from pyhanko.sign.timestamps.api import TimeStamper
from pyhanko.sign.timestamps.common_utils import TimestampRequestError, handle_tsp_response

from core.engine.fetch import FetchError, FetchPolicy, post
from esign.engine.errors import TimestampUnavailable

logger = logging.getLogger(__name__)

TSA_USER_AGENT = "docautomation-seal/1"


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
