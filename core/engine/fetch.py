"""The one safe fetcher for every outbound URL named by request data.

Image URLs in a PDF fill, images and fonts in HTML/Markdown generation, logos: whatever the caller
names goes through `fetch()`, so the server can never be turned into a proxy for its own network
(SSRF). The rules, in the order they are applied:

- only ``http``, ``https`` and ``data:`` URLs; no credentials in the URL;
- the host name is resolved once, *every* resolved address must be globally routable (unless the
  policy allowlists the host or the network), and the connection is made to an address that was
  checked, so a second DNS answer (rebinding) never gets a say. The Host header, TLS SNI and
  certificate verification still use the host name from the URL;
- redirects are refused, or followed up to `FetchPolicy.max_redirects` with every hop checked
  again from scratch;
- one deadline covers the whole resource (DNS, connect, TLS, headers, body, every hop), so a
  server that drips a byte at a time is cut off rather than holding a worker;
- the size cap is enforced from Content-Length *and* while streaming; the content type is checked
  before the body is read.

Errors are `FetchError` with a stable `code` and a short generic message; the detail (which
address, which hop) goes to the ``core.engine.fetch`` logger only. Proxy environment variables are
deliberately ignored: a proxy would do its own resolution and defeat the address check.

Pure Python: no Django here (enforced by import-linter); callers turn settings into a
`FetchPolicy`.
"""

from __future__ import annotations

import base64
import binascii
import functools
import http.client
import io
import ipaddress
import logging
import os
import re
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal
from urllib.parse import quote, unquote_to_bytes, urljoin, urlsplit

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

logger = logging.getLogger(__name__)

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

Resolver = Callable[[str, int], list[str]]

MAX_URL_LENGTH = 8192  # for http(s); data: URLs are bounded by the request body size instead
_READ_CHUNK = 64 * 1024
_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_DEFAULT_PORTS = {"http": 80, "https": 443}
# Host names after IDNA encoding: dot-separated labels of letters, digits, "-" and "_".
_HOSTNAME_RE = re.compile(r"(?:[a-z0-9_-]{1,63}\.)*[a-z0-9_-]{1,63}")
_MEDIA_TYPE_RE = re.compile(r"[a-z0-9!#$&^_.+-]+/[a-z0-9!#$&^_.+-]+")
# Characters left alone when re-quoting a path or query: the reserved set and "%" (so an already
# escaped URL stays as it is). Spaces and non-ASCII are escaped, as a browser would.
_PATH_SAFE = "/%:@!$&'()*+,;="
_QUERY_SAFE = _PATH_SAFE + "?"

# Ranges that `ipaddress.is_global` lets through in Python 3.11 but that must never be reached.
_CGNAT = ipaddress.IPv4Network("100.64.0.0/10")
# NAT64 (RFC 6052): on an IPv6-only host, DNS64 answers with these for IPv4-only sites, so judge
# them by the IPv4 address they carry rather than refusing them all.
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


class FetchError(Exception):
    """A URL could not be fetched. `code` is stable; the message is safe to show to a caller."""

    def __init__(self, code: FetchErrorCode) -> None:
        self.code: FetchErrorCode = code
        self.message = _MESSAGES[code]
        super().__init__(self.message)


