"""The CPU-time cap of one render, enforced inside the render worker.

A wall-clock cap refuses long documents on a busy host: the workers run at nice +10, so a render
that needs 30 CPU-seconds may take minutes of wall time when the server's threads (or other
processes) want the CPUs, and a worker stopped or swapped out meanwhile is charged for time it
never ran. What a document costs is the CPU time it takes, and that grows with its pages
(WeasyPrint: about 0.3 CPU-seconds a page). So the cap is a budget of CPU-seconds: a base, plus
an allowance for each page laid out, enforced with the kernel's RLIMIT_CPU on the worker: past
the soft limit the kernel sends SIGXCPU (again each second), whose handler stops the render.
The pool's wall-clock timeout stays as a generous backstop for a worker stuck where no Python
runs.

The soft limit is raised as pages are laid out and lifted after the render; the hard limit is
never touched (it could not be raised again). Signal handlers run in the main thread only,
which is where a worker renders.
"""

from __future__ import annotations

import contextlib
import math
import resource
import signal
from collections.abc import Iterator
from types import FrameType


class CpuBudgetExceeded(BaseException):  # noqa: N818 - a signal, not an error of the document
    """Raised by the SIGXCPU handler. A BaseException, so that WeasyPrint's ``except
    Exception`` (around images, fonts...) cannot swallow it; `cpu_budget` turns it into
    the caller's ``seconds``."""


def cpu_seconds_used() -> float:
    """CPU time (user and system) this process has used so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class CpuBudget:
    """The budget of one render: ``base`` CPU-seconds plus ``per_page`` for each page laid out
    (`page_done`). ``allowed`` is the budget as it stands."""

    def __init__(self, base: float, per_page: float) -> None:
        self.base = base
        self.per_page = per_page
        self.pages = 0
        self.start = cpu_seconds_used()
        self.armed = False

    @property
    def allowed(self) -> float:
        return self.base + self.per_page * self.pages

    def page_done(self) -> None:
        self.pages += 1
        if self.per_page > 0:
            self._set_limit()

    def _set_limit(self) -> None:
        _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
        # RLIMIT_CPU counts whole seconds of the process's life: the first whole second at or
        # past the budget's end.
        soft = math.ceil(self.start + self.allowed)
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


@contextlib.contextmanager
def cpu_budget(base: float, per_page: float) -> Iterator[CpuBudget | None]:
    """Within the block, the process may use ``base`` CPU-seconds plus ``per_page`` for each
    page reported with ``page_done``; past that, CpuBudgetExceeded is raised in the main
    thread. ``base`` 0: no budget (yields None)."""
    if base <= 0:
        yield None
        return
    budget = CpuBudget(base, per_page)

    def over_budget(signum: int, frame: FrameType | None) -> None:
        # Raised again at each SIGXCPU (each further CPU-second) until the block is left.
        if budget.armed:
            raise CpuBudgetExceeded

    previous = signal.signal(signal.SIGXCPU, over_budget)
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    budget.armed = True
    try:
        budget._set_limit()
        yield budget
    finally:
        budget.armed = False
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
        signal.signal(signal.SIGXCPU, previous)
