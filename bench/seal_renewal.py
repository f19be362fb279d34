"""Sealing and archive timestamp renewal per document, engine only.

    python bench/seal_renewal.py [--runs 30] [--renewals 5]

On one 3-page document, with a software key and a local RFC 3161 TSA, CRL and OCSP responder
(tests/esign/lifetimes_pki.py, on 127.0.0.1): the time to seal at PAdES-B-B (no TSA) and at
PAdES-B-LTA (signature timestamp, validation data, document timestamp), and the time of one
archive timestamp renewal (``renew_seal_pdf``: validation data of the last timestamp fetched and
embedded, one new document timestamp), on a freshly sealed file and on a file renewed again and
again (``--renewals`` times), with the size each renewal adds. Median and p95 per document.
Every phase has a deadline, so the run is bounded.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from seal import contract, time_seal  # noqa: E402


def timed(label: str, work: Callable[[], object], runs: int) -> None:
    """A phase timed as bench/seal.py times its own, with fewer warm-up runs and wider labels."""
    time_seal(label, work, runs, warmup=2, width=48)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--renewals", type=int, default=5)
    args = parser.parse_args()
    logging.disable(logging.WARNING)

    from esign.engine.seal import seal_pdf
    from esign.engine.seal_credentials import SoftwareKey, load_credentials
    from esign.engine.seal_renewal import renew_seal_pdf
    from esign.engine.timestamps import TsaConfig
    from tests.esign.lifetimes_pki import LifetimesPki

    pki = LifetimesPki(ocsp=True)
    try:
        key_pem, cert_pem, _ = pki.software_seal()
        credentials = load_credentials(SoftwareKey(key_pem, cert_pem, pki.ca_pem))
        tsa = TsaConfig(urls=(pki.tsa_url,))
        roots = [pki.root]
        pdf = contract()

        def seal_lta() -> bytes:
            return seal_pdf(
                pdf,
                credentials=credentials,
                signing_time=datetime.now(UTC),
                tsa=tsa,
                trust_roots=roots,
            )

        def renew(sealed: bytes) -> bytes:
            return renew_seal_pdf(sealed, now=datetime.now(UTC), tsa=tsa, trust_roots=roots)

        print(f"One 3-page document ({len(pdf) // 1024} KB), software RSA-2048 key, engine only:")
        timed(
            "seal, no TSA (PAdES-B-B)",
            lambda: seal_pdf(pdf, credentials=credentials, signing_time=datetime.now(UTC)),
            args.runs,
        )
        timed("seal, local TSA + OCSP/CRL (PAdES-B-LTA)", seal_lta, args.runs)
        sealed = seal_lta()
        timed("renew a freshly sealed B-LTA file", lambda: renew(sealed), args.runs)
        chain = sealed
        sizes = [len(chain)]
        for _ in range(args.renewals):
            chain = renew(chain)
            sizes.append(len(chain))
        timed(f"renew a file renewed {args.renewals} times", lambda: renew(chain), args.runs)
        growth = [b - a for a, b in zip(sizes, sizes[1:], strict=False)]
        print(
            f"  sealed B-LTA file {sizes[0] // 1024} KB; each renewal adds "
            f"{min(growth) // 1024}-{max(growth) // 1024} KB ({len(growth)} renewals)"
        )
    finally:
        pki.close()


if __name__ == "__main__":
    main()
