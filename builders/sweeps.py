"""The sweep that deletes embed tokens a while after they expired (core.sweeps): an embedded
builder's link is asked for each time a user opens a builder, so their rows would otherwise grow
without end. A day after expiry a token is only history: its page would refuse it the same way
without its row ("expired or does not exist")."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from builders.models import EmbedToken
from core.sweeps import sweep

logger = logging.getLogger(__name__)

KEPT_AFTER_EXPIRY = timedelta(days=1)


def embed_tokens_expired_delete(*, now: datetime) -> int:
    """Delete the tokens expired (or revoked) more than KEPT_AFTER_EXPIRY before ``now``."""
    cutoff = now - KEPT_AFTER_EXPIRY
    stale = EmbedToken.objects.filter(expires_at__lt=cutoff) | EmbedToken.objects.filter(
        revoked_at__lt=cutoff
    )
    deleted, _ = stale.delete()
    return deleted


@sweep("builders.expired_tokens")
def embed_tokens_sweep(*, now: datetime) -> int:
    """Returns 0: a sweep's count is lost work enqueued again, and old tokens are not."""
    deleted = embed_tokens_expired_delete(now=now)
    if deleted:
        logger.info("Deleted %d expired embed tokens", deleted)
    return 0
