"""Worker processes that can be killed on a deadline: untrusted or unbounded work (rendering a
document, verifying an uploaded PDF) runs outside the server process, within time and memory.

Python cannot stop a thread, and a parser or layout engine has no way to stop half-way, so a job
that runs past its time cap would keep a server thread (and its memory) busy for as long as it
likes. Here each job is sent to a worker process; when the deadline passes the worker gets
SIGKILL and the caller gets the pool's timeout error. Nothing is left running.

The workers are long-lived (until ``max_jobs`` jobs, or a kill) and warm: what a worker loads
once (fontconfig and Pango, pyHanko) serves every job. A worker is a fresh interpreter
(``python -m <worker module>``, see `core.engine.process_worker`) talking over a socket pair: it
shares no locks, sockets or database connections with a threaded server process, carries no
Django, and, unlike multiprocessing's spawn, never re-runs the server's main module. Each worker
may be given an address-space limit, so a job that needs too much memory fails alone.

`ProcessPool` knows no job type: it is given the worker's module and `PoolErrors`, the errors
of its engine (generate's `RenderPool`, esign's verify pool), and passes jobs and results by
pickle. A pool belongs to one process; after a fork (a pre-forking server), the child makes its
own.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

from core.engine.pool_lease import Answer, Answered, Lease, LeasePreempted
from core.engine.pool_workers import (
    Worker,
    WorkerCommand,
    death_detail,
    resident_bytes,
    start_worker,
    stop_worker,
)

__all__ = ["Lease", "LeasePreempted", "PoolErrors", "PoolSettings", "PoolStats", "ProcessPool"]

logger = logging.getLogger(__name__)

JobT = TypeVar("JobT")
ResultT = TypeVar("ResultT")


@dataclass(frozen=True)
class PoolErrors:
    """How a pool's engine names each way a job can fail to give a result."""

    # No worker within the queue timeout (seconds), or the queue full (True): a 503.
    busy: Callable[[float, bool], Exception]
    timeout: Callable[[float], Exception]  # the job ran past its deadline (seconds)
    out_of_memory: Callable[[int], Exception]  # the worker hit its address-space limit (bytes)
    crashed: Callable[[str], Exception]  # the worker died during a job (detail, for logs)
    # The job raised an unexpected exception: (detail for logs, where in the input, or None).
    # None: as ``crashed`` (the engine does not tell the two apart).
    failed: Callable[[str, str | None], Exception] | None = None
    # No worker could be started (detail, for logs): the host's fault, not the job's. None: as
    # ``crashed``.
    not_started: Callable[[str], Exception] | None = None


@dataclass(frozen=True)
class PoolSettings:
    workers: int = 2  # at most this many jobs at once in this process
    max_jobs: int = 200  # a worker is replaced after this many jobs (bounds slow leaks)
    memory_limit_bytes: int = 0  # address-space limit of a worker; 0 for none
    start_timeout_seconds: float = 60.0  # a new worker must be ready within this
    # At most this many jobs of one tenant (an organization) at once; 0 for no bound. Below
    # ``workers``, one tenant's long jobs never hold every worker.
    max_per_tenant: int = 0
    # At most this many requests wait for a worker; more are refused at once (busy), so
    # waiting jobs never hold every server thread. None: as many as there are workers.
    max_waiting: int | None = None
    # A worker whose resident memory is above this after a job is replaced; 0 for never.
    recycle_rss_bytes: int = 0
    nice: int = 10  # added to the workers' niceness: the server's threads come first for the CPU
    # Workers kept started ahead of requests, from the pool's making, and replaced in the
    # background when one stops (at most ``workers``): a request, or a document in parts that
    # wants a second worker, finds one idle instead of waiting for a start. 0: started on demand.
    warm: int = 0

    def __post_init__(self) -> None:
        if self.workers < 1 or self.max_jobs < 1:
            raise ValueError("workers and max_jobs must be at least 1")
        if self.max_per_tenant < 0 or (self.max_waiting is not None and self.max_waiting < 0):
            raise ValueError("max_per_tenant and max_waiting must not be negative")
        if self.warm < 0:
            raise ValueError("warm must not be negative")

    @property
    def waiting_limit(self) -> int:
        return self.workers if self.max_waiting is None else self.max_waiting


@dataclass(frozen=True)
class PoolStats:
    """What a pool is doing now, for an operator's metrics."""

    workers: int  # worker processes alive or starting
    busy: int  # jobs under way
    waiting: int  # requests waiting for a worker
    resident_bytes: int  # resident memory of the workers that are alive (Linux)


