"""The request methods: `fetch()` (GET a resource) and `post()` (deliver a body, e.g. a webhook).

Both go through `connection.exchange()`, so both get the same guard, pinning, deadline and cap.
They differ in what they make of the answer: `fetch()` wants a resource (200, an allowed content
type, under the cap, redirects followed only as far as the policy says), `post()` returns
whatever the server answered (any status, a 3xx never followed, the body cut at the cap).
"""

from __future__ import annotations

import functools
import http.client
import logging
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urljoin

from core.engine.fetch.connection import exchange, read_capped
from core.engine.fetch.data_url import is_data_url, parse_data_url
from core.engine.fetch.errors import FetchError, logger, refuse
from core.engine.fetch.guard import (
    Resolver,
    Target,
    checked_addresses,
    parse_http_url,
    system_resolve,
)
from core.engine.fetch.policy import FetchPolicy

_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# RFC 9110 token: what a header name may be made of.
_HEADER_NAME_RE = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
# Headers that belong to the transport, not the caller: the Host header must name the URL's host,
# the body's framing is ours, one request per connection, and no compressed answers (a
# decompressor would be a way around the size cap).
_RESERVED_HEADERS = frozenset(
    {"host", "content-length", "transfer-encoding", "connection", "accept-encoding", "te"}
)


@dataclass(frozen=True)
class Fetched:
    url: str  # the URL the data came from: after redirects, if any were followed
    content_type: str  # media type without parameters, lowercased
    data: bytes


@dataclass(frozen=True)
class PostResponse:
    """What the server answered a `post()`: any status, redirects and server errors included."""

    status: int
    reason: str
    headers: tuple[tuple[str, str], ...]  # as received, in order
    body: bytes  # the first `policy.max_bytes` bytes of the body at most
    truncated: bool  # the body went on beyond `body`; the rest was not read
    elapsed_seconds: float  # from the call to the end of reading, resolution included

    def header(self, name: str) -> str | None:
        """The first value of header `name` (case-insensitive), or None."""
        wanted = name.lower()
        return next((value for key, value in self.headers if key.lower() == wanted), None)


def fetch(
    url: str,
    policy: FetchPolicy,
    *,
    headers: Mapping[str, str] | None = None,
    resolve: Resolver | None = None,
) -> Fetched:
    """Fetch an http(s) or data: URL under `policy`, or raise `FetchError`.

    `headers` (an Authorization, say) are checked as `post()` checks its own and sent to `url`
    only: a redirect's hops get the defaults, so a credential never follows the server
    elsewhere. `resolve(host, port)` returns the host's addresses as strings; it defaults to the
    system resolver and is injectable so tests can make a name resolve to a private address. It
    is called once per hop and runs inside the deadline.
    """
    if not isinstance(url, str):
        raise refuse("invalid_url", "URL is a %s, not a string", type(url).__name__)
    deadline = time.monotonic() + policy.deadline_seconds
    url = url.strip()
    if is_data_url(url):
        fetched = decode_data_url(url, max_bytes=policy.max_bytes)
        if not policy.allows_content_type(fetched.content_type):
            raise refuse(
                "bad_content_type",
                "data: URL has type %r",
                fetched.content_type,
                level=logging.INFO,
            )
        return fetched
    first_headers = _request_headers(_get_headers(policy), headers or {})
    return _fetch_http(url, policy, resolve or system_resolve, deadline, first_headers)


def check_address(url: str, policy: FetchPolicy, *, resolve: Resolver | None = None) -> None:
    """Refuse now, with the `FetchError` a request would get, an http(s) URL that the guard would
    refuse whenever it is used: a bad URL or scheme, or a host that resolves to an address
    `policy` does not allow (private, loopback...). Connects to nothing.

    For checking a URL when it is saved (a webhook URL), so that the refusal is seen by whoever
    typed it rather than logged at every delivery. A name that does not resolve (yet), or not
    within the deadline, passes: it may resolve by the time it is used, and then the guard
    checks it again.
    """
    if not isinstance(url, str):
        raise refuse("invalid_url", "URL is a %s, not a string", type(url).__name__)
    deadline = time.monotonic() + policy.deadline_seconds
    target = parse_http_url(url)
    try:
        checked_addresses(target, policy, resolve or system_resolve, deadline)
    except FetchError as error:
        if error.code in ("dns_failed", "timeout"):
            return
        raise


def decode_data_url(url: str, *, max_bytes: int) -> Fetched:
    """Decode a ``data:`` URL (base64 or percent-encoded).

    A URL that decodes to `max_bytes` bytes or more is refused with "too_large".
    """
    media_type, data = parse_data_url(url)
    if len(data) >= max_bytes:
        raise refuse("too_large", "data: URL decodes to %d bytes (cap %d)", len(data), max_bytes)
    return Fetched(url=url, content_type=media_type, data=data)


