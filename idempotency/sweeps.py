"""The sweep that forgets Idempotency-Keys after IDEMPOTENCY_KEY_HOURS (core.sweeps)."""

from __future__ import annotations

import logging
from datetime import datetime

from core.sweeps import sweep
from idempotency.services import idempotency_keys_expire

logger = logging.getLogger(__name__)


@sweep("idempotency.expired")
def idempotency_sweep(*, now: datetime) -> int:
    """Delete expired keys and their kept answers. Returns 0: a sweep's count is lost work
    enqueued again (logged as a warning), and expired keys are not lost work."""
    deleted = idempotency_keys_expire(now=now)
    if deleted:
        logger.info("Deleted %d expired idempotency keys", deleted)
    return 0
