"""A render worker: ``python -m generate.engine.worker <fd> <temp dir> <memory limit> <nice>``.

Started by `generate.engine.pool.RenderPool`; talks to it over the inherited socket ``fd`` with
`multiprocessing.connection` messages: it answers ``("ready", None)`` once warm, then one
result per job: ``("ok", RenderedPdf)``, ``("error", GenerateError)``, ``("memory", None)`` or
``("crash", (detail, where))`` (see `RenderFailed`). A ``None`` job, or the socket closing (the
server went away), ends it.
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
from multiprocessing.connection import Connection
from typing import Any

from weasyprint.text.fonts import FontConfiguration

from generate.engine.errors import GenerateError
from generate.engine.render import describe_failure, render_pdf, warm_up


def worker_main(
    connection: Connection, temp_dir: str, memory_limit_bytes: int, nice: int = 0
) -> None:
    """A worker's life: set up, warm up, then render jobs until told to stop or killed."""
    try:
        _set_up_process(temp_dir, memory_limit_bytes, nice)
        font_config = FontConfiguration()
        warm_up(font_config)
    except BaseException as exc:  # reported to the parent, which logs it
        with contextlib.suppress(Exception):
            connection.send(("failed", _describe(exc)))
        return
    connection.send(("ready", None))
    try:
        _serve(connection, font_config)
    finally:
        # The parent removes the folder of a worker it kills; one that ends on its own (the
        # server went away) removes its own.
        shutil.rmtree(temp_dir, ignore_errors=True)


def _serve(connection: Connection, font_config: FontConfiguration) -> None:
    while True:
        try:
            job = connection.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        try:
            result: tuple[str, Any] = ("ok", render_pdf(job, font_config=font_config))
        except GenerateError as exc:
            result = ("error", exc)
        except MemoryError:
            result = ("memory", None)
        except Exception as exc:
            result = ("crash", (_describe(exc), _where(exc)))
        # A document with @font-face rules added fonts to the configuration (and files to a
        # temporary folder): start the next document from a clean one.
        if getattr(font_config, "_folder", None) is not None:
            shutil.rmtree(font_config._folder, ignore_errors=True)
            font_config._folder = None
            font_config = FontConfiguration()
        try:
            connection.send(result)
        except (EOFError, OSError):
            return


def _set_up_process(temp_dir: str, memory_limit_bytes: int, nice: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when workers stop
    if nice > 0:
        # Rendering is batch work: the server's threads (fills, API calls) come first.
        os.nice(nice)
    tempfile.tempdir = temp_dir
    os.environ["TMPDIR"] = temp_dir
    if memory_limit_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory_limit_bytes, memory_limit_bytes))
    # WeasyPrint reports every ignored CSS declaration and missing resource, quoting the
    # document; request content stays out of the logs.
    logging.getLogger("weasyprint").setLevel(logging.CRITICAL)
    logging.getLogger("fontTools").setLevel(logging.ERROR)
    logging.basicConfig(
        level=logging.WARNING, format="generate-worker %(levelname)s %(name)s: %(message)s"
    )


def _where(exc: BaseException) -> str | None:
    """Where in the document it failed, for the caller; never a reason to lose the answer."""
    try:
        return describe_failure(exc)
    except Exception:
        return None


def _describe(exc: BaseException) -> str:
    """An exception for the logs: its type and frames, never its message (it may quote data)."""
    frames = "".join(traceback.format_tb(exc.__traceback__))
    return f"{type(exc).__name__}\n{frames}"


if __name__ == "__main__":
    descriptor, directory, limit, niceness = sys.argv[1:5]
    worker_main(Connection(int(descriptor)), directory, int(limit), int(niceness))
