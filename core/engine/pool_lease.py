"""A worker held by `core.engine.process_pool.ProcessPool.lease`, for several jobs in a row."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

from core.engine.pool_workers import Worker, stop_worker

JobT = TypeVar("JobT")
ResultT = TypeVar("ResultT")
_JobIn = TypeVar("_JobIn", contravariant=True)
_ResultOut = TypeVar("_ResultOut", covariant=True)


# Answers a question a job asks its pool on the way (`core.engine.process_worker.ask`).
Answer = Callable[[Any], Any]


class LeasingPool(Protocol[_JobIn, _ResultOut]):
    """What a lease uses of its pool (`core.engine.process_pool.ProcessPool`, which imports
    this module: named here by what it does, not imported)."""

    _condition: threading.Condition
    _busy: dict[int, Worker]
    _borrowed: dict[int, Any]

    def _exchange(
        self, worker: Worker, job: _JobIn, timeout: float, answer: Answer | None
    ) -> _ResultOut: ...

    def _start(self) -> Worker: ...


class Answered(Exception):  # noqa: N818 - carries the engine's own error out of `_exchange`
    def __init__(self, error: BaseException) -> None:
        super().__init__()
        self.error = error


class LeasePreempted(Exception):  # noqa: N818 - not an error: the worker was taken back
    """A borrowed worker was taken back for a request that waited for one (its job was
    stopped)."""


class Lease(Generic[JobT, ResultT]):
    """A worker held by `ProcessPool.lease`: runs jobs one after another, as `run` would.
    A borrowed one may be taken back at any moment (`LeasePreempted`)."""

    def __init__(self, pool: LeasingPool[JobT, ResultT], worker: Worker) -> None:
        self.pool = pool
        self.worker = worker
        self.healthy = True
        self.preempted = False
        self.stopped = False  # `stop`ped: the worker is replaced before the next job

    def run(self, job: JobT, *, timeout: float, answer: Answer | None = None) -> ResultT:
        if self.preempted:
            raise LeasePreempted
        if not self.healthy or self.stopped:
            self._replace()
        self.healthy = False
        try:
            result = self.pool._exchange(self.worker, job, timeout, answer)
        except Answered as answered:
            self.healthy = True
            raise answered.error from None
        except Exception:
            if self.preempted:
                raise LeasePreempted from None
            raise
        self.healthy = True
        return result

    def stop(self) -> None:
        """Stop the job under way now, from another thread: its `run` raises the pool's
        crashed error. Work done on several leases stops every other one as soon as one
        fails, rather than wait for jobs whose result is lost (they hold their workers, and
        the tenant's share, for as long as they run)."""
        self.stopped = True
        with contextlib.suppress(OSError):
            self.worker.process.kill()

    def _replace(self) -> None:
        """A fresh worker in place of one a job left unhealthy (stopped, killed, timed out)."""
        self.stopped = False  # a `stop` from here on stops the new worker
        pool = self.pool
        with pool._condition:
            pool._busy.pop(self.worker.process.pid, None)
            borrowed = pool._borrowed.pop(self.worker.process.pid, None) is not None
        stop_worker(self.worker)
        self.worker = pool._start()
        self.healthy = True
        with pool._condition:
            pool._busy[self.worker.process.pid] = self.worker
            if borrowed:
                pool._borrowed[self.worker.process.pid] = self
