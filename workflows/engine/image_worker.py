"""An image worker: ``python -m workflows.engine.image_worker <fd> <temp dir> <memory limit>
<nice>``.

Started by `workflows.engine.image_pool.ImagePool`; the protocol and the process set-up are
`core.engine.process_worker`'s. Results: ``("ok", Fitted | None)``, ``("memory", None)`` or
``("crash", (detail, None))``.
"""

from __future__ import annotations

from collections.abc import Callable

from core.engine import process_worker
from workflows.engine.image_pool import FitJob
from workflows.engine.photos import Fitted, fit_image


def _fit(job: FitJob) -> Fitted | None:
    return fit_image(job.data, job.mime, max_bytes=job.max_bytes)


def _start() -> Callable[[FitJob], Fitted | None]:
    return _fit


if __name__ == "__main__":
    process_worker.main(start=_start, expected=(), log_name="image-worker")
