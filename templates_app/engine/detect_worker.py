"""A detection worker: ``python -m templates_app.engine.detect_worker <fd> <temp dir> <memory
limit> <nice>``.

Started by `templates_app.engine.detect_pool.DetectPool`; the protocol and the process set-up
are `core.engine.process_worker`'s. Results: ``("ok", TemplateSpec)``, ``("error",
ImportRefused)``, ``("memory", None)`` or ``("crash", (detail, None))``.
"""

from __future__ import annotations

from collections.abc import Callable

from core.engine import process_worker
from core.engine.template_spec import TemplateSpec
from templates_app.engine.detect_fields import detect_fields
from templates_app.engine.detect_pool import DetectJob
from templates_app.engine.errors import ImportRefused


def _detect(job: DetectJob) -> TemplateSpec:
    return detect_fields(job.pdf, pages=job.pages, limits=job.limits)


def _start() -> Callable[[DetectJob], TemplateSpec]:
    return _detect


if __name__ == "__main__":
    process_worker.main(start=_start, expected=(ImportRefused,), log_name="detect-worker")
