"""A render worker that dies on demand, for the tests of renders whose worker dies
(tests/generate/test_render_crashes.py). A `RenderPool` whose ``worker_module`` is this one
(``CRASH_WORKER``) starts it as ``python -m tests.generate.crash_worker``; it renders as
`generate.engine.worker` does, except a document whose HTML holds one of the marks below: the
renderer's C libraries cannot be made to crash on cue, so the worker does what they would.
"""

from __future__ import annotations

import os
import signal
import threading
from typing import Any

from core.engine import process_worker
from generate.engine import worker
from generate.engine.errors import GenerateError
from generate.engine.job import RenderJob
from generate.engine.render import describe_failure

CRASH_WORKER = __name__

# The worker dies by SIGSEGV (what Pango or cairo do when the address-space limit makes an
# allocation fail), by SIGKILL (the kernel's out-of-memory killer), or exits with code 3.
SEGFAULT = "crash-worker-segfault"
SIGKILL = "crash-worker-sigkill"
EXIT = "crash-worker-exit"
# In parts: the part of index 1 dies by SIGSEGV at once; every other part lays out for ever (as a
# long part does, asking nothing on the way).
PART_SEGFAULT = "crash-worker-part-segfault"


def _start() -> Any:
    render = worker._start()

    def handle(work: Any) -> Any:
        html = work.html if isinstance(work, RenderJob) else work.job.html
        if SEGFAULT in html:
            os.kill(os.getpid(), signal.SIGSEGV)
        if SIGKILL in html:
            os.kill(os.getpid(), signal.SIGKILL)
        if EXIT in html:
            os._exit(3)
        if PART_SEGFAULT in html and not isinstance(work, RenderJob):
            if getattr(work, "index", 0) == 1:
                os.kill(os.getpid(), signal.SIGSEGV)
            threading.Event().wait()  # until the pool kills this worker
        return render(work)

    return handle


if __name__ == "__main__":
    process_worker.main(
        start=_start,
        expected=(GenerateError,),
        where=describe_failure,
        log_name="crash-worker",
        after=worker._collect,
    )
