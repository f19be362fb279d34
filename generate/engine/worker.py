"""A render worker: ``python -m generate.engine.worker <fd> <temp dir> <memory limit> <nice>``.

Started by `generate.engine.pool.RenderPool`; the protocol and the process set-up are
`core.engine.process_worker`'s. Jobs: a `RenderJob` (the whole document), or for a long document
a `TableProbe` or `BreakProbe` and its `PartJob`s, or `PartOpening`s (`generate.engine.parts`).
Results: ``("ok", RenderedPdf)`` (``TableLayout``, ``BreakLayout``, ``PartDone``, ``PartSkipped``),
``("error", GenerateError)``, ``("memory", None)`` or ``("crash", (detail, where))`` (see
`RenderFailed`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import logging
import shutil
import threading
from collections.abc import Iterator
from typing import Any

from weasyprint.text.fonts import FontConfiguration

from core.engine import process_worker
from generate.engine.cpu_budget import CpuBudgetExceeded, cpu_budget, cpu_seconds_used
from generate.engine.errors import GenerateError, RenderCpuLimit
from generate.engine.job import RenderJob
from generate.engine.part_job import BreakProbe, PartJob, PartOpening, TableProbe
from generate.engine.part_layout import open_part, probe_breaks, probe_table, render_part
from generate.engine.render import (
    PreparedDocument,
    describe_failure,
    prepare_document,
    render_pdf,
    warm_up,
)


class _Renderer:
    """Renders jobs with one warm font configuration, replaced after a document that added
    @font-face fonts to it (and files to a temporary folder)."""

    def __init__(self) -> None:
        self.font_config = FontConfiguration()
        warm_up(self.font_config)

    def __call__(self, work: RenderJob | PartJob | PartOpening | TableProbe | BreakProbe) -> Any:
        job = work if isinstance(work, RenderJob) else work.job
        started = cpu_seconds_used()
        try:
            with cpu_budget(job.cpu_seconds, job.cpu_seconds_per_page) as budget:
                on_page = budget.page_done if budget is not None else None
                try:
                    if isinstance(work, RenderJob):
                        return render_pdf(work, font_config=self.font_config, on_page=on_page)
                    with _few_collections():
                        if isinstance(work, TableProbe):
                            result: Any = probe_table(work, self._prepare, on_page=on_page)
                        elif isinstance(work, BreakProbe):
                            result = probe_breaks(work, self._prepare)
                        elif isinstance(work, PartOpening):
                            result = open_part(
                                work, self._prepare, process_worker.ask, on_page=on_page
                            )
                        else:
                            result = render_part(
                                work, self._prepare, process_worker.ask, on_page=on_page
                            )
                    if result is None:
                        return None
                    return dataclasses.replace(result, cpu_seconds=cpu_seconds_used() - started)
                except CpuBudgetExceeded:
                    assert budget is not None
                    raise RenderCpuLimit(budget.allowed, budget.pages) from None
        finally:
            folder = getattr(self.font_config, "_folder", None)
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
                self.font_config._folder = None
                self.font_config = FontConfiguration()

    def _prepare(self, job: RenderJob) -> PreparedDocument:
        return prepare_document(job, self.font_config)


# The first generation's threshold while a part renders (Python's default: 700).
PART_GC_THRESHOLD = 100_000
_collect_after = threading.Event()


@contextlib.contextmanager
def _few_collections() -> Iterator[None]:
    """Fewer garbage collections while a part renders: WeasyPrint makes millions of objects
    that live until the part is written, and each collection of the oldest generation walks
    them all. With Python's default thresholds a 90-page part of a table spent about a fifth
    of its CPU time collecting; with these, almost none. What is left for the collector is
    collected once the part's result is sent (`_collect`), so the next job starts clean."""
    threshold = gc.get_threshold()
    gc.set_threshold(PART_GC_THRESHOLD, *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        _collect_after.set()


def _collect() -> None:
    """After a part's result is sent: its garbage, collected while the caller joins the parts."""
    if _collect_after.is_set():
        _collect_after.clear()
        gc.collect()


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
        after=_collect,
    )
