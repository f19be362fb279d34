"""A verify worker: ``python -m esign.engine.verify_worker <fd> <temp dir> <memory limit> <nice>``.

Started by `esign.engine.verify_pool.VerifyPool`; the protocol and the process set-up are
`core.engine.process_worker`'s. Results: ``("ok", PdfVerification)``, ``("error",
PdfNotVerifiable)``, ``("memory", None)`` or ``("crash", (detail, None))``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from asn1crypto import x509 as asn1_x509

from core.engine import process_worker
from esign.engine import pdf_strings
from esign.engine.seal_verify import PdfNotVerifiable, verify_pdf
from esign.engine.verify_pool import VerifyJob
from esign.engine.verify_report import PdfVerification


def _verify(job: VerifyJob) -> PdfVerification:
    roots = [asn1_x509.Certificate.load(der) for der in job.trust_roots]
    tsa_roots = (
        None
        if job.tsa_roots is None
        else [asn1_x509.Certificate.load(der) for der in job.tsa_roots]
    )
    return verify_pdf(
        job.pdf,
        trust_roots=roots,
        tsa_roots=tsa_roots,
        max_signatures=job.max_signatures,
        now=job.now,
        online_revocation=job.online_revocation,
    )


def _start() -> Callable[[VerifyJob], PdfVerification]:
    # The engine logs why a signature could not be checked at INFO; hostile files are common
    # here and the server's log is not the place for each.
    logging.getLogger("pyhanko").setLevel(logging.ERROR)
    # pyHanko's own readers take seconds per few MB of string (esign.engine.pdf_strings).
    pdf_strings.install()
    return _verify


if __name__ == "__main__":
    process_worker.main(start=_start, expected=(PdfNotVerifiable,), log_name="verify-worker")
