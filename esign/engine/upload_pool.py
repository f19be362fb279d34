"""Upload checks in worker processes: an uploaded file that a parser must open to be checked (a
bulk send's XLSX, a signer's attached PDF) is opened outside the server process, within an
address-space limit and a deadline (`core.engine.process_pool`, as verification and field
detection are). The checks refuse the known bombs by their limits first
(esign.engine.spreadsheets, esign.engine.attachment_files); whatever they miss costs a worker
(killed and replaced), never the server, which only sends the bytes and receives the answer.

A job carries everything as data and says how it is run (``run``), so one pool serves both
kinds. `SpreadsheetRefused` comes back as the worker raised it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.engine.problems import EngineError, WorkersBusy
from core.engine.process_pool import PoolErrors, PoolSettings, ProcessPool
from esign.engine.attachment_files import Checked, PdfLimits, check_attachment
from esign.engine.spreadsheets import SpreadsheetLimits, xlsx_lines

WORKER_MODULE = __name__.rsplit(".", 1)[0] + ".upload_worker"


@dataclass(frozen=True)
class SpreadsheetJob:
    """An XLSX file's first sheet, read into lines (esign.engine.spreadsheets.xlsx_lines)."""

    data: bytes
    limits: SpreadsheetLimits

    def run(self) -> list[tuple[Any, ...]]:
        return xlsx_lines(self.data, self.limits)


@dataclass(frozen=True)
class AttachmentJob:
    """A file a signer attaches, checked (esign.engine.attachment_files.check_attachment)."""

    data: bytes
    accepted: tuple[str, ...]
    pdf_limits: PdfLimits

    def run(self) -> Checked:
        return check_attachment(self.data, self.accepted, self.pdf_limits)


UploadJob = SpreadsheetJob | AttachmentJob


class UploadBusy(WorkersBusy):
    """Every upload-check worker stayed busy for as long as a request may wait for one."""

    code = "upload_check_busy"
    workers = "an upload-check worker"
    message = "Uploaded files are being checked for others; try again shortly."


class UploadTooComplex(EngineError):
    """The check took more time or memory than it may, or the worker died on the file: the
    file is refused (the caller says so in its own words)."""

    code = "upload_check_too_complex"
    kind = "unprocessable"


def _timeout(seconds: float) -> UploadTooComplex:
    return UploadTooComplex(
        "the file took too long to check", log_detail=f"stopped after {seconds:g} s"
    )


def _out_of_memory(limit_bytes: int) -> UploadTooComplex:
    return UploadTooComplex(
        "the file needs more memory to check than allowed",
        log_detail=f"past the worker's {limit_bytes / 2**20:g} MB",
    )


def _crashed(detail: str, where: str | None = None) -> UploadTooComplex:
    return UploadTooComplex("the file could not be checked", log_detail=detail)


UPLOAD_ERRORS = PoolErrors(
    busy=UploadBusy,
    timeout=_timeout,
    out_of_memory=_out_of_memory,
    crashed=_crashed,
)


class UploadPool(ProcessPool[UploadJob, Any]):
    """Runs upload jobs in upload-check workers. ``run`` returns the job's result, or raises
    SpreadsheetRefused, UploadBusy or UploadTooComplex."""

    def __init__(self, settings: PoolSettings) -> None:
        super().__init__(settings, worker_module=WORKER_MODULE, errors=UPLOAD_ERRORS, name="upload")
