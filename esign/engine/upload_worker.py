"""An upload-check worker: ``python -m esign.engine.upload_worker <fd> <temp dir> <memory limit>
<nice>``.

Started by `esign.engine.upload_pool.UploadPool`; the protocol and the process set-up are
`core.engine.process_worker`'s. Results: ``("ok", lines or Checked)``, ``("error",
SpreadsheetRefused)``, ``("memory", None)`` or ``("crash", (detail, None))``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.engine import process_worker
from esign.engine.spreadsheets import SpreadsheetRefused
from esign.engine.upload_pool import UploadJob


def _run(job: UploadJob) -> Any:
    return job.run()


def _start() -> Callable[[UploadJob], Any]:
    import openpyxl.xml  # warm: what every spreadsheet needs, loaded once

    # Without defusedxml openpyxl would parse with the standard library's expat, entities and
    # all: a worker that cannot have it does not start (the pool says it crashed).
    if not openpyxl.xml.DEFUSEDXML:
        raise RuntimeError("defusedxml is not installed: spreadsheets are not read without it")
    return _run


if __name__ == "__main__":
    process_worker.main(start=_start, expected=(SpreadsheetRefused,), log_name="upload-worker")
