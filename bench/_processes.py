"""CPU per process for the benchmarks, and a controlled competitor for the CPU.

A figure taken on a shared machine says little unless it comes with what else ran: the load
average is printed beside the figures, and a competitor (``--competitor 'stress-ng --cpu 2'``,
Debian's stress-ng) is started by the bench itself at the service's priority, so that a run "with
the competitor" is the same load every time rather than whatever other work the machine had.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far (Linux /proc); 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def descendants(pid: int) -> list[int]:
    """The live processes under ``pid`` (children, theirs, ...), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def tree_cpu(pid: int) -> float:
    """CPU seconds of ``pid`` and its live descendants, plus what its finished children used
    (cutime, cstime: a render worker replaced meanwhile still counts)."""
    total = 0.0
    for one in [pid, *descendants(pid)]:
        total += cpu_seconds(one)
        try:
            fields = Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[13]) + int(fields[14])) / TICKS
        except OSError:
            pass
    return total


@dataclass
class CpuMeter:
    """CPU seconds of named process trees between :meth:`start` and :meth:`stop`."""

    processes: dict[str, int]
    started: dict[str, float] = field(default_factory=dict)
    used: dict[str, float] = field(default_factory=dict)

    def start(self) -> None:
        self.started = {name: tree_cpu(pid) for name, pid in self.processes.items()}

    def stop(self) -> None:
        self.used = {
            name: tree_cpu(pid) - self.started.get(name, 0.0)
            for name, pid in self.processes.items()
        }

    def lines(self, wall: float, per: int) -> list[str]:
        """One line a process tree: its CPU seconds, its share of one core over ``wall``, and
        per item (``per`` packets)."""
        return [
            f"  {name:<34} {seconds:8.1f} s  {seconds / wall * 100:5.0f}% of a core  "
            f"{seconds / max(per, 1) * 1000:6.0f} ms a packet"
            for name, seconds in self.used.items()
        ]


class Competitor:
    """A command competing for the CPU (``stress-ng --cpu 2``), in a process group of its own, at
    this process's priority; stopped with its whole group."""

    def __init__(self, command: str, log: Path) -> None:
        with log.open("w") as out:
            self.process = subprocess.Popen(
                shlex.split(command), stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        self.command = command

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.1f} / {five:.1f} / {fifteen:.1f}"


class Sampler:
    """Calls :meth:`sample` every 10 ms on a thread of its own while the ``with`` block runs, so
    that a peak between two requests' answers is seen (bench/image_bomb.py and
    bench/verify_attack.py sample memory with it)."""

    def __init__(self) -> None:
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def sample(self) -> None:
        raise NotImplementedError

    def _run(self) -> None:
        while not self._done.wait(0.01):
            self.sample()

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()
