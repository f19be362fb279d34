"""Per-key rate limiting over Django's cache framework (a fixed window per key).

The window counter lives in the "ratelimit" cache, which must be shared by every server process
(settings.CACHES; the default is a table in the main database with atomic increments).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import caches
from django.utils import timezone
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from accounts.identity import ApiIdentity
from accounts.models import ApiKey
from core.errors import RateLimited


@dataclass(frozen=True)
class RateDecision:
    allowed: bool
    limit: int
    count: int
    retry_after_seconds: int


def limit_for(kind: str) -> int:
    if kind == ApiKey.Kind.PRODUCTION:
        return settings.RATE_LIMIT_PRODUCTION
    return settings.RATE_LIMIT_DEVELOPMENT


def rate_limit_hit(
    *, bucket: str, limit: int, interval_ms: int, now_ms: int | None = None
) -> RateDecision:
    """Count one request against ``bucket`` in the current window and decide.

    The window is read from the service's clock (``timezone.now``), which tests move."""
    now_ms = int(timezone.now().timestamp() * 1000) if now_ms is None else now_ms
    window = now_ms // interval_ms
    cache = caches["ratelimit"]
    key = f"rl:{bucket}:{window}"
    # Keep the counter a little past its window so a slow request still finds it.
    timeout = math.ceil(interval_ms / 1000) + 1
    # The increment first: every request but a window's first finds the counter there, and one
    # locked read and write (the database cache) is all it costs; add() before it cost as much
    # again on every request (issue 38). Redis (RATE_LIMIT_CACHE_URL) does either in one step.
    try:
        count = cache.incr(key)
    except ValueError:  # the window's first request (or its counter expired): open it
        if cache.add(key, 1, timeout=timeout):
            count = 1
        else:  # another process opened it meanwhile
            try:
                count = cache.incr(key)
            except ValueError:  # and it expired again at once: this request opens it
                cache.set(key, 1, timeout=timeout)
                count = 1
    retry_ms = (window + 1) * interval_ms - now_ms
    return RateDecision(
        allowed=count <= limit,
        limit=limit,
        count=count,
        retry_after_seconds=max(1, math.ceil(retry_ms / 1000)),
    )


def rate_limited(decision: RateDecision, kind: str) -> RateLimited:
    """The 429 of a key over its limit, naming the limit, so a caller knows how to pace."""
    return RateLimited(
        retry_after_seconds=decision.retry_after_seconds,
        message=(
            f"Rate limit exceeded: a {kind} API key may make {decision.limit} requests every "
            f"{settings.RATE_LIMIT_INTERVAL_MS} ms; retry after {decision.retry_after_seconds} "
            "s (Retry-After)."
        ),
    )


class ApiKeyRateThrottle(BaseThrottle):
    def allow_request(self, request: Request, view: object) -> bool:
        identity = request.user
        if not isinstance(identity, ApiIdentity):
            return True
        limit = limit_for(identity.api_key.kind)
        # Read by RateLimitHeadersMiddleware to send the caller's own limit.
        request._request.rate_limit = limit
        if not settings.RATE_LIMIT_ENABLED:
            return True
        decision = rate_limit_hit(
            bucket=identity.api_key.eid, limit=limit, interval_ms=settings.RATE_LIMIT_INTERVAL_MS
        )
        if not decision.allowed:
            raise rate_limited(decision, identity.api_key.kind)
        return True

    def wait(self) -> float | None:  # never asked: a refusal raises RateLimited itself
        return None
