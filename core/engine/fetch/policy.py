"""`FetchPolicy`: what one kind of outbound request may do, and host-name normalisation."""

from __future__ import annotations

import ipaddress
import ssl
from dataclasses import dataclass, field


@dataclass(frozen=True)
class FetchPolicy:
    """What one kind of outbound request may do.

    `max_bytes` caps the response body. `fetch()` refuses a resource of `max_bytes` bytes or
    more (the spec says "at 10 MB or more the image may not load"); `post()` keeps the first
    `max_bytes` bytes and reads no further. `allowed_content_types` entries ending in "/" match
    as prefixes ("image/"), others exactly ("image/png"); empty means any type. `allow_hosts` and
    `allow_networks` let chosen hosts or CIDR networks through even though they are private (for
    tests and intranet deployments); anything else must be globally routable. `ssl_context`
    replaces the default certificate verification, e.g. to trust an intranet CA.
    `allowed_content_types` and `max_redirects` apply to `fetch()` only: `post()` returns any
    response as it is and never follows a redirect.
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
            self, "allow_hosts", frozenset(normalize_host(h) for h in self.allow_hosts)
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


def normalize_host(host: str) -> str:
    """Lowercase, IDNA-encode and drop the root dot, so allowlist comparisons are exact."""
    host = host.strip().lower().rstrip(".")
    if not host or is_ip_literal(host) or host.isascii():
        return host
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return ""  # not a usable host name; the caller treats "" as invalid


def is_ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
