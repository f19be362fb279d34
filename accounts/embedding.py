"""The origins an organization allows to embed its signing and workflow pages in an iframe.

esign and workflows read them with :func:`embed_origins` to build the Content-Security-Policy
``frame-ancestors`` of the pages they serve; the settings page changes them with
:func:`embed_origins_set`. An origin is exactly what a browser sends in ``Origin``: a scheme, a
host and an optional port, with no path, query, fragment or credentials.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from django.http import HttpResponse

from accounts.models import Organization
from core.errors import ValidationFailed

MAX_EMBED_ORIGINS = 50
_HOST_LABEL = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)")
_LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]"})


def normalize_origin(text: str) -> str:
    """``text`` as a canonical origin (lowercase, default port dropped); ValueError if it is not.

    https only, except http for loopback hosts (local development of the embedding app).
    """
    value = text.strip()
    if not value or any(c.isspace() for c in value) or len(value) > 300:
        raise ValueError("An origin is a scheme and a host, like https://app.example.com.")
    parts = urlsplit(value)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise ValueError("Use https (http is allowed for localhost only).")
    if parts.path not in ("", "/") or parts.query or parts.fragment or "@" in parts.netloc:
        raise ValueError("An origin has no path, query or credentials: https://app.example.com.")
    try:
        host, port = (parts.hostname or ""), parts.port
    except ValueError:
        raise ValueError("The port of the origin is not a number from 1 to 65535.") from None
    if not _valid_host(host):
        raise ValueError("The origin's host is not a valid host name.")
    shown_host = f"[{host}]" if ":" in host else host
    if scheme != "https" and not (scheme == "http" and shown_host in _LOOPBACK_HOSTS):
        raise ValueError("Use https (http is allowed for localhost only).")
    default_port = 443 if scheme == "https" else 80
    suffix = f":{port}" if port is not None and port != default_port else ""
    return f"{scheme}://{shown_host}{suffix}"


def _valid_host(host: str) -> bool:
    if not host:
        return False
    try:
        ipaddress.ip_address(host)
    except ValueError:
        pass
    else:
        return True
    labels = host.rstrip(".").split(".")
    # A leading "*." allows every subdomain, as frame-ancestors does.
    if labels[0] == "*" and len(labels) > 2:
        labels = labels[1:]
    return all(_HOST_LABEL.fullmatch(label) for label in labels)


def parse_origins(lines: Iterable[str]) -> list[str]:
    """Canonical, de-duplicated origins in the order given; a 400 naming each bad line."""
    origins: list[str] = []
    problems: list[str] = []
    for line in lines:
        if not line.strip():
            continue
        try:
            origin = normalize_origin(line)
        except ValueError as error:
            problems.append(f"{line.strip()[:100]}: {error}")
            continue
        if origin not in origins:
            origins.append(origin)
    if problems:
        raise ValidationFailed.single("embedOrigins", " ".join(problems))
    if len(origins) > MAX_EMBED_ORIGINS:
        raise ValidationFailed.single("embedOrigins", f"At most {MAX_EMBED_ORIGINS} origins.")
    return origins


def embed_origins(organization: Organization) -> list[str]:
    """The organization's allowed embedding origins, canonical (for frame-ancestors)."""
    return [o for o in organization.embed_origins if isinstance(o, str)]


def allow_framing_by(response: HttpResponse, origins: Iterable[str]) -> HttpResponse:
    """Let only ``origins`` (and the service itself) frame ``response``'s page: the CSP
    ``frame-ancestors`` instead of X-Frame-Options, and nothing of the page cached."""
    response["Content-Security-Policy"] = "frame-ancestors " + " ".join(["'self'", *origins])
    response.headers.pop("X-Frame-Options", None)
    response.xframe_options_exempt = True  # type: ignore[attr-defined]
    response["Cache-Control"] = "no-store"
    return response


def allow_framing_by_anyone(response: HttpResponse) -> HttpResponse:
    """Let any page frame ``response``'s page: for pages that hold no secret and must reach the
    integrator whatever its origin (the signing link that cannot be used, which posts
    ``signerError``). Nothing of it is cached."""
    response["Content-Security-Policy"] = "frame-ancestors *"
    response.headers.pop("X-Frame-Options", None)
    response.xframe_options_exempt = True  # type: ignore[attr-defined]
    response["Cache-Control"] = "no-store"
    return response


def embed_origins_set(*, organization: Organization, lines: Iterable[str]) -> list[str]:
    """Validate and store the origins (one per line); returns what was stored."""
    origins = parse_origins(lines)
    organization.embed_origins = origins
    organization.save(update_fields=["embed_origins", "updated_at"])
    return origins