class ProcessPool(Generic[JobT, ResultT]):
    """Runs jobs in worker processes of ``worker_module``, at most ``settings.workers`` at a
    time. ``name`` names the workers in logs, errors and temporary folders ("render")."""

    def __init__(
        self, settings: PoolSettings, *, worker_module: str, errors: PoolErrors, name: str
    ) -> None:
        self.settings = settings
        self.worker_module = worker_module
        self.errors = errors
        self.name = name
        self._pid = os.getpid()
        self._condition = threading.Condition()
        self._idle: list[Worker] = []
        self._live = 0  # workers that exist: idle, busy or starting
        self._closed = False
        self._running: dict[str | None, int] = {}  # jobs under way, by tenant
        self._waiting = 0  # requests waiting for a worker
        self._busy: dict[int, Worker] = {}  # workers running a job, by process id
        self._borrowed: dict[int, Lease[JobT, ResultT]] = {}  # borrowed leases, by process id
        self._warming = 0  # workers starting in the background (`_start_in_background`)
        self._claims = 0  # requests waiting for one of those (`_acquire`)
        # How long the last worker took to start: how long a document in parts waits for one
        # that is starting (`_try_acquire`). A guess until one has started.
        self._start_seconds = 2.0
        self._keep_warm()

    def run(
        self,
        job: JobT,
        *,
        timeout: float,
        queue_timeout: float,
        tenant: str | None = None,
        answer: Answer | None = None,
    ) -> ResultT:
        """Run ``job`` in a worker; kill it if it takes longer than ``timeout`` seconds.

        Waits at most ``queue_timeout`` seconds for a free worker, and for ``tenant`` to be
        under its share (busy); refuses at once when the queue is full (busy). Raises the
        engine's own errors as the worker raised them, or the pool's errors: timeout,
        out_of_memory, failed when the job raised an unexpected exception, crashed when the
        worker died. ``answer`` answers the questions the job asks on the way
        (`core.engine.process_worker.ask`).
        """
        worker = self._acquire(queue_timeout, tenant)
        with self._condition:
            self._busy[worker.process.pid] = worker
        healthy = False
        try:
            result = self._exchange(worker, job, timeout, answer)
            healthy = True
            return result
        except Answered as answered:
            healthy = True
            raise answered.error from None
        finally:
            self._release(worker, tenant, healthy=healthy and not self._too_large(worker))

    @contextlib.contextmanager
    def lease(
        self,
        *,
        queue_timeout: float,
        tenant: str | None = None,
        extra: int = 0,
        reserve: bool = False,
    ) -> Iterator[list[Lease[JobT, ResultT]]]:
        """Hold one worker (waiting as `run` does, counted for ``tenant``) and up to ``extra``
        more that are idle at this moment, for several jobs in a row. The extra ones are
        borrowed: not counted for the tenant, and taken back (their job stopped:
        `LeasePreempted`) as soon as another request would wait for a worker; a document that
        runs in parts takes one share of its tenant and speeds up on workers no one else asks
        for. With ``reserve``, an extra worker that is starting (or could start) is waited for,
        about as long as a worker takes to start and only while no request waits: a worker
        replaced after the last document is not lost to the next one. The workers go back when
        the block ends."""
        workers = [self._acquire(queue_timeout, tenant)]
        for _ in range(extra):
            borrowed = self._try_acquire(reserve=reserve)
            if borrowed is None:
                break
            workers.append(borrowed)
        leases = [Lease(self, worker) for worker in workers]
        with self._condition:
            for worker in workers:
                self._busy[worker.process.pid] = worker
            for lease in leases[1:]:
                self._borrowed[lease.worker.process.pid] = lease
        try:
            yield leases
        finally:
            with self._condition:
                for lease in leases[1:]:
                    self._borrowed.pop(lease.worker.process.pid, None)
            for index, lease in enumerate(leases):
                if lease.preempted:  # already given back (`_acquire`)
                    stop_worker(lease.worker)
                    continue
                healthy = lease.healthy and not lease.stopped and not self._too_large(lease.worker)
                self._release(lease.worker, tenant if index == 0 else None, healthy=healthy)

    def _exchange(
        self, worker: Worker, job: JobT, timeout: float, answer: Answer | None
    ) -> ResultT:
        """Send ``job`` to ``worker`` and return its result; answer its questions meanwhile.
        A worker left unhealthy raises the pool's errors; `Answered` wraps the engine's own
        errors (the worker stays healthy)."""
        deadline = time.monotonic() + timeout
        try:
            worker.connection.send(job)
            while True:
                if not worker.connection.poll(max(0.0, deadline - time.monotonic())):
                    raise self.errors.timeout(timeout)
                status, payload = worker.connection.recv()
                if status != "ask":
                    break
                # The worker waits for the reply; if ``answer`` raises, the worker is stopped.
                worker.connection.send(answer(payload) if answer is not None else None)
        except (EOFError, OSError) as exc:
            raise self.errors.crashed(self._death_detail(worker, exc)) from None
        except MemoryError:
            # The worker's answer is larger than this process may hold: the job's to blame.
            raise self.errors.out_of_memory(self.settings.memory_limit_bytes) from None
        worker.jobs += 1
        if status == "ok":
            result: ResultT = payload
            return result
        if status == "error":
            raise Answered(payload)
        if status == "memory":
            raise self.errors.out_of_memory(self.settings.memory_limit_bytes)
        failed, (detail, where) = self.errors.failed, payload
        raise failed(detail, where) if failed else self.errors.crashed(detail)

    def stats(self) -> PoolStats:
        with self._condition:
            workers = [*self._idle, *self._busy.values()]
            live, busy, waiting = self._live, len(self._busy), self._waiting
        resident = sum(resident_bytes(w.process.pid) or 0 for w in workers if w.is_alive())
        return PoolStats(workers=live, busy=busy, waiting=waiting, resident_bytes=resident)

    def close(self) -> None:
        """Stop every idle worker; busy ones stop when their job ends."""
        with self._condition:
            self._closed = True
            idle, self._idle = self._idle, []
            self._live -= len(idle)
            self._condition.notify_all()
        for worker in idle:
            stop_worker(worker)

    # -- workers ----------------------------------------------------------------------------------

    def _acquire(self, queue_timeout: float, tenant: str | None) -> Worker:
        if os.getpid() != self._pid:
            raise RuntimeError(f"a {self.name} pool cannot be used in a forked child: make another")
        deadline = time.monotonic() + queue_timeout
        dead: list[Worker] = []
        waiting = claimed = False
        try:
            with self._condition:
                while True:
                    if self._closed:
                        raise RuntimeError(f"the {self.name} pool is closed")
                    may_start = self._tenant_may_start(tenant)
                    if may_start:
                        worker = self._idle_worker(dead)
                        if worker is not None:
                            self._running[tenant] = self._running.get(tenant, 0) + 1
                            return worker
                        if self._live + self._warming < self.settings.workers:
                            self._live += 1
                            self._running[tenant] = self._running.get(tenant, 0) + 1
                            break
                        # One starting in the background (`_keep_warm`) is ready sooner than
                        # one started now, and a borrowed one's document would go in one piece.
                        unclaimed = self._warming - self._claims + claimed
                        if self._borrowed and unclaimed <= 0:
                            dead.append(self._take_back())
                            continue
                    if not waiting:
                        # Waiting for a worker that is starting is as starting one: not refused
                        # for a full queue, nor before a start's time (one claim per worker).
                        claimed = may_start and self._claims < self._warming
                        if not claimed and self._waiting >= self.settings.waiting_limit:
                            raise self.errors.busy(queue_timeout, True)
                        if claimed:
                            self._claims += 1
                            start_by = time.monotonic() + self.settings.start_timeout_seconds
                            deadline = max(deadline, start_by)
                        self._waiting += 1
                        waiting = True
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        raise self.errors.busy(queue_timeout, False)
                    self._condition.wait(remaining)
        finally:
            if waiting:
                with self._condition:
                    self._waiting -= 1
                    self._claims -= claimed
            for worker in dead:
                stop_worker(worker)
        try:
            return self._start()
        except BaseException:
            with self._condition:
                self._live -= 1
                self._finished(tenant)
                self._condition.notify_all()
            raise

    def _take_back(self) -> Worker:
        """Take a borrowed worker back (under the lock): its slot is free at once; the worker
        is stopped by the caller, and its lease's job ends with `LeasePreempted`."""
        _pid, lease = self._borrowed.popitem()
        lease.preempted = True
        worker = lease.worker
        self._busy.pop(worker.process.pid, None)
        self._live -= 1
        self._finished(None)
        return worker

    def _try_acquire(self, *, reserve: bool = False) -> Worker | None:
        """An idle worker, or None; never makes a request wait. When a worker could start, one
        is started in the background (it joins the idle ones if there is still room for it).
        ``reserve``: wait for a worker that is starting, up to twice as long as the last one
        took to start, unless a request waits for one."""
        bound = min(self.settings.start_timeout_seconds, max(1.0, 2 * self._start_seconds))
        deadline = time.monotonic() + bound
        dead: list[Worker] = []
        try:
            with self._condition:
                while True:
                    if self._closed or self._waiting:
                        return None  # requests already waiting come first
                    worker = self._idle_worker(dead)
                    if worker is not None:
                        self._running[None] = self._running.get(None, 0) + 1
                        return worker
                    if self._live + self._warming < self.settings.workers:
                        self._start_in_background()
                    remaining = deadline - time.monotonic()
                    if not reserve or not self._warming or remaining <= 0:
                        return None
                    self._condition.wait(remaining)
        finally:
            for worker in dead:
                stop_worker(worker)

    def _keep_warm(self) -> None:
        """Start in the background the workers missing from ``settings.warm``: only in the
        process that made the pool (a forked child's copy has no workers of its own, and makes
        its own pool: `PoolPerProcess`)."""
        if os.getpid() != self._pid:
            return
        with self._condition:
            if self._closed:
                return
            wanted = min(self.settings.warm, self.settings.workers)
            for _ in range(wanted - self._live - self._warming):
                self._start_in_background()

    def _start_in_background(self) -> None:
        """(Under the lock.) A worker started by a thread of its own, then idle."""
        self._warming += 1
        threading.Thread(target=self._warm_one, name=f"{self.name}-warm", daemon=True).start()

    def _warm_one(self) -> None:
        try:
            worker = self._start()
        except Exception:
            logger.warning("a %s worker started in the background failed to start", self.name)
            with self._condition:
                self._warming -= 1
                self._condition.notify_all()  # who waited for it starts one of its own
            return
        with self._condition:
            self._warming -= 1
            if not self._closed and self._live < self.settings.workers:
                self._live += 1
                self._idle.append(worker)
                self._condition.notify_all()
                return
        stop_worker(worker)  # closed meanwhile

    def _tenant_may_start(self, tenant: str | None) -> bool:
        limit = self.settings.max_per_tenant
        return tenant is None or limit == 0 or self._running.get(tenant, 0) < limit

    def _idle_worker(self, dead: list[Worker]) -> Worker | None:
        while self._idle:
            worker = self._idle.pop()  # the most recently used: its caches are warm
            if worker.is_alive():
                return worker
            # Died while idle (the OOM killer, an operator): replace it quietly.
            self._live -= 1
            dead.append(worker)
        return None

    def _finished(self, tenant: str | None) -> None:
        count = self._running.get(tenant, 0) - 1
        if count > 0:
            self._running[tenant] = count
        else:
            self._running.pop(tenant, None)

    def _release(self, worker: Worker, tenant: str | None, *, healthy: bool) -> None:
        keep = healthy and worker.jobs < self.settings.max_jobs
        with self._condition:
            self._busy.pop(worker.process.pid, None)
            self._finished(tenant)
            # Every waiter looks again: the one whose tenant may start now takes the worker.
            self._condition.notify_all()
            if keep and not self._closed:
                self._idle.append(worker)
                return
            self._live -= 1
        stop_worker(worker)
        self._keep_warm()

    def _too_large(self, worker: Worker) -> bool:
        """Whether the worker is left holding more memory than a worker should keep."""
        limit = self.settings.recycle_rss_bytes
        if limit <= 0:
            return False
        rss = resident_bytes(worker.process.pid)
        if rss is None or rss <= limit:
            return False
        logger.info(
            "%s worker replaced: %d MB resident after a job (the limit is %d MB)",
            self.name,
            rss // 2**20,
            limit // 2**20,
        )
        return True

    def _start(self) -> Worker:
        started = time.monotonic()
        # Read at each start: a test may point the pool at another worker module.
        command = WorkerCommand(
            name=self.name,
            module=self.worker_module,
            memory_limit_bytes=self.settings.memory_limit_bytes,
            nice=self.settings.nice,
            start_timeout_seconds=self.settings.start_timeout_seconds,
            not_started=self.errors.not_started or self.errors.crashed,
        )
        worker = start_worker(command)
        self._start_seconds = time.monotonic() - started
        return worker

    def _death_detail(self, worker: Worker, exc: BaseException) -> str:
        return death_detail(self.name, worker, exc)


PoolT = TypeVar("PoolT", bound=ProcessPool)


class PoolPerProcess(Generic[PoolT]):
    """One pool per process: made on first use, and again after a fork (a pool belongs to the
    process that made it) or when its settings change, the previous one of this process being
    closed."""

    def __init__(self, make: Callable[[PoolSettings], PoolT]) -> None:
        self._make = make
        self._lock = threading.Lock()
        self._pool: tuple[tuple[int, PoolSettings], PoolT] | None = None

    def get(self, pool_settings: PoolSettings) -> PoolT:
        key = (os.getpid(), pool_settings)
        with self._lock:
            if self._pool is not None and self._pool[0] == key:
                return self._pool[1]
            previous = self._pool
            self._pool = (key, self._make(pool_settings))
            current = self._pool[1]
        if previous is not None and previous[0][0] == os.getpid():
            previous[1].close()
        return current

    def current(self) -> PoolT | None:
        """This process's pool, if it made one."""
        with self._lock:
            pool = self._pool
        if pool is None or pool[0][0] != os.getpid():
            return None
        return pool[1]