def post(
    url: str,
    body: bytes,
    policy: FetchPolicy,
    *,
    headers: Mapping[str, str] | None = None,
    resolve: Resolver | None = None,
) -> PostResponse:
    """POST `body` to an http(s) URL under `policy` and return the answer, or raise `FetchError`.

    The guard is the one `fetch()` uses: scheme, resolution once, every address checked against
    the allowlists, the connection pinned to a checked address, one deadline for the whole
    exchange. Any status is a response, not an error: a 3xx is returned and never followed, a 5xx
    is returned. At most `policy.max_bytes` bytes of the response body are read. `headers` are
    sent as given (a Content-Type, a signature...); the transport's own headers (Host,
    Content-Length, Connection, ...) may not be set, and a malformed header is a ValueError.
    Neither the body, the headers nor the URL's query are ever logged: webhook payloads are
    customer data.
    """
    started = time.monotonic()
    deadline = started + policy.deadline_seconds
    if not isinstance(url, str):
        raise refuse("invalid_url", "URL is a %s, not a string", type(url).__name__)
    if not isinstance(body, bytes):
        raise TypeError(f"body must be bytes, not {type(body).__name__}")
    defaults = {"User-Agent": policy.user_agent, "Accept": "*/*", "Connection": "close"}
    request_headers = _request_headers(defaults, headers or {})

    def read(target: Target, response: http.client.HTTPResponse) -> PostResponse:
        data, truncated = read_capped(target, response, deadline, policy.max_bytes)
        return PostResponse(
            status=response.status,
            reason=response.reason,
            headers=tuple(response.getheaders()),
            body=data,
            truncated=truncated,
            elapsed_seconds=time.monotonic() - started,
        )

    return exchange(
        url.strip(),
        policy,
        resolve or system_resolve,
        deadline,
        method="POST",
        headers=request_headers,
        body=body,
        read=read,
    )


# --- GET -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Redirect:
    location: str  # as the server sent it: possibly relative
    description: str  # of the hop that redirected, for logs


def _fetch_http(
    url: str,
    policy: FetchPolicy,
    resolve: Resolver,
    deadline: float,
    first_headers: dict[str, str],
) -> Fetched:
    headers = first_headers
    current = url
    hops = 0
    while True:
        read = functools.partial(_read_resource, current, policy=policy, deadline=deadline)
        outcome = exchange(
            current, policy, resolve, deadline, method="GET", headers=headers, body=None, read=read
        )
        if isinstance(outcome, Fetched):
            return outcome
        if policy.max_redirects == 0:
            raise refuse("redirect_refused", "%s redirected", outcome.description)
        if hops >= policy.max_redirects:
            raise refuse(
                "too_many_redirects", "%s redirected after %d hops", outcome.description, hops
            )
        hops += 1
        headers = _get_headers(policy)  # the caller's headers were for `url` only
        # The next hop is checked from scratch by the next exchange: scheme (so a redirect to
        # file: or data: is refused), host, resolution, every address.
        current = urljoin(current, outcome.location)
        logger.info("Following a redirect from %s (hop %d)", outcome.description, hops)


def _get_headers(policy: FetchPolicy) -> dict[str, str]:
    accept = ", ".join(
        f"{allowed}*" if allowed.endswith("/") else allowed
        for allowed in policy.allowed_content_types
    )
    # http.client adds "Accept-Encoding: identity" itself: compressed bodies are not wanted (a
    # decompressor would be a way around the size cap).
    return {"User-Agent": policy.user_agent, "Accept": accept or "*/*", "Connection": "close"}


def _read_resource(
    url: str,
    target: Target,
    response: http.client.HTTPResponse,
    *,
    policy: FetchPolicy,
    deadline: float,
) -> Fetched | _Redirect:
    """The body of a 200 with an allowed type under the cap, or where the server redirects to."""
    if response.status in _REDIRECT_STATUSES:
        location = response.getheader("Location")
        if not location:
            raise refuse("bad_response", "%s redirected without a Location", target.description)
        return _Redirect(location=location, description=target.description)
    if response.status != 200:
        raise refuse("bad_status", "%s answered %d", target.description, response.status)
    encoding = (response.getheader("Content-Encoding") or "identity").strip().lower()
    if encoding != "identity":
        raise refuse("bad_response", "%s sent a %r-encoded body", target.description, encoding[:50])
    media_type = _media_type(response.getheader("Content-Type") or "")
    if not policy.allows_content_type(media_type):
        raise refuse("bad_content_type", "%s has type %r", target.description, media_type[:100])
    # http.client parsed Content-Length into .length (None when chunked or absent).
    if response.length is not None and response.length >= policy.max_bytes:
        raise refuse(
            "too_large",
            "%s declares %d bytes (cap %d)",
            target.description,
            response.length,
            policy.max_bytes,
        )
    # The cap is exclusive: max_bytes bytes or more is too large.
    data, over = read_capped(target, response, deadline, policy.max_bytes - 1)
    if over:
        raise refuse(
            "too_large", "%s sent %d bytes or more (the cap)", target.description, policy.max_bytes
        )
    return Fetched(url=url, content_type=media_type, data=data)


def _media_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


# --- both ----------------------------------------------------------------------------------------


def _request_headers(defaults: dict[str, str], headers: Mapping[str, str]) -> dict[str, str]:
    """The defaults, overridden by the caller's headers, refused if malformed or reserved."""
    sent = dict(defaults)
    for name, value in headers.items():
        # Checked here, before any connection, rather than by http.client halfway through one.
        # The messages name the header, never its value (it may be a secret).
        if not _HEADER_NAME_RE.fullmatch(name):
            raise ValueError(f"invalid header name {name!r}")
        if name.lower() in _RESERVED_HEADERS:
            raise ValueError(f"header {name!r} is set by the fetcher, not the caller")
        if not isinstance(value, str) or any(c in value for c in "\r\n\0"):
            raise ValueError(f"invalid value for header {name!r}")
        for default in [key for key in sent if key.lower() == name.lower()]:
            del sent[default]
        sent[name] = value
    return sent
