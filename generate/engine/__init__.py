"""The generate engine: a checked request in, PDF bytes out, with WeasyPrint. No Django here.

    request = parse_generate_request(body, font_check=..., max_source_bytes=...)
    job = build_render_job(request, now=..., fetcher=ResourceFetcher(...), font_css=...,
                           limits=ElementLimits(table_cells=..., elements=...), ...)
    pdf = generate.engine.render.render_pdf(job).pdf  # in this process (loads WeasyPrint), or
    pdf = RenderPool(PoolSettings()).run(job, timeout=60, queue_timeout=60).pdf
    pdf = RenderPool(...).render(job, ..., parts=PartSettings()).pdf  # a long table in parts

The engine never reads settings or the clock: limits, the fetch policy, fonts and ``now`` are
handed in by the caller.
"""

from core.engine.problems import Problem
from generate.engine.bounds import ElementLimits
from generate.engine.document import WATERMARK_TEXT, build_render_job
from generate.engine.errors import (
    ElementLimitExceeded,
    GenerateError,
    GenerateInvalid,
    PageLimitExceeded,
    RenderBusy,
    RenderCpuLimit,
    RenderCrashed,
    RenderFailed,
    RenderOutOfMemory,
    RenderTimeout,
    RenderUnavailable,
    SourceTooLarge,
    TableCellLimitExceeded,
)
from generate.engine.job import RenderedPdf, RenderJob
from generate.engine.parse_request import parse_generate_request
from generate.engine.pool import PartSettings, PoolSettings, RenderPool
from generate.engine.request import GenerateRequest
from generate.engine.resources import RESOURCE_CONTENT_TYPES, ResourceFetcher, ResourceRefused

__all__ = [
    "RESOURCE_CONTENT_TYPES",
    "WATERMARK_TEXT",
    "ElementLimitExceeded",
    "ElementLimits",
    "GenerateError",
    "GenerateInvalid",
    "GenerateRequest",
    "PageLimitExceeded",
    "PartSettings",
    "PoolSettings",
    "Problem",
    "RenderBusy",
    "RenderCpuLimit",
    "RenderCrashed",
    "RenderFailed",
    "RenderJob",
    "RenderOutOfMemory",
    "RenderPool",
    "RenderTimeout",
    "RenderUnavailable",
    "RenderedPdf",
    "ResourceFetcher",
    "ResourceRefused",
    "SourceTooLarge",
    "TableCellLimitExceeded",
    "build_render_job",
    "parse_generate_request",
]
