"""``data:`` URLs (RFC 2397): decoded locally, never a network request."""

from __future__ import annotations

import base64
import binascii
import re
from urllib.parse import unquote_to_bytes

from core.engine.fetch.errors import refuse

_MEDIA_TYPE_RE = re.compile(r"[a-z0-9!#$&^_.+-]+/[a-z0-9!#$&^_.+-]+")


def is_data_url(url: str) -> bool:
    return url.strip()[:5].lower() == "data:"


def parse_data_url(url: str) -> tuple[str, bytes]:
    """`(media type, decoded bytes)` of a data: URL (base64 or percent-encoded)."""
    if not isinstance(url, str) or not is_data_url(url):
        raise refuse("invalid_url", "not a data: URL")
    header, comma, payload = url.strip()[5:].partition(",")
    if not comma:
        raise refuse("invalid_url", "data: URL without a comma")
    params = [param.strip() for param in header.split(";")]
    is_base64 = len(params) > 1 and params[-1].lower() == "base64"
    if is_base64:
        params.pop()
    media_type = params[0].lower() or "text/plain"
    if not _MEDIA_TYPE_RE.fullmatch(media_type):
        # The length only: the text before the comma is the caller's data (a fill value that
        # merely starts with "data:"), and no log line carries request data.
        raise refuse(
            "invalid_url", "data: URL has a malformed media type (%d chars)", len(media_type)
        )
    raw = unquote_to_bytes(payload)
    if not is_base64:
        return media_type, raw
    # Whitespace is common in hand-written base64; missing padding too.
    compact = raw.translate(None, b" \t\r\n\f\v")
    compact += b"=" * (-len(compact) % 4)
    try:
        return media_type, base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise refuse("invalid_url", "data: URL has invalid base64") from exc


def data_url_size(url: str) -> int:
    """The decoded size of a ``data:`` URL, e.g. for a total-size check across a request."""
    return len(parse_data_url(url)[1])
