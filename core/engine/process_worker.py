"""The worker side of `core.engine.process_pool`: a worker module's ``__main__`` calls
`main` with how to warm up and how to run one job.

A worker is started as ``python -m <module> <fd> <temp dir> <memory limit> <nice>`` and talks to
its pool over the inherited socket ``fd`` with `multiprocessing.connection` messages: it answers
``("ready", None)`` once warm (``("failed", detail)`` if it could not start), then one result per
job: ``("ok", result)``, ``("error", exception)`` for the engine's own errors (they must pickle),
``("memory", None)`` when the job hit the address-space limit, or ``("crash", (detail, where))``
for any other exception. A ``None`` job, or the socket closing (the server went away), ends it.
On the way a job may `ask` its pool a question: ``("ask", question)``, answered by one message.
"""

from __future__ import annotations

import contextlib
import logging
import os
import resource
import shutil
import signal
import sys
import tempfile
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

# Runs one job and returns its result (which must pickle).
Handler = Callable[[Any], Any]


def main(
    *,
    start: Callable[[], Handler],
    expected: tuple[type[BaseException], ...],
    where: Callable[[BaseException], str | None] = lambda _: None,
    log_name: str = "worker",
    after: Callable[[], None] | None = None,
) -> None:
    """A worker module's ``__main__``, a worker's life: with the command-line arguments the pool
    passes (see `arguments`), set up, ``start()`` (warm up; returns the job handler), then run
    jobs until told to stop or killed. Exceptions of the ``expected`` types go back to the caller
    as they are; ``where`` says, for the caller, where in the input an unexpected one happened.
    ``after`` is called once each result is sent, before the next job is awaited (tidying up
    while the caller has its answer)."""
    connection, temp_dir, memory_limit_bytes, nice = arguments()
    try:
        set_up_process(temp_dir, memory_limit_bytes, nice, log_name)
        handle = start()
    except BaseException as exc:  # reported to the parent, which logs it
        with contextlib.suppress(Exception):
            connection.send(("failed", describe(exc)))
        return
    connection.send(("ready", None))
    try:
        serve(connection, handle, expected=expected, where=where, after=after)
    finally:
        # The parent removes the folder of a worker it kills; one that ends on its own (the
        # server went away) removes its own.
        shutil.rmtree(temp_dir, ignore_errors=True)


_asking: list[Connection] = []  # the connection of the job under way, for `ask`


def ask(question: Any) -> Any:
    """Ask the pool that sent the job under way ``question`` (it must pickle) and wait for its
    answer (`core.engine.process_pool.ProcessPool.run`'s ``answer``). Work that runs in parts
    uses it to learn what the other parts found."""
    connection = _asking[-1]
    connection.send(("ask", question))
    return connection.recv()


def serve(
    connection: Connection,
    handle: Handler,
    *,
    expected: tuple[type[BaseException], ...],
    where: Callable[[BaseException], str | None] = lambda _: None,
    after: Callable[[], None] | None = None,
) -> None:
    while True:
        try:
            job = connection.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        _asking.append(connection)
        try:
            result: tuple[str, Any] = ("ok", handle(job))
        except expected as exc:
            result = ("error", exc)
        except MemoryError:
            result = ("memory", None)
        except Exception as exc:
            result = ("crash", (describe(exc), _where(where, exc)))
        finally:
            _asking.pop()
        try:
            try:
                connection.send(result)
            except MemoryError:
                # Pickling the answer needs memory too: the job needed too much.
                connection.send(("memory", None))
        except (EOFError, OSError):
            return
        del result, job  # not held while waiting for the next job
        if after is not None:
            after()


def set_up_process(temp_dir: str, memory_limit_bytes: int, nice: int, log_name: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when workers stop
    if nice > 0:
        # Batch work: the server's threads (fills, API calls) come first.
        os.nice(nice)
    tempfile.tempdir = temp_dir
    os.environ["TMPDIR"] = temp_dir
    if memory_limit_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory_limit_bytes, memory_limit_bytes))
    logging.basicConfig(
        level=logging.WARNING, format=f"{log_name} %(levelname)s %(name)s: %(message)s"
    )


def _where(where: Callable[[BaseException], str | None], exc: BaseException) -> str | None:
    """Where in the input it failed, for the caller; never a reason to lose the answer."""
    try:
        return where(exc)
    except Exception:
        return None


def describe(exc: BaseException) -> str:
    """An exception for the logs: its type and frames, never its message (it may quote data)."""
    frames = "".join(traceback.format_tb(exc.__traceback__))
    return f"{type(exc).__name__}\n{frames}"


def arguments() -> tuple[Connection, str, int, int]:
    """The worker's command-line arguments, as `ProcessPool` passes them."""
    descriptor, directory, limit, niceness = sys.argv[1:5]
    return Connection(int(descriptor)), directory, int(limit), int(niceness)
