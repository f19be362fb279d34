"""Generate: a request body to PDF bytes, through the engine and a render worker process."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from accounts.identity import ApiIdentity
from accounts.payload_keys import payload_decrypt
from core.engine.fonts import FontLibrary, FontNotFound, FontUnavailable
from core.errors import (
    FontUnavailableError,
    RequestTooLarge,
    ServiceError,
    UnprocessableDocument,
    ValidationFailed,
)
from core.resources import font_library, resource_policy
from generate.engine import (
    RESOURCE_CONTENT_TYPES,
    GenerateInvalid,
    PageLimitExceeded,
    PoolSettings,
    RenderBusy,
    RenderCrashed,
    RenderFailed,
    RenderOutOfMemory,
    RenderPool,
    RenderTimeout,
    ResourceFetcher,
    SourceTooLarge,
    build_render_job,
    parse_generate_request,
)
from generate.engine.request import FontCheck

logger = logging.getLogger(__name__)

LOGO_PATH = Path(__file__).resolve().parent / "static" / "generate" / "logo.svg"


class ServiceBusy(ServiceError):
    name = "ServiceBusyError"
    status = 503
    default_message = "Every PDF renderer is busy; try again shortly."


def pdf_generate(*, identity: ApiIdentity, body: object) -> bytes:
    """The PDF for a generate request body (JSON or multipart, already parsed).

    Raises ValidationFailed (400, with property paths), RequestTooLarge (413),
    UnprocessableDocument (422: page cap, time cap, memory, a document the renderer fails on),
    FontUnavailableError or ServiceBusy (503). A render worker that dies is a 500.
    """
    if not isinstance(body, Mapping):
        raise ValidationFailed.single("", "The request body must be a JSON object.")
    body = dict(body)
    data = body.get("data")
    if isinstance(data, str) and data:
        body["data"] = payload_decrypt(organization=identity.organization, text=data)

    library = font_library()
    try:
        request = parse_generate_request(
            body,
            font_check=_font_check(library),
            max_source_bytes=settings.GENERATE_MAX_SOURCE_BYTES,
        )
    except GenerateInvalid as exc:
        raise ValidationFailed.from_problems(exc.problems) from None
    except SourceTooLarge as exc:
        raise RequestTooLarge(str(exc)) from None

    try:
        job = build_render_job(
            request,
            now=timezone.now(),
            fetcher=document_fetcher(),
            font_css=library.css_font_faces,
            default_logo_url=LOGO_PATH.as_uri(),
            watermark=identity.is_development,
            max_pages=settings.GENERATE_MAX_PAGES,
        )
    except FontUnavailable as exc:
        logger.warning("generate: font %r unavailable: %s", exc.family, exc.detail)
        raise FontUnavailableError(exc.message) from None

    try:
        rendered = render_pool().run(
            job,
            timeout=settings.GENERATE_TIMEOUT_SECONDS,
            queue_timeout=settings.GENERATE_QUEUE_TIMEOUT_SECONDS,
        )
    except (PageLimitExceeded, RenderTimeout, RenderOutOfMemory) as exc:
        logger.info("generate: refused (%s)", exc.code)
        raise UnprocessableDocument(str(exc)) from None
    except RenderBusy as exc:
        logger.warning("generate: no free render worker within %ss", exc.seconds)
        raise ServiceBusy() from None
    except RenderFailed as exc:
        # The renderer could not cope with this document: the caller's to change, but worth a
        # look (a WeasyPrint limitation, or a bug).
        logger.error("generate: the renderer failed on a document: %s", exc.detail)
        raise UnprocessableDocument(str(exc)) from None
    except RenderCrashed as exc:
        logger.error("generate: render worker died: %s", exc.detail)
        raise
    logger.info(
        "generate: %s document, %d pages, %d bytes", request.mode, rendered.pages, len(rendered.pdf)
    )
    return rendered.pdf


def _font_check(library: FontLibrary) -> FontCheck:
    def check(name: str) -> str | None:
        try:
            library.check_family(name)
        except FontNotFound as exc:
            return exc.message
        return None

    return check


def document_fetcher() -> ResourceFetcher:
    """The URL rules of generated documents, from settings: the safe fetcher's policy for
    http(s) and data: URLs, and local files only from the font cache and the logo."""
    return ResourceFetcher(
        policy=resource_policy(allowed_content_types=RESOURCE_CONTENT_TYPES),
        file_roots=(str(settings.FONT_CACHE_DIR),),
        files=(str(LOGO_PATH),),
    )


_pool_lock = threading.Lock()
_pool: tuple[tuple[object, ...], RenderPool] | None = None


def render_pool() -> RenderPool:
    """This process's render pool, made on first use (and again after a fork or a change of
    the worker settings, the old one being closed)."""
    global _pool
    pool_settings = PoolSettings(
        workers=settings.GENERATE_WORKERS,
        max_jobs=settings.GENERATE_WORKER_MAX_JOBS,
        memory_limit_bytes=settings.GENERATE_WORKER_MEMORY_MB * 1024 * 1024,
    )
    key = (os.getpid(), pool_settings)
    with _pool_lock:
        if _pool is not None and _pool[0] == key:
            return _pool[1]
        previous = _pool
        _pool = (key, RenderPool(pool_settings))
        current = _pool[1]
    if previous is not None and previous[0][0] == os.getpid():
        previous[1].close()
    return current
