"""The worker processes of a `core.engine.process_pool.ProcessPool`: started, stopped, their
memory read. The pool decides when; this module knows how.

A worker is a fresh interpreter (``python -m <worker module>``, see `core.engine.process_worker`)
talking over a socket pair, in a temporary folder of its own, at a lower CPU priority and within
an address-space limit if given.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection


@dataclass
class Worker:
    process: subprocess.Popen[bytes]
    connection: Connection
    temp_dir: str
    jobs: int = 0

    def is_alive(self) -> bool:
        return self.process.poll() is None


@dataclass(frozen=True)
class WorkerCommand:
    """How a pool's workers are started."""

    name: str  # names the workers in logs, errors and temporary folders ("render")
    module: str  # the worker's module (``python -m``)
    memory_limit_bytes: int
    nice: int
    start_timeout_seconds: float
    not_started: Callable[[str], Exception]  # the error when a worker cannot be started


def start_worker(command: WorkerCommand) -> Worker:
    """A new worker, ready for its first job; raises ``command.not_started`` if it is not."""
    not_started = command.not_started
    ours, theirs = socket.socketpair()
    # A worker's temporary files (WeasyPrint's @font-face fonts...) go to a folder of its
    # own, removed when the worker stops: a killed worker cannot clean up.
    temp_dir = tempfile.mkdtemp(prefix=f"{command.name}-worker-")
    environment = dict(os.environ)
    # The worker imports what this process imports, from the same places.
    environment["PYTHONPATH"] = os.pathsep.join(path for path in sys.path if path)
    try:
        process = subprocess.Popen(  # noqa: S603 - a fixed command: this interpreter, our module
            [
                sys.executable,
                "-m",
                command.module,
                str(theirs.fileno()),
                temp_dir,
                str(command.memory_limit_bytes),
                str(command.nice),
            ],
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            env=environment,
            # Out of the server's process group: Ctrl-C in its terminal is for the server,
            # which stops its workers itself.
            start_new_session=True,
        )
    except BaseException as exc:
        ours.close()
        shutil.rmtree(temp_dir, ignore_errors=True)
        if isinstance(exc, OSError):  # no process to be had (fork: ENOMEM, EAGAIN)
            raise not_started(f"the {command.name} worker could not be started: {exc}") from None
        raise
    finally:
        theirs.close()
    worker = Worker(process=process, connection=Connection(ours.detach()), temp_dir=temp_dir)
    try:
        if not worker.connection.poll(command.start_timeout_seconds):
            raise not_started(f"the {command.name} worker did not start in time")
        status, detail = worker.connection.recv()
        if status != "ready":
            raise not_started(f"the {command.name} worker failed to start: {detail}")
    except (EOFError, OSError) as exc:
        stop_worker(worker)
        raise not_started(death_detail(command.name, worker, exc)) from None
    except BaseException:
        stop_worker(worker)
        raise
    return worker


def death_detail(name: str, worker: Worker, exc: BaseException) -> str:
    """How a worker that stopped answering ended, for the logs."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        worker.process.wait(1)
    code = worker.process.returncode
    if code is not None and code < 0:
        return f"the {name} worker was killed by signal {-code} ({type(exc).__name__})"
    return f"the {name} worker exited with code {code} ({type(exc).__name__})"


def resident_bytes(pid: int) -> int | None:
    """The resident memory of process ``pid`` (Linux's /proc); None where it cannot be read."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:  # noqa: PTH123 - a /proc pseudo-file
            resident_pages = int(statm.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return resident_pages * os.sysconf("SC_PAGE_SIZE")


def stop_worker(worker: Worker) -> None:
    """Kill a worker (it holds nothing worth a graceful exit) and remove its temporary files."""
    with contextlib.suppress(Exception):
        worker.connection.close()
    if worker.is_alive():
        worker.process.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        worker.process.wait(5)
    shutil.rmtree(worker.temp_dir, ignore_errors=True)
