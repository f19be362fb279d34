"""Verification in worker processes: `verify_pdf` on anybody's file runs outside the server
process, with an address-space limit and a deadline (`core.engine.process_pool`, as generate's
renders do).

pyHanko parses what it is given as far as it goes, in Python objects: a hostile file can make it
take gigabytes and minutes (a 24 MB file whose one signature held 12 MB of hexadecimal digits:
33 s and 2.37 GB in the web process). `check_pdf_limits` refuses the known shapes of that in
the server before anything is parsed; whatever passes is parsed here, where running out of
memory or time costs a worker (killed and replaced), never the server. The web process only
sends the bytes and receives the report.

A job carries everything as data: the file, and the trust roots as DER bytes. Results are
`PdfVerification`; `PdfNotVerifiable` comes back as the worker raised it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core.engine.fetch import FetchPolicy
from core.engine.problems import WorkersBusy, memory_limit_text
from core.engine.process_pool import PoolErrors, PoolSettings, ProcessPool
from esign.engine.verify_limits import PdfTooComplex
from esign.engine.verify_report import PdfVerification

WORKER_MODULE = __name__.rsplit(".", 1)[0] + ".verify_worker"


@dataclass(frozen=True)
class VerifyJob:
    """One file to verify, complete: it is pickled to a worker process as it is."""

    pdf: bytes
    trust_roots: tuple[bytes, ...]  # DER certificates
    max_signatures: int
    now: datetime | None = None  # the caller's clock: trust is decided at this time
    tsa_roots: tuple[bytes, ...] | None = None  # DER; of timestamp authorities (None: trust_roots)
    # VERIFY_ONLINE_REVOCATION: fetch a signer's missing revocation data under this policy
    # (None: nothing is fetched)
    online_revocation: FetchPolicy | None = None


class VerifyBusy(WorkersBusy):
    """Every verify worker stayed busy for as long as a request may wait for one."""

    code = "verify_busy"
    workers = "a verify worker"
    message = "Every verifier is busy; try again shortly."


class VerifyTimeout(PdfTooComplex):
    code = "verify_timeout"


class VerifyOutOfMemory(PdfTooComplex):
    code = "verify_out_of_memory"


class VerifyCrashed(PdfTooComplex):
    """The worker died on the file, or failed on it in an unexpected way (``log_detail``)."""

    code = "verify_crashed"


def _timeout(seconds: float) -> VerifyTimeout:
    unit = "second" if seconds == 1 else "seconds"
    return VerifyTimeout(f"The file took longer than {seconds:g} {unit} to verify and was stopped.")


def _out_of_memory(limit_bytes: int) -> VerifyOutOfMemory:
    return VerifyOutOfMemory(
        "The file is too complex to verify: it needs more memory than a verification"
        f" may use{memory_limit_text(limit_bytes)}."
    )


def _crashed(detail: str, where: str | None = None) -> VerifyCrashed:
    error = VerifyCrashed("The file could not be verified: the verifier failed.")
    error.log_detail = detail
    return error


VERIFY_ERRORS = PoolErrors(
    busy=VerifyBusy,
    timeout=_timeout,
    out_of_memory=_out_of_memory,
    crashed=_crashed,
)


class VerifyPool(ProcessPool[VerifyJob, PdfVerification]):
    """Runs `VerifyJob`s in verify workers. ``run`` returns the `PdfVerification`, or raises
    PdfNotVerifiable, VerifyBusy, or a PdfTooComplex: VerifyTimeout, VerifyOutOfMemory,
    VerifyCrashed."""

    def __init__(self, settings: PoolSettings) -> None:
        super().__init__(settings, worker_module=WORKER_MODULE, errors=VERIFY_ERRORS, name="verify")
