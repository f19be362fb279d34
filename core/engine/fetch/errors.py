"""`FetchError`, its stable codes, the one logger every part of the fetcher writes to, and the
deadline check they share."""

from __future__ import annotations

import logging
import time
from typing import Literal

# One logger for the whole package (not one per module): operators and tests filter on this name,
# and it stays what it was before the fetcher became a package.
logger = logging.getLogger("core.engine.fetch")

FetchErrorCode = Literal[
    "invalid_url",
    "scheme_not_allowed",
    "address_not_allowed",
    "dns_failed",
    "connection_failed",
    "timeout",
    "too_large",
    "bad_status",
    "bad_response",
    "bad_content_type",
    "redirect_refused",
    "too_many_redirects",
]

# What the caller (and eventually the API client) sees. Deliberately generic: never the resolved
# address, the hop, or the server's reply; those go to the log.
_MESSAGES: dict[str, str] = {
    "invalid_url": "The URL is not valid.",
    "scheme_not_allowed": "Only http, https and data URLs are allowed.",
    "address_not_allowed": "The URL points to an address that is not allowed.",
    "dns_failed": "The host name in the URL could not be resolved.",
    "connection_failed": "The server could not be reached.",
    "timeout": "The server did not answer in time.",
    "too_large": "The resource is too large.",
    "bad_status": "The server did not return the resource.",
    "bad_response": "The server sent an invalid response.",
    "bad_content_type": "The resource has a type that is not allowed here.",
    "redirect_refused": "The server answered with a redirect, and redirects are not followed.",
    "too_many_redirects": "The server redirected too many times.",
}


class FetchError(Exception):
    """A URL could not be fetched. `code` is stable; the message is safe to show to a caller."""

    def __init__(self, code: FetchErrorCode) -> None:
        self.code: FetchErrorCode = code
        self.message = _MESSAGES[code]
        super().__init__(self.message)


def refuse(
    code: FetchErrorCode, detail: str, *args: object, level: int = logging.INFO
) -> FetchError:
    """Log why (for operators) and return the generic error (for the caller) to raise.

    `detail` and `args` must never carry request data: no URL query, no request body or headers,
    no response body. Targets are described by `Target.description`, which has none of them.
    """
    logger.log(level, "Fetch refused (%s): " + detail, code, *args)
    return FetchError(code)


def remaining(deadline: float, doing: str) -> float:
    """Seconds left before `deadline`; refuses with "timeout" when none are."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise refuse("timeout", "deadline reached while %s", doing)
    return left
