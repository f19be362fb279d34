"""Standard Webhooks (https://www.standardwebhooks.com) signing, and the secrets it uses.

A delivery carries three headers:

- ``webhook-id``: the message id, the same on every retry of one event (receivers deduplicate
  by it);
- ``webhook-timestamp``: integer Unix seconds of this attempt (receivers refuse old ones);
- ``webhook-signature``: ``v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>``, one per
  current secret, separated by spaces, so a receiver keeps verifying while a secret is rotated.

Secrets are ``whsec_`` followed by the base64 of the random key bytes, the form the
``standardwebhooks`` libraries accept.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from collections.abc import Iterable
from datetime import datetime
from email.utils import parsedate_to_datetime

SECRET_PREFIX = "whsec_"  # noqa: S105 - the prefix, not a secret
SECRET_BYTES = 32  # the standard asks for 24 to 64


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode("ascii")


def secret_key(secret: str) -> bytes:
    """The key bytes of a ``whsec_`` secret; ValueError if it is not one."""
    if not secret.startswith(SECRET_PREFIX):
        raise ValueError("a webhook secret starts with whsec_")
    try:
        key = base64.b64decode(secret[len(SECRET_PREFIX) :], validate=True)
    except binascii.Error:
        raise ValueError("a webhook secret is whsec_ and base64") from None
    if not 24 <= len(key) <= 64:
        raise ValueError("a webhook secret has 24 to 64 bytes of key")
    return key


def sign(*, secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """``v1,<signature>`` of one delivery under one secret."""
    signed = b"%s.%d.%s" % (message_id.encode("ascii"), timestamp, body)
    digest = hmac.new(secret_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def signature_headers(
    *, secrets: Iterable[str], message_id: str, timestamp: int, body: bytes
) -> dict[str, str]:
    """The three Standard Webhooks headers for ``body``, signed with every secret given."""
    signatures = [
        sign(secret=s, message_id=message_id, timestamp=timestamp, body=body) for s in secrets
    ]
    if not signatures:
        raise ValueError("at least one secret is needed to sign")
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(signatures),
    }


def retry_after_seconds(value: str | None, *, now: datetime) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delay-seconds or an HTTP date), or None.

    None when the header is absent or unreadable; a date in the past is 0.
    """
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(int(text))
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, (when - now).total_seconds())
