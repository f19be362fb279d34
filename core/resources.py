"""The engines' outside-world objects, built from settings: fonts and fetch policies (resources,
images, font downloads, webhook deliveries).

Engines read no settings; services call these to hand them what they need. The font library is
built once per process (per distinct configuration) because it caches cmaps and downloads.
"""

from __future__ import annotations

import functools
from pathlib import Path

from django.conf import settings

from core.engine.fetch import FetchPolicy, fetch
from core.engine.fonts import FontLibrary


def _allow() -> dict[str, object]:
    return {
        "allow_hosts": frozenset(h.lower() for h in settings.FETCH_ALLOW_HOSTS),
        "allow_networks": tuple(settings.FETCH_ALLOW_NETWORKS),
    }


def resource_policy(*, allowed_content_types: tuple[str, ...] = ()) -> FetchPolicy:
    """Resources named by request data: the spec's size cap and deadline, no redirects."""
    return FetchPolicy(
        deadline_seconds=settings.FETCH_DEADLINE_SECONDS,
        max_bytes=settings.FETCH_IMAGE_MAX_BYTES,
        allowed_content_types=allowed_content_types,
        max_redirects=0,
        **_allow(),
    )


def image_policy() -> FetchPolicy:
    """Images named by request data: image/* only, the spec's size cap, no redirects."""
    return resource_policy(allowed_content_types=("image/",))


def webhook_policy() -> FetchPolicy:
    """Webhook deliveries: the webhook deadline, no redirects, the response kept as an excerpt."""
    return FetchPolicy(
        deadline_seconds=settings.WEBHOOK_TIMEOUT_SECONDS,
        max_bytes=settings.WEBHOOK_RESPONSE_EXCERPT_BYTES,
        max_redirects=0,
        user_agent="docautomation-webhooks/1",
        **_allow(),
    )


def font_download_policy() -> FetchPolicy:
    # Catalog fonts are labelled inconsistently (font/ttf, application/octet-stream...): the
    # fonts engine checks the bytes with fontTools instead of trusting the content type.
    return FetchPolicy(
        deadline_seconds=settings.FONT_DOWNLOAD_DEADLINE_SECONDS,
        max_bytes=settings.FONT_DOWNLOAD_MAX_BYTES,
        max_redirects=2,
        **_allow(),
    )


@functools.cache
def _font_library(cache_dir: str, base_url: str, policy: FetchPolicy) -> FontLibrary:
    return FontLibrary(
        cache_dir=Path(cache_dir),
        download=lambda url: fetch(url, policy).data,
        catalog_base_url=base_url,
    )


def font_library() -> FontLibrary:
    return _font_library(
        str(settings.FONT_CACHE_DIR), settings.FONT_CATALOG_BASE_URL, font_download_policy()
    )
