"""At most VERIFY_MAX_PER_ADDRESS verifications from one client address at once, across every
server process: one visitor cannot hold every verify worker while others wait.

Each address has that many slots, each a key of the "ratelimit" cache (shared by every server
process, as the rate limiter's counters are): a verification takes a free slot with the cache's
atomic ``add`` and deletes it when done. A slot expires by itself after the longest a
verification can take (its queue wait and its deadline) and a margin, so a process that dies
mid-verification holds it no longer than that. Beyond its slots, an address is refused at once
(RateLimited, 429 with Retry-After), before its file is scanned or queued.
"""

from __future__ import annotations

import hashlib
import math
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import caches

from core.errors import RateLimited

# Beyond the longest verification: the scan of the file, the database lookups, a slow cache.
SLOT_MARGIN_SECONDS = 10

BUSY_MESSAGE = "A file from your address is already being verified; try again when it is done."


@dataclass(frozen=True)
class Slot:
    key: str
    token: str


def max_per_address() -> int:
    """VERIFY_MAX_PER_ADDRESS, or half the verify workers (at least one) when it is unset; 0
    for no bound."""
    configured = settings.VERIFY_MAX_PER_ADDRESS
    if configured is None:
        return max(1, settings.VERIFY_WORKERS // 2)
    return configured


def longest_verification_seconds() -> int:
    return math.ceil(settings.VERIFY_QUEUE_TIMEOUT_SECONDS + settings.VERIFY_TIMEOUT_SECONDS)


def verify_slot_take(address: str) -> Slot | None:
    """Take one of ``address``'s slots (None when there is no bound); RateLimited when every
    one is taken."""
    limit = max_per_address()
    if limit <= 0:
        return None
    cache = caches["ratelimit"]
    # Hashed: an IPv6 address's colons, or whatever a proxy put there, never make a bad key.
    digest = hashlib.sha256(address.encode()).hexdigest()[:32]
    token = secrets.token_hex(8)
    expiry = longest_verification_seconds() + SLOT_MARGIN_SECONDS
    for number in range(limit):
        key = f"verify-slot:{digest}:{number}"
        if cache.add(key, token, timeout=expiry):
            return Slot(key, token)
    raise RateLimited(retry_after_seconds=longest_verification_seconds(), message=BUSY_MESSAGE)


def verify_slot_release(slot: Slot | None) -> None:
    """Give ``slot`` back, unless it expired and another verification holds it now."""
    if slot is None:
        return
    cache = caches["ratelimit"]
    if cache.get(slot.key) == slot.token:
        cache.delete(slot.key)


@contextmanager
def verify_slot(address: str) -> Iterator[None]:
    """Hold one of ``address``'s slots for the ``with`` block (verify_slot_take)."""
    slot = verify_slot_take(address)
    try:
        yield
    finally:
        verify_slot_release(slot)