@dataclass(frozen=True)
class FetchPolicy:
    """What one kind of outbound fetch may do.

    `max_bytes` is exclusive: a resource of `max_bytes` bytes or more is refused (the spec says
    "at 10 MB or more the image may not load"). `allowed_content_types` entries ending in "/" match
    as prefixes ("image/"), others exactly ("image/png"); empty means any type. `allow_hosts` and
    `allow_networks` let chosen hosts or CIDR networks through even though they are private (for
    tests and intranet deployments); anything else must be globally routable. `ssl_context`
    replaces the default certificate verification, e.g. to trust an intranet CA.
    """

    deadline_seconds: float = 2.0
    max_bytes: int = 10 * 1024 * 1024
    allowed_content_types: tuple[str, ...] = ()
    max_redirects: int = 0
    allow_hosts: frozenset[str] = frozenset()
    allow_networks: tuple[str, ...] = ()
    user_agent: str = "docautomation-fetcher/1"
    ssl_context: ssl.SSLContext | None = field(default=None, compare=False, repr=False)
    # Parsed once from allow_networks, so a bad CIDR in the configuration fails at startup.
    _networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if self.deadline_seconds <= 0:
            raise ValueError("deadline_seconds must be positive")
        if self.max_bytes <= 0:
            raise ValueError("max_bytes must be positive")
        if self.max_redirects < 0:
            raise ValueError("max_redirects must not be negative")
        # Settings often hand over lists; normalise so comparisons below are exact.
        object.__setattr__(
            self, "allow_hosts", frozenset(_normalize_host(h) for h in self.allow_hosts)
        )
        object.__setattr__(self, "allow_networks", tuple(self.allow_networks))
        object.__setattr__(
            self,
            "allowed_content_types",
            tuple(t.strip().lower() for t in self.allowed_content_types),
        )
        networks = tuple(ipaddress.ip_network(n, strict=False) for n in self.allow_networks)
        object.__setattr__(self, "_networks", networks)

    def allows_content_type(self, media_type: str) -> bool:
        if not self.allowed_content_types:
            return True
        return any(
            media_type.startswith(allowed) if allowed.endswith("/") else media_type == allowed
            for allowed in self.allowed_content_types
        )

    def allows_address(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
        """Whether the network allowlist covers `address` (also as an IPv4-mapped address)."""
        candidates: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = [address]
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            candidates.append(address.ipv4_mapped)
        return any(
            candidate.version == network.version and candidate in network
            for candidate in candidates
            for network in self._networks
        )


@dataclass(frozen=True)
class Fetched:
    url: str  # the URL the data came from: after redirects, if any were followed
    content_type: str  # media type without parameters, lowercased
    data: bytes


def fetch(url: str, policy: FetchPolicy, *, resolve: Resolver | None = None) -> Fetched:
    """Fetch an http(s) or data: URL under `policy`, or raise `FetchError`.

    `resolve(host, port)` returns the host's addresses as strings; it defaults to the system
    resolver and is injectable so tests can make a name resolve to a private address. It is
    called once per hop and runs inside the deadline.
    """
    if not isinstance(url, str):
        raise _refuse("invalid_url", "URL is a %s, not a string", type(url).__name__)
    deadline = time.monotonic() + policy.deadline_seconds
    url = url.strip()
    if url[:5].lower() == "data:":
        fetched = decode_data_url(url, max_bytes=policy.max_bytes)
        if not policy.allows_content_type(fetched.content_type):
            raise _refuse(
                "bad_content_type",
                "data: URL has type %r",
                fetched.content_type,
                level=logging.INFO,
            )
        return fetched
    return _fetch_http(url, policy, resolve or _system_resolve, deadline)


def decode_data_url(url: str, *, max_bytes: int) -> Fetched:
    """Decode a ``data:`` URL (base64 or percent-encoded).

    A URL that decodes to `max_bytes` bytes or more is refused with "too_large".
    """
    media_type, data = _parse_data_url(url)
    if len(data) >= max_bytes:
        raise _refuse("too_large", "data: URL decodes to %d bytes (cap %d)", len(data), max_bytes)
    return Fetched(url=url, content_type=media_type, data=data)


def data_url_size(url: str) -> int:
    """The decoded size of a ``data:`` URL, e.g. for a total-size check across a request."""
    return len(_parse_data_url(url)[1])


def is_public_address(address: str | ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether `address` is globally routable: not loopback, private, link-local, CGNAT, ...

    `is_global` alone is not enough in Python 3.11 (it passes multicast, IPv6 site-local and the
    reserved IPv4-compatible range), and addresses that embed an IPv4 address (mapped, 6to4,
    Teredo, NAT64) are judged by the address they embed. Raises ValueError for a non-address.
    """
    ip = ipaddress.ip_address(address) if isinstance(address, str) else address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return is_public_address(ip.ipv4_mapped)
        if ip in _NAT64:
            return is_public_address(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
        embedded = ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if embedded is not None and not is_public_address(embedded):
            return False
        if ip.is_site_local:
            return False
    elif ip in _CGNAT:
        return False
    return ip.is_global and not (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
    )


# --- http(s) -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Target:
    scheme: str
    host: str  # ASCII (IDNA) host name or IP literal, lowercased, no brackets or trailing dot
    port: int
    request_target: str  # path and query as sent on the request line
    description: str  # for logs: no credentials, no query string


@dataclass(frozen=True)
class _Redirect:
    location: str  # as the server sent it: possibly relative


def _fetch_http(url: str, policy: FetchPolicy, resolve: Resolver, deadline: float) -> Fetched:
    current = url
    hops = 0
    while True:
        target = _parse_http_url(current)
        addresses = _checked_addresses(target, policy, resolve, deadline)
        outcome = _request(current, target, addresses, policy, deadline)
        if isinstance(outcome, Fetched):
            return outcome
        if policy.max_redirects == 0:
            raise _refuse("redirect_refused", "%s redirected", target.description)
        if hops >= policy.max_redirects:
            raise _refuse(
                "too_many_redirects", "%s redirected after %d hops", target.description, hops
            )
        hops += 1
        # The next hop is checked from scratch by the next turn of the loop: scheme (so a
        # redirect to file: or data: is refused), host, resolution, every address.
        current = urljoin(current, outcome.location)
        logger.info("Following a redirect from %s (hop %d)", target.description, hops)


def _parse_http_url(url: str) -> _Target:
    if len(url) > MAX_URL_LENGTH:
        raise _refuse("invalid_url", "URL is %d characters long", len(url))
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise _refuse("invalid_url", "URL does not parse: %s", exc) from exc
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        raise _refuse("scheme_not_allowed", "scheme %r refused", scheme, level=logging.WARNING)
    if parts.username is not None or parts.password is not None:
        # Never forwarded, and "http://allowed.example@evil.example/" is a classic disguise.
        raise _refuse("invalid_url", "URL carries credentials")
    host = _normalize_host(parts.hostname or "")
    if not host:
        raise _refuse("invalid_url", "URL has no host")
    if not _is_ip_literal(host) and not _HOSTNAME_RE.fullmatch(host):
        raise _refuse("invalid_url", "host %r is not a valid host name", host)
    port = port or _DEFAULT_PORTS[scheme]
    path = quote(parts.path or "/", safe=_PATH_SAFE)
    query = quote(parts.query, safe=_QUERY_SAFE)
    netloc = f"[{host}]" if ":" in host else host
    return _Target(
        scheme=scheme,
        host=host,
        port=port,
        request_target=f"{path}?{query}" if query else path,
        description=f"{scheme}://{netloc}:{port}{path}"[:300],
    )


def _normalize_host(host: str) -> str:
    """Lowercase, IDNA-encode and drop the root dot, so allowlist comparisons are exact."""
    host = host.strip().lower().rstrip(".")
    if not host or _is_ip_literal(host) or host.isascii():
        return host
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return ""  # not a usable host name; the caller treats "" as invalid


def _is_ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _checked_addresses(
    target: _Target, policy: FetchPolicy, resolve: Resolver, deadline: float
) -> list[str]:
    """Resolve the host once and refuse unless every address may be reached."""
    if _is_ip_literal(target.host):
        answers = [target.host]
    else:
        answers = _resolve_within(resolve, target.host, target.port, deadline)
    addresses: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = []
    for answer in answers:
        try:
            addresses.append(ipaddress.ip_address(answer))
        except ValueError as exc:
            raise _refuse("dns_failed", "resolver returned %r", answer) from exc
    if not addresses:
        raise _refuse("dns_failed", "%s resolved to no address", target.host)
    if target.host in policy.allow_hosts:
        return [str(address) for address in addresses]
    for address in addresses:
        # One bad address refuses the lot: otherwise an attacker's DNS could pair a public address
        # with a private one and let the connection order decide.
        if not (is_public_address(address) or policy.allows_address(address)):
            raise _refuse(
                "address_not_allowed",
                "%s resolved to %s, which is not a public address",
                target.description,
                address,
                level=logging.WARNING,
            )
    return [str(address) for address in addresses]


def _system_resolve(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    # Keep the resolver's order (it already prefers what the host can reach), drop duplicates.
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


# getaddrinfo() has no timeout of its own, so a lookup runs in a daemon thread and the caller
# waits at most until the deadline. The semaphore bounds how many stuck lookups can pile up.
_MAX_PENDING_LOOKUPS = 32
_lookup_slots = threading.BoundedSemaphore(_MAX_PENDING_LOOKUPS)


def _reset_lookup_slots() -> None:
    # A forked child inherits slots held by lookups whose threads did not survive the fork.
    global _lookup_slots
    _lookup_slots = threading.BoundedSemaphore(_MAX_PENDING_LOOKUPS)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_lookup_slots)


def _resolve_within(resolve: Resolver, host: str, port: int, deadline: float) -> list[str]:
    slots = _lookup_slots
    if not slots.acquire(timeout=_remaining(deadline, f"waiting to resolve {host}")):
        raise _refuse("timeout", "no free resolver slot before the deadline for %s", host)
    answers: list[list[str]] = []
    errors: list[BaseException] = []

    def lookup() -> None:
        try:
            answers.append(list(resolve(host, port)))
        except BaseException as exc:  # handed to the waiting thread, which decides
            errors.append(exc)
        finally:
            slots.release()

    thread = threading.Thread(target=lookup, name="fetch-resolve", daemon=True)
    try:
        thread.start()
    except BaseException:
        slots.release()  # the thread that would have released it never ran
        raise
    thread.join(_remaining(deadline, f"resolving {host}"))
    if thread.is_alive():
        raise _refuse("timeout", "resolving %s did not finish before the deadline", host)
    if errors:
        error = errors[0]
        if isinstance(error, OSError | UnicodeError):
            raise _refuse("dns_failed", "resolving %s failed: %s", host, error) from error
        raise error  # a bug in an injected resolver is not a DNS failure
    return answers[0]


class _DeadlineReader(io.RawIOBase):
    """Socket reads that each get only the time left before the deadline.

    A socket timeout alone bounds each read, not the sum of them: a server sending a byte every
    half second would never trip it. Setting the timeout to what remains before every read, and
    refusing to read once nothing remains, bounds the whole response (status line, headers and
    body) by the one deadline.
    """

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        super().__init__()
        self._sock = sock
        # An unbuffered makefile() keeps the socket open while the response still needs it, even
        # after http.client "closes" the connection (it does for Connection: close responses).
        self._raw = sock.makefile("rb", buffering=0)
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("deadline reached while reading")
        self._sock.settimeout(remaining)
        return self._raw.readinto(buffer) or 0

    def close(self) -> None:
        if not self.closed:
            self._raw.close()
        super().close()


class _DeadlineResponse(http.client.HTTPResponse):
    def __init__(
        self,
        sock: socket.socket,
        debuglevel: int = 0,
        method: str | None = None,
        url: str | None = None,
        *,
        deadline: float,
    ) -> None:
        super().__init__(sock, debuglevel=debuglevel, method=method, url=url)
        self.fp.close()  # the plain makefile() from the base class; ours replaces it
        self.fp = io.BufferedReader(_DeadlineReader(sock, deadline))


class _PinnedConnection(http.client.HTTPConnection):
    """An HTTP(S) connection to addresses that were already checked, never to a fresh lookup.

    `self.host` stays the name from the URL, so http.client sends the right Host header; TLS gets
    the same name for SNI and certificate verification.
    """

    def __init__(
        self,
        target: _Target,
        addresses: list[str],
        deadline: float,
        tls_context: ssl.SSLContext | None,
    ) -> None:
        super().__init__(target.host, target.port)
        self.default_port = _DEFAULT_PORTS[target.scheme]  # no ":443" in the Host header
        self.response_class = functools.partial(_DeadlineResponse, deadline=deadline)  # type: ignore[assignment]
        self._addresses = addresses
        self._deadline = deadline
        self._tls_context = tls_context

    def connect(self) -> None:
        last_error: OSError = OSError("no address to connect to")
        for address in self._addresses:
            try:
                self.sock = self._connect_to(address)
            except TimeoutError:
                raise  # the deadline is spent: no time left for another address
            except OSError as exc:  # refused or unreachable: try the next checked address
                last_error = exc
            else:
                return
        raise last_error

    def _connect_to(self, address: str) -> socket.socket:
        # AI_NUMERICHOST: turn the checked literal into a sockaddr (IPv6 scope included) without
        # any chance of a DNS query.
        family, kind, proto, _, sockaddr = socket.getaddrinfo(
            address, self.port, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST
        )[0]
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(_remaining(self._deadline, f"connecting to {address}"))
            sock.connect(sockaddr)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self._tls_context is not None:
                sock.settimeout(_remaining(self._deadline, f"TLS with {address}"))
                sock = self._tls_context.wrap_socket(sock, server_hostname=self.host)
        except BaseException:
            sock.close()
            raise
        return sock


@functools.cache
def _default_tls_context() -> ssl.SSLContext:
    # Built once: loading the system CA store is not free, and a context is safe to share.
    context = ssl.create_default_context()
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.set_alpn_protocols(["http/1.1"])
    return context


def _request(
    url: str, target: _Target, addresses: list[str], policy: FetchPolicy, deadline: float
) -> Fetched | _Redirect:
    """One GET to one checked host: the body, or where the server redirects to."""
    tls_context = None
    if target.scheme == "https":
        tls_context = policy.ssl_context or _default_tls_context()
    connection = _PinnedConnection(target, addresses, deadline, tls_context)
    response: http.client.HTTPResponse | None = None
    try:
        connection.connect()
        connection.sock.settimeout(_remaining(deadline, "sending the request"))
        connection.request("GET", target.request_target, headers=_request_headers(policy))
        response = connection.getresponse()
        return _read_response(url, target, response, policy, deadline)
    except FetchError:
        raise
    except TimeoutError as exc:
        raise _refuse("timeout", "%s: deadline reached (%s)", target.description, exc) from exc
    except ssl.SSLError as exc:  # includes certificate and host name verification failures
        raise _refuse("connection_failed", "%s: TLS failed: %s", target.description, exc) from exc
    except http.client.HTTPException as exc:
        raise _refuse(
            "bad_response", "%s: malformed response: %r", target.description, exc
        ) from exc
    except OSError as exc:
        raise _refuse("connection_failed", "%s: %s", target.description, exc) from exc
    finally:
        if response is not None:
            response.close()
        connection.close()


def _request_headers(policy: FetchPolicy) -> dict[str, str]:
    accept = ", ".join(
        f"{allowed}*" if allowed.endswith("/") else allowed
        for allowed in policy.allowed_content_types
    )
    # http.client adds "Accept-Encoding: identity" itself: compressed bodies are not wanted (a
    # decompressor would be a way around the size cap).
    return {"User-Agent": policy.user_agent, "Accept": accept or "*/*", "Connection": "close"}


def _read_response(
    url: str,
    target: _Target,
    response: http.client.HTTPResponse,
    policy: FetchPolicy,
    deadline: float,
) -> Fetched | _Redirect:
    if response.status in _REDIRECT_STATUSES:
        location = response.getheader("Location")
        if not location:
            raise _refuse("bad_response", "%s redirected without a Location", target.description)
        return _Redirect(location=location)
    if response.status != 200:
        raise _refuse("bad_status", "%s answered %d", target.description, response.status)
    encoding = (response.getheader("Content-Encoding") or "identity").strip().lower()
    if encoding != "identity":
        raise _refuse(
            "bad_response", "%s sent a %r-encoded body", target.description, encoding[:50]
        )
    media_type = _media_type(response.getheader("Content-Type") or "")
    if not policy.allows_content_type(media_type):
        raise _refuse("bad_content_type", "%s has type %r", target.description, media_type[:100])
    # http.client parsed Content-Length into .length (None when chunked or absent).
    if response.length is not None and response.length >= policy.max_bytes:
        raise _refuse(
            "too_large",
            "%s declares %d bytes (cap %d)",
            target.description,
            response.length,
            policy.max_bytes,
        )
    chunks: list[bytes] = []
    received = 0
    while True:
        _remaining(deadline, "reading the body")
        chunk = response.read1(_READ_CHUNK)
        if not chunk:
            break
        received += len(chunk)
        if received >= policy.max_bytes:
            raise _refuse(
                "too_large",
                "%s sent %d bytes or more (cap %d)",
                target.description,
                received,
                policy.max_bytes,
            )
        chunks.append(chunk)
    if response.length:  # the server closed before sending what Content-Length promised
        raise _refuse("bad_response", "%s: body cut short", target.description)
    return Fetched(url=url, content_type=media_type, data=b"".join(chunks))


def _media_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def _remaining(deadline: float, doing: str) -> float:
    """Seconds left before `deadline`; refuses with "timeout" when none are."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise _refuse("timeout", "deadline reached while %s", doing)
    return remaining


# --- data: ---------------------------------------------------------------------------------------


def _parse_data_url(url: str) -> tuple[str, bytes]:
    """`(media type, decoded bytes)` of a data: URL (RFC 2397)."""
    if not isinstance(url, str) or url.strip()[:5].lower() != "data:":
        raise _refuse("invalid_url", "not a data: URL")
    header, comma, payload = url.strip()[5:].partition(",")
    if not comma:
        raise _refuse("invalid_url", "data: URL without a comma")
    params = [param.strip() for param in header.split(";")]
    is_base64 = len(params) > 1 and params[-1].lower() == "base64"
    if is_base64:
        params.pop()
    media_type = params[0].lower() or "text/plain"
    if not _MEDIA_TYPE_RE.fullmatch(media_type):
        # The length only: the text before the comma is the caller's data (a fill value that
        # merely starts with "data:"), and no log line carries request data.
        raise _refuse(
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
        raise _refuse("invalid_url", "data: URL has invalid base64") from exc


# --- errors --------------------------------------------------------------------------------------


def _refuse(
    code: FetchErrorCode, detail: str, *args: object, level: int = logging.INFO
) -> FetchError:
    """Log why (for operators) and return the generic error (for the caller) to raise."""
    logger.log(level, "Fetch refused (%s): " + detail, code, *args)
    return FetchError(code)
