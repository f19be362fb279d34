"""Field detection in worker processes: rendering and reading an uploaded PDF's pages runs
outside the server process, within an address-space limit and a deadline
(`core.engine.process_pool`, as generate's renders and esign's verifications do). pdfium parses
whatever it is given; a hostile or huge file costs a worker (killed and replaced), never the
server.

A job carries everything as data (the PDF, the pages, the limits); the result is the detected
`TemplateSpec`. `ImportRefused` comes back as the worker raised it.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.engine.problems import EngineError, WorkersBusy, memory_limit_text
from core.engine.process_pool import PoolErrors, PoolSettings, ProcessPool
from core.engine.template_spec import TemplateSpec
from templates_app.engine.detect_fields import DetectLimits

WORKER_MODULE = __name__.rsplit(".", 1)[0] + ".detect_worker"


@dataclass(frozen=True)
class DetectJob:
    """One PDF to look for fields in, complete: pickled to a worker as it is."""

    pdf: bytes
    pages: tuple[int, ...] | None  # 0-based; None for every page
    limits: DetectLimits


class DetectBusy(WorkersBusy):
    """Every detection worker stayed busy for as long as a request may wait for one."""

    code = "detect_busy"
    workers = "a detection worker"
    message = "Field detection is busy; try again shortly."


class DetectTooComplex(EngineError):
    """The file took more time or memory than a detection may use, or the worker died on it."""

    code = "detect_too_complex"
    kind = "unprocessable"


def _timeout(seconds: float) -> DetectTooComplex:
    return DetectTooComplex(f"Looking for fields took longer than {seconds:g} s and was stopped.")


def _out_of_memory(limit_bytes: int) -> DetectTooComplex:
    return DetectTooComplex(
        "The file is too complex to look for fields in: it needs more memory than allowed"
        f"{memory_limit_text(limit_bytes)}."
    )


def _crashed(detail: str, where: str | None = None) -> DetectTooComplex:
    error = DetectTooComplex("Fields could not be looked for in this file: the reader failed.")
    error.log_detail = detail
    return error


DETECT_ERRORS = PoolErrors(
    busy=DetectBusy,
    timeout=_timeout,
    out_of_memory=_out_of_memory,
    crashed=_crashed,
    failed=_crashed,
)


class DetectPool(ProcessPool[DetectJob, TemplateSpec]):
    """Runs `DetectJob`s in detection workers. ``run`` returns the `TemplateSpec` of the
    detected fields, or raises ImportRefused, DetectBusy or DetectTooComplex."""

    def __init__(self, settings: PoolSettings) -> None:
        super().__init__(settings, worker_module=WORKER_MODULE, errors=DETECT_ERRORS, name="detect")
