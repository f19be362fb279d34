"""Render workers: WeasyPrint runs in separate processes that can be killed on a deadline.

WeasyPrint has no way to stop a layout half-way, and a thread cannot be killed, so a document
that runs past the time cap would keep a server thread (and its memory) busy for as long as it
likes. Here each render is sent to a worker process (`core.engine.process_pool`); when the
deadline passes the worker gets SIGKILL and the caller gets `RenderTimeout`. Nothing is left
running.

The workers are long-lived (until ``max_jobs`` renders, or a kill) and warm: fontconfig and Pango
are loaded once per worker, and the font configuration is reused by documents that add no
``@font-face`` fonts, so a render costs about what plain WeasyPrint costs. Each worker may be
given an address-space limit, so a document that needs too much memory fails alone
(`RenderOutOfMemory`).
"""

from __future__ import annotations

from core.engine.process_pool import PoolErrors, PoolSettings, ProcessPool
from generate.engine.errors import (
    RenderBusy,
    RenderCrashed,
    RenderFailed,
    RenderOutOfMemory,
    RenderTimeout,
    RenderUnavailable,
)
from generate.engine.job import RenderedPdf, RenderJob
from generate.engine.parts import PartSettings, one_piece_reason, render_in_parts

__all__ = ["WORKER_MODULE", "PartSettings", "PoolSettings", "RenderPool"]

# The worker's module, next to this one (whatever the package is called).
WORKER_MODULE = __name__.rsplit(".", 1)[0] + ".worker"

RENDER_ERRORS = PoolErrors(
    busy=lambda seconds, queue_full: RenderBusy(seconds, queue_full=queue_full),
    timeout=RenderTimeout,
    out_of_memory=RenderOutOfMemory,
    crashed=RenderCrashed,
    failed=RenderFailed,
    not_started=RenderUnavailable,
)


class RenderPool(ProcessPool[RenderJob, RenderedPdf]):
    """Runs `RenderJob`s in render workers, at most ``settings.workers`` at a time.

    ``run`` raises the engine's own errors (PageLimitExceeded...) as the worker raised them,
    RenderBusy, RenderTimeout, RenderOutOfMemory, RenderFailed when the renderer raised an
    unexpected exception, RenderCrashed when the worker died during the render (a signal, an
    exit), or RenderUnavailable when no worker could be started.
    """

    def __init__(self, settings: PoolSettings) -> None:
        super().__init__(settings, worker_module=WORKER_MODULE, errors=RENDER_ERRORS, name="render")

    def render(
        self,
        job: RenderJob,
        *,
        timeout: float,
        queue_timeout: float,
        tenant: str | None = None,
        parts: PartSettings | None = None,
    ) -> RenderedPdf:
        """`run`, except that a long document is rendered in parts on several workers when
        ``parts`` allows it (`generate.engine.parts`); the same result, the same errors."""
        if parts is None or one_piece_reason(job, parts) is not None:
            return self.run(job, timeout=timeout, queue_timeout=queue_timeout, tenant=tenant)
        extra = self.settings.workers - 1
        # The other workers are reserved: one still starting (the pool keeps them warm, and
        # replaces one left large by the last document) is waited for briefly, rather than
        # the document going in one piece at twice the wall time.
        with self.lease(
            queue_timeout=queue_timeout, tenant=tenant, extra=extra, reserve=True
        ) as leases:
            return render_in_parts(leases, job, parts, timeout=timeout)
