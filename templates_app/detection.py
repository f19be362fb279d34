"""Fields found on a template's flat pages, for the editor's "Detect fields"
(``templates_app.engine.detect_fields`` in a detection worker: ``detect_pool``).

The detection runs in a worker process with a memory cap and a deadline (DETECT_WORKERS,
DETECT_WORKER_MEMORY_MB, DETECT_TIMEOUT_SECONDS: ``core.pools``), on at most DETECT_MAX_PAGES
pages drawn at DETECT_DPI and no more than DETECT_MAX_PIXELS each. Nothing is saved: the editor
shows the fields as a draft, and the person's save is the editor's ordinary save.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.conf import settings

from core.engine.problems import EngineError
from core.engine.template_spec import TemplateSpec
from core.errors import raise_for_engine_error
from core.pools import SettingsPool
from templates_app import services
from templates_app.engine.aliases import unique_aliases
from templates_app.engine.detect_fields import DetectLimits, without_overlaps
from templates_app.engine.detect_pool import DetectJob, DetectPool
from templates_app.models import PdfTemplate

_pool = SettingsPool(DetectPool, "DETECT", max_jobs=100)


def detect_limits() -> DetectLimits:
    return DetectLimits(
        max_pages=settings.DETECT_MAX_PAGES,
        dpi=settings.DETECT_DPI,
        max_pixels=settings.DETECT_MAX_PIXELS,
    )


def detect_pool() -> DetectPool:
    """This process's detection pool (DETECT_WORKERS, DETECT_WORKER_MEMORY_MB: core.pools)."""
    return _pool.get()


def pdf_detect_fields(
    *, pdf: bytes, pages: Sequence[int] | None, tenant: str | None = None
) -> TemplateSpec:
    """The fields found on ``pages`` (0-based, None for all) of ``pdf``, found in a worker.
    Raises ValidationFailed (not a PDF, too many pages), UnprocessableDocument (past the
    worker's memory or time) or ServiceBusy (no worker free)."""
    job = DetectJob(
        pdf=pdf, pages=tuple(pages) if pages is not None else None, limits=detect_limits()
    )
    try:
        return _pool.run(job, tenant=tenant)
    except EngineError as error:
        raise_for_engine_error(error)


def template_detect_fields(
    *, template: PdfTemplate, pages: Sequence[int] | None, only_missing: bool
) -> list[dict[str, Any]]:
    """Fields found on the working version's pages, as the editor's field JSON: ids ``d1``,
    ``d2``... (the editor gives each its own id when it is accepted), aliases unique beside
    the template's own. With ``only_missing``, those overlapping an existing field are left
    out: what a PDF that has fields is missing."""
    version = services.working_version(template)
    spec = services.version_spec(version)
    found = pdf_detect_fields(
        pdf=services.version_pdf(version), pages=pages, tenant=str(template.organization_id)
    ).fields
    if only_missing:
        found = tuple(without_overlaps(found, spec.fields))
    taken = [field.alias for field in spec.fields]
    aliases = unique_aliases([*taken, *(field.alias for field in found)])[len(taken) :]
    out = []
    for number, (field, alias) in enumerate(zip(found, aliases, strict=True), start=1):
        entry = field.to_json()
        entry.update(id=f"d{number}", alias=alias)
        out.append(entry)
    return out
