"""This process's upload-check workers (esign.engine.upload_pool): a bulk send's XLSX (esign.bulk
.files) and a signer's attached PDF (esign.signing.attachments) are opened there, never in the
server process, each within an address-space limit and a deadline (UPLOAD_CHECK_WORKERS,
UPLOAD_CHECK_WORKER_MEMORY_MB, UPLOAD_CHECK_TIMEOUT_SECONDS: core.pools).

At esign's top beside its other shared modules, so that both rooms reach the one pool."""

from __future__ import annotations

import logging
from typing import Any

from core.errors import ServiceBusy
from core.pools import SettingsPool
from esign.engine.upload_pool import UploadBusy, UploadJob, UploadPool, UploadTooComplex

logger = logging.getLogger(__name__)

# A worker is replaced after this many files, or when left holding more than this.
WORKER_MAX_JOBS = 200
WORKER_RECYCLE_BYTES = 300 * 1_048_576

_pool = SettingsPool(
    UploadPool, "UPLOAD_CHECK", max_jobs=WORKER_MAX_JOBS, recycle_rss_bytes=WORKER_RECYCLE_BYTES
)


def upload_pool() -> UploadPool:
    """This process's upload-check pool."""
    return _pool.get()


def run_upload_check(job: UploadJob, *, busy_message: str, tenant: str | None = None) -> Any:
    """``job``'s result from a worker. Raises the job's own errors (SpreadsheetRefused),
    UploadTooComplex (logged: past the worker's time or memory, or the worker died) for the
    caller to refuse the file in its words, or ServiceBusy with ``busy_message``."""
    try:
        return _pool.run(job, tenant=tenant)
    except UploadTooComplex as error:
        logger.warning("upload refused (%s): %s", type(job).__name__, error.log_detail)
        raise
    except UploadBusy as error:
        logger.warning("upload check busy: %s", error.log_detail)
        raise ServiceBusy(
            busy_message, retry_after_seconds=error.retry_after_seconds or 5
        ) from None
