"""The resident memory of the process serving a test's requests (the test process: Django's test
client serves in it), sampled while the requests run: a refusal that decodes what it refuses
shows as growth. Bounds are generous; the figures live in bench/."""

from __future__ import annotations

import os
import resource
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def resident(pid: int | None = None) -> int:
    """The resident memory of process ``pid`` (this one by default); 0 once it is gone."""
    try:
        with open(f"/proc/{pid or 'self'}/statm", "rb") as statm:  # noqa: PTH123 - /proc
            return int(statm.read().split()[1]) * PAGE_SIZE
    except (OSError, ValueError, IndexError):
        return 0


def descendants(pid: int) -> list[int]:
    """Every process started by ``pid`` or by one of its own, started by any of their threads
    (a server thread starts a pool's worker)."""
    found: list[int] = []
    parents = [pid]
    while parents:
        parent = parents.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = [int(p) for p in (task / "children").read_text().split()]
            except (OSError, ValueError):
                continue
            found += children
            parents += children
    return found


def tree_resident(pid: int | None = None) -> int:
    """The resident memory of ``pid`` (this process by default) and of all its descendants that
    run a program of their own: a child between its fork and its exec shares the parent's
    memory, and counting it would count the parent twice."""
    root = pid or os.getpid()
    own = _command(root)
    return resident(root) + sum(resident(p) for p in descendants(root) if _command(p) != own)


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    """User and system CPU seconds of process ``pid`` so far; 0 once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat.rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime


@dataclass(frozen=True)
class TreeCpu:
    own: float  # this process, every thread
    reaped: float  # its children that ended and were waited for
    descendants: dict[int, float]  # by pid, those running


def tree_cpu() -> TreeCpu:
    own = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    return TreeCpu(
        own=own.ru_utime + own.ru_stime,
        reaped=reaped.ru_utime + reaped.ru_stime,
        descendants={pid: process_cpu(pid) for pid in descendants(os.getpid())},
    )


def cpu_spent(start: TreeCpu, end: TreeCpu) -> float:
    """The CPU seconds the process tree spent between two readings: a descendant running at
    both counts its difference, a new one all it spent; one that ended in between is counted by
    the reaped children's CPU, less what it had spent before ``start``."""
    running = sum(cpu - start.descendants.get(pid, 0.0) for pid, cpu in end.descendants.items())
    ended_before = sum(cpu for pid, cpu in start.descendants.items() if pid not in end.descendants)
    return end.own - start.own + running + max(0.0, end.reaped - start.reaped - ended_before)


def _command(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


@contextmanager
def web_process_growth(*, tree: bool = False) -> Iterator[dict[str, float]]:
    """This (the web) process's peak resident memory above where it started, sampled every
    5 ms by a thread, and the seconds taken; with ``tree``, of this process and every process
    it started (a worker decoding in its place counts too). Sampled, not ``ru_maxrss``: a high
    peak earlier in the test session would hide growth.

    ``cpu_seconds``: the CPU time this process and every process it started spent meanwhile.
    A test bounds that, not ``seconds``: on a loaded machine the wall time of the same work
    grows with the load (a verification that took 1 s alone took 12-15 s at load 10), its CPU
    time hardly does."""
    measure = tree_resident if tree else resident
    figures: dict[str, float] = {"growth": 0.0, "seconds": 0.0, "cpu_seconds": 0.0}
    cpu_start = tree_cpu()
    start = measure()
    peak = start
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.wait(0.005):
            peak = max(peak, measure())

    sampler = threading.Thread(target=sample, daemon=True)
    started = time.monotonic()
    sampler.start()
    try:
        yield figures
    finally:
        figures["seconds"] = time.monotonic() - started
        done.set()
        sampler.join()
        figures["growth"] = max(peak, measure()) - start
        figures["cpu_seconds"] = cpu_spent(cpu_start, tree_cpu())
