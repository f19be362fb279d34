"""How often a signer may be sent a new signing link, so that nobody can email-bomb them.

Two caps per signer, each a window of the shared rate-limit counters (``accounts.ratelimit``,
which hold across server processes): the sender's requests (``resendEtchSignerEmail`` and the
admin's "Email a new link", together: ``ESIGN_RESEND_PER_SIGNER`` per
``ESIGN_RESEND_WINDOW_SECONDS``) and the signer's own "Email me a new link" on an expired link
(``NEW_LINK_PER_HOUR`` an hour). Every request counts, whether or not it sends: one over the
cap sends nothing and is refused with ``RateLimited`` (the wire's 429 ``RateLimitError`` with
``Retry-After``). Off, like every rate limit, with ``RATE_LIMIT_ENABLED=false``.
"""

from __future__ import annotations

from django.conf import settings

from accounts.ratelimit import rate_limit_hit
from core.errors import RateLimited
from esign.models import Signer

# How many new links a signer may ask for from the expired-link page in an hour.
NEW_LINK_PER_HOUR = 3


def _window_words(seconds: int) -> str:
    if seconds % 3600 == 0:
        hours = seconds // 3600
        return "hour" if hours == 1 else f"{hours} hours"
    if seconds % 60 == 0:
        minutes = seconds // 60
        return "minute" if minutes == 1 else f"{minutes} minutes"
    return f"{seconds} seconds"


def new_link_count(*, signer: Signer, by_signer: bool = False) -> None:
    """Count one new link asked for ``signer`` (by the sender, or ``by_signer`` themselves);
    raise ``RateLimited`` when that is over the cap. Call it before sending anything."""
    if not settings.RATE_LIMIT_ENABLED:
        return
    if by_signer:
        bucket, limit, window = f"esign-new-link:{signer.eid}", NEW_LINK_PER_HOUR, 3600
    else:
        bucket = f"esign-resend:{signer.eid}"
        limit, window = settings.ESIGN_RESEND_PER_SIGNER, settings.ESIGN_RESEND_WINDOW_SECONDS
    decision = rate_limit_hit(bucket=bucket, limit=limit, interval_ms=window * 1000)
    if decision.allowed:
        return
    wait = decision.retry_after_seconds
    raise RateLimited(
        wait,
        f"No new link for {signer.name}: {limit} new links in the last {_window_words(window)}"
        f" already, as many as a signer may be sent. Try again in {wait} seconds.",
    )
