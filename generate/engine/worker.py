"""A render worker: ``python -m generate.engine.worker <fd> <temp dir> <memory limit> <nice>``.

Started by `generate.engine.pool.RenderPool`; the protocol and the process set-up are
`core.engine.process_worker`'s. Results: ``("ok", RenderedPdf)``, ``("error", GenerateError)``,
``("memory", None)`` or ``("crash", (detail, where))`` (see `RenderFailed`).
"""

from __future__ import annotations

import logging
import shutil

from weasyprint.text.fonts import FontConfiguration

from core.engine import process_worker
from generate.engine.cpu_budget import CpuBudgetExceeded, cpu_budget
from generate.engine.errors import GenerateError, RenderCpuLimit
from generate.engine.job import RenderedPdf, RenderJob
from generate.engine.render import describe_failure, render_pdf, warm_up


class _Renderer:
    """Renders jobs with one warm font configuration, replaced after a document that added
    @font-face fonts to it (and files to a temporary folder)."""

    def __init__(self) -> None:
        self.font_config = FontConfiguration()
        warm_up(self.font_config)

    def __call__(self, job: RenderJob) -> RenderedPdf:
        try:
            with cpu_budget(job.cpu_seconds, job.cpu_seconds_per_page) as budget:
                try:
                    return render_pdf(
                        job,
                        font_config=self.font_config,
                        on_page=budget.page_done if budget is not None else None,
                    )
                except CpuBudgetExceeded:
                    assert budget is not None
                    raise RenderCpuLimit(budget.allowed, budget.pages) from None
        finally:
            folder = getattr(self.font_config, "_folder", None)
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
                self.font_config._folder = None
                self.font_config = FontConfiguration()


def _start() -> _Renderer:
    # WeasyPrint reports every ignored CSS declaration and missing resource, quoting the
    # document; request content stays out of the logs.
    logging.getLogger("weasyprint").setLevel(logging.CRITICAL)
    logging.getLogger("fontTools").setLevel(logging.ERROR)
    return _Renderer()


if __name__ == "__main__":
    process_worker.main(
        start=_start,
        expected=(GenerateError,),
        where=describe_failure,
        log_name="generate-worker",
    )
