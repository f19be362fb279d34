"""Generate: a request body to PDF bytes, through the engine and a render worker process."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from accounts.models import Organization
from accounts.payload_keys import payload_decrypt
from core.engine.problems import EngineError
from core.engine.process_pool import PoolSettings
from core.errors import FieldError, ValidationFailed, raise_for_engine_error
from core.pools import SettingsPool
from core.resources import font_library, resource_policy
from generate.engine import (
    RESOURCE_CONTENT_TYPES,
    ElementLimits,
    GenerateRequest,
    PartSettings,
    RenderedPdf,
    RenderJob,
    RenderPool,
    ResourceFetcher,
    build_render_job,
    parse_generate_request,
)
from templates_app.engine.tag_widgets import add_tag_fields
from templates_app.engine.text_tags import apply_text_tags

logger = logging.getLogger(__name__)

LOGO_PATH = Path(__file__).resolve().parent / "static" / "generate" / "logo.svg"


def pdf_generate(*, organization: Organization, watermark: bool, body: object) -> bytes:
    """The PDF ``organization`` asked for with a generate request body (JSON or multipart,
    already parsed); ``watermark`` for a development key's documents.

    Raises ValidationFailed (400, with property paths), RequestTooLarge (413),
    UnprocessableDocument (422: table cells or elements over their caps, before any rendering;
    page cap, CPU-time cap, wall-clock backstop, memory, a document the renderer fails on, a
    render worker that died while rendering it), FontUnavailableError or ServiceBusy (503, with
    Retry-After: every worker busy for the queue timeout, the queue full, the organization at
    its share of the workers, or no worker could be started).
    """
    return pdf_render(organization=organization, watermark=watermark, body=body).pdf


def pdf_check(*, organization: Organization, body: object) -> None:
    """Raise what `pdf_generate` would raise for ``body`` before rendering (400, 413, 422 for
    too many table cells or elements, 503 for a font), without rendering: an asynchronous job is
    refused now, not once it runs."""
    _render_job(organization=organization, watermark=False, body=body)


def pdf_render(*, organization: Organization, watermark: bool, body: object) -> RenderedPdf:
    """`pdf_generate`, with the page count."""
    job, request = _render_job(organization=organization, watermark=watermark, body=body)
    try:
        rendered = render_pool().render(
            job,
            timeout=settings.GENERATE_WALL_TIMEOUT_SECONDS,
            queue_timeout=settings.GENERATE_QUEUE_TIMEOUT_SECONDS,
            # One organization's documents never hold every render worker of this process (a
            # document in parts borrows idle ones only).
            tenant=organization.eid,
            parts=_part_settings(),
        )
    except EngineError as error:
        raise_for_engine_error(error)
    if request.field_tags:
        rendered = _with_tag_fields(rendered)
    logger.info(
        "generate: %s document, %d pages, %d bytes",
        request.mode,
        rendered.pages,
        len(rendered.pdf),
    )
    return rendered


def _with_tag_fields(rendered: RenderedPdf) -> RenderedPdf:
    """``fieldTags``: the rendered PDF with its text tags as form fields, their text removed
    (docs/text-tags.md). A tag that does not read is a 400 on ``data`` naming it and its page:
    the document is the caller's to fix, and a PDF with a tag's text left in it is no form."""
    try:
        tagged = apply_text_tags(rendered.pdf, max_pages=max(rendered.pages, 1))
    except EngineError as error:  # a PDF just rendered reads; said as the engine says it
        raise_for_engine_error(error)
    if tagged.problems:
        raise ValidationFailed(
            FieldError(
                property="data",
                message=f"Text tag {problem.text} on page {problem.page + 1}: {problem.message}",
            )
            for problem in tagged.problems
        )
    return dataclasses.replace(rendered, pdf=add_tag_fields(tagged.pdf, tagged.fields))


def _part_settings() -> PartSettings | None:
    if settings.GENERATE_PARTS_MIN_BYTES <= 0:
        return None
    return PartSettings(
        min_bytes=settings.GENERATE_PARTS_MIN_BYTES, part_pages=settings.GENERATE_PART_PAGES
    )


def _render_job(
    *, organization: Organization, watermark: bool, body: object
) -> tuple[RenderJob, GenerateRequest]:
    if not isinstance(body, Mapping):
        raise ValidationFailed.single("", "The request body must be a JSON object.")
    body = dict(body)
    data = body.get("data")
    if isinstance(data, str) and data:
        body["data"] = payload_decrypt(organization=organization, text=data)

    library = font_library()
    try:
        request = parse_generate_request(
            body,
            font_check=library.family_problem,
            max_source_bytes=settings.GENERATE_MAX_SOURCE_BYTES,
        )
        job = build_render_job(
            request,
            now=timezone.now(),
            fetcher=document_fetcher(),
            font_css=library.css_font_faces,
            default_logo_url=LOGO_PATH.as_uri(),
            watermark=watermark,
            max_pages=settings.GENERATE_MAX_PAGES,
            limits=ElementLimits(
                table_cells=settings.GENERATE_MAX_TABLE_CELLS,
                elements=settings.GENERATE_MAX_ELEMENTS,
            ),
        )
    except EngineError as error:
        raise_for_engine_error(error)
    # The cap is CPU time, counted by the worker (a busy host does not make a document
    # longer); wall-clock time is only a backstop.
    job = dataclasses.replace(
        job,
        cpu_seconds=settings.GENERATE_TIMEOUT_SECONDS,
        cpu_seconds_per_page=settings.GENERATE_TIMEOUT_SECONDS_PER_PAGE,
    )
    return job, request


def document_fetcher() -> ResourceFetcher:
    """The URL rules of generated documents, from settings: the safe fetcher's policy for
    http(s) and data: URLs, and local files only from the font cache and the logo."""
    return ResourceFetcher(
        policy=resource_policy(allowed_content_types=RESOURCE_CONTENT_TYPES),
        file_roots=(str(settings.FONT_CACHE_DIR),),
        files=(str(LOGO_PATH),),
    )


def _make_pool(pool_settings: PoolSettings) -> RenderPool:
    # Made in the process that renders (a forked server process makes its own), which starts
    # GENERATE_WORKERS_WARM workers in the background at once and keeps them started.
    return RenderPool(dataclasses.replace(pool_settings, warm=settings.GENERATE_WORKERS_WARM))


_pool = SettingsPool(_make_pool, "GENERATE")


def render_pool() -> RenderPool:
    """This process's render pool (GENERATE_WORKERS, GENERATE_WORKER_MAX_JOBS …: core.pools;
    GENERATE_WORKERS_WARM)."""
    return _pool.get()
