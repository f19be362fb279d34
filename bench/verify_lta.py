"""Verifying a 1 MB PAdES-B-LTA file through the API (issue 33). Run from the repository root:

    .venv/bin/python bench/verify_lta.py [--runs 30]

Makes a test PKI on loopback (tests/esign/ltvpki.py: a CA with OCSP and CRL, a TSA), seals a
1 MB PDF with it (B-LTA: signature timestamp, validation data, document timestamp), trusts the
CA (SEAL_TRUST_ROOTS_FILE), starts gunicorn (one process) on a temporary SQLite database and
times ``POST /api/v1/verify`` with a production key: median and p95 of the whole request (upload,
authentication, the structural scan, the verify worker's long-term validation, the answer).
Then the engine alone (`verify_pdf` in this process, with the worker's string readers) for
comparison. Goal: at most 100 ms through the API.
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._server import Server, prepare_environment, summary, timings  # noqa: E402
from bench.verify_attack import multipart  # noqa: E402

MB = 1_048_576


def one_mb_pdf(pages: int = 86) -> bytes:
    """Pages of uncompressed text: 86 make a file of about 1 MB."""
    from reportlab.pdfgen.canvas import Canvas

    out = io.BytesIO()
    canvas = Canvas(out, pageCompression=0)
    line = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. " * 2
    for _ in range(pages):
        for row in range(60):
            canvas.drawString(36, 800 - row * 13, line)
        canvas.showPage()
    canvas.save()
    return out.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    runs = parser.parse_args().runs

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.esign.ltvpki import ShortLivedPki

    pki = ShortLivedPki(revocation_seconds=86400)
    roots = Path(tempfile.mkdtemp(prefix="bench-verify-lta-roots-")) / "roots.pem"
    roots.write_bytes(pki.ca_pem)
    prepare_environment(prefix="bench-verify-lta-", SEAL_TRUST_ROOTS_FILE=str(roots))

    from accounts.services import api_key_create, organization_create
    from esign.engine.seal import seal_pdf
    from esign.engine.seal_credentials import SoftwareKey, load_credentials
    from esign.engine.seal_verify import verify_pdf
    from esign.engine.timestamps import TsaConfig
    from tests.esign.sealpki import asn1

    key_pem, cert_pem = pki.key_and_certificate("Bench seal")
    sealed = seal_pdf(
        one_mb_pdf(),
        credentials=load_credentials(SoftwareKey(key_pem, cert_pem, pki.ca_pem)),
        signing_time=datetime.now(UTC),
        tsa=TsaConfig(urls=(pki.tsa_url,)),
    )
    organization = organization_create(slug="bench", name="Bench")
    _, key = api_key_create(organization=organization, kind="production")
    auth = {"Authorization": "Basic " + base64.b64encode(f"{key}:".encode()).decode()}
    body, content_type = multipart(sealed, {})
    server = Server()
    try:

        def post() -> dict[str, Any]:
            status, answer = server.request(
                "POST", "/api/v1/verify", body, {**auth, "Content-Type": content_type}
            )
            assert status == 200, answer[:300]
            return json.loads(answer)

        first = post()
        print(
            f"file: {len(sealed):,} bytes, verdict {first['verdict']},"
            f" level {first['signatures'][0]['level']},"
            f" {len(first['documentTimestamps'])} document timestamp(s)"
        )
        median, p95 = summary(timings(post, runs))
        print(f"POST /api/v1/verify: median {median:.1f} ms, p95 {p95:.1f} ms ({runs} runs)")
    finally:
        server.stop()
    trust = [asn1(pki.certificate)]
    # As the verify worker does (esign.engine.verify_worker): pyHanko's own string readers
    # would make the engine alone look slower than it is behind the API.
    from esign.engine import pdf_strings

    pdf_strings.install()
    started = time.perf_counter()
    report = verify_pdf(sealed, trust_roots=trust, now=datetime.now(UTC))
    assert report.verdict == "valid"
    first_ms = (time.perf_counter() - started) * 1000
    median, p95 = summary(
        timings(lambda: verify_pdf(sealed, trust_roots=trust, now=datetime.now(UTC)), runs)
    )
    print(
        f"verify_pdf alone: median {median:.1f} ms, p95 {p95:.1f} ms (first call {first_ms:.0f} ms)"
    )


if __name__ == "__main__":
    main()
