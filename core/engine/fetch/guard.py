"""The address guard: which URLs may be reached, and at which addresses.

A URL is parsed into a `Target` (http or https, no credentials, a valid host), its host is
resolved once within the deadline, and *every* resolved address must be globally routable unless
the policy allowlists the host or the network. The connection layer then connects only to the
addresses returned here, so a second DNS answer (rebinding) never gets a say.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import re
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from core.engine.fetch.errors import refuse, remaining
from core.engine.fetch.policy import FetchPolicy, is_ip_literal, normalize_host

Resolver = Callable[[str, int], list[str]]

MAX_URL_LENGTH = 8192  # for http(s); data: URLs are bounded by the request body size instead
DEFAULT_PORTS = {"http": 80, "https": 443}
# Host names after IDNA encoding: dot-separated labels of letters, digits, "-" and "_".
_HOSTNAME_RE = re.compile(r"(?:[a-z0-9_-]{1,63}\.)*[a-z0-9_-]{1,63}")
# Characters left alone when re-quoting a path or query: the reserved set and "%" (so an already
# escaped URL stays as it is). Spaces and non-ASCII are escaped, as a browser would.
_PATH_SAFE = "/%:@!$&'()*+,;="
_QUERY_SAFE = _PATH_SAFE + "?"

# Ranges that `ipaddress.is_global` lets through in Python 3.11 but that must never be reached.
_CGNAT = ipaddress.IPv4Network("100.64.0.0/10")
# NAT64 (RFC 6052): on an IPv6-only host, DNS64 answers with these for IPv4-only sites, so judge
# them by the IPv4 address they carry rather than refusing them all.
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str  # ASCII (IDNA) host name or IP literal, lowercased, no brackets or trailing dot
    port: int
    request_target: str  # path and query as sent on the request line
    description: str  # for logs: no credentials, no query string


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


def parse_http_url(url: str) -> Target:
    """The request target of an http(s) URL, or "invalid_url" / "scheme_not_allowed"."""
    if len(url) > MAX_URL_LENGTH:
        raise refuse("invalid_url", "URL is %d characters long", len(url))
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise refuse("invalid_url", "URL does not parse: %s", exc) from exc
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise refuse("scheme_not_allowed", "scheme %r refused", scheme, level=logging.WARNING)
    if parts.username is not None or parts.password is not None:
        # Never forwarded, and "http://allowed.example@evil.example/" is a classic disguise.
        raise refuse("invalid_url", "URL carries credentials")
    host = normalize_host(parts.hostname or "")
    if not host:
        raise refuse("invalid_url", "URL has no host")
    if not is_ip_literal(host) and not _HOSTNAME_RE.fullmatch(host):
        raise refuse("invalid_url", "host %r is not a valid host name", host)
    port = port or DEFAULT_PORTS[scheme]
    path = quote(parts.path or "/", safe=_PATH_SAFE)
    query = quote(parts.query, safe=_QUERY_SAFE)
    netloc = f"[{host}]" if ":" in host else host
    return Target(
        scheme=scheme,
        host=host,
        port=port,
        request_target=f"{path}?{query}" if query else path,
        description=f"{scheme}://{netloc}:{port}{path}"[:300],
    )


def checked_addresses(
    target: Target, policy: FetchPolicy, resolve: Resolver, deadline: float
) -> list[str]:
    """Resolve the host once and refuse unless every address may be reached."""
    if is_ip_literal(target.host):
        answers = [target.host]
    else:
        answers = _resolve_within(resolve, target.host, target.port, deadline)
    addresses: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = []
    for answer in answers:
        try:
            addresses.append(ipaddress.ip_address(answer))
        except ValueError as exc:
            raise refuse("dns_failed", "resolver returned %r", answer) from exc
    if not addresses:
        raise refuse("dns_failed", "%s resolved to no address", target.host)
    if target.host in policy.allow_hosts:
        return [str(address) for address in addresses]
    for address in addresses:
        # One bad address refuses the lot: otherwise an attacker's DNS could pair a public address
        # with a private one and let the connection order decide.
        if not (is_public_address(address) or policy.allows_address(address)):
            raise refuse(
                "address_not_allowed",
                "%s resolved to %s, which is not a public address",
                target.description,
                address,
                level=logging.WARNING,
            )
    return [str(address) for address in addresses]


def system_resolve(host: str, port: int) -> list[str]:
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
    if not slots.acquire(timeout=remaining(deadline, f"waiting to resolve {host}")):
        raise refuse("timeout", "no free resolver slot before the deadline for %s", host)
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
    thread.join(remaining(deadline, f"resolving {host}"))
    if thread.is_alive():
        raise refuse("timeout", "resolving %s did not finish before the deadline", host)
    if errors:
        error = errors[0]
        if isinstance(error, OSError | UnicodeError):
            raise refuse("dns_failed", "resolving %s failed: %s", host, error) from error
        raise error  # a bug in an injected resolver is not a DNS failure
    return answers[0]
