"""Sealing: one 3-page document through SoftHSM2, and a whole packet from its last signature to a
downloadable zip.

    python bench/seal.py [--runs 100] [--packets 15] [--interval 1.0] [--database-url URL] [--no-engine]

1. The engine alone (``esign.engine.seal.seal_pdf``) on a 3-page document: the key in a SoftHSM2
   token made for the run (``softhsm2-util``, ``pkcs11-tool``; the key generated in the token),
   without a TSA (PAdES-B-B; target: at most 60 ms median), the same with the development
   software key for comparison, and with a local RFC 3161 TSA (PAdES-B-LTA: two timestamps, a CRL
   fetched and embedded, a document timestamp). Median and p95.
2. A whole packet through HTTP (gunicorn on loopback, one sync worker): from the last signer's
   POST to the first 200 of ``GET /api/document-group/<eid>.zip``, polled every 20 ms, sealed by
   one task worker as the run command used to start it (``manage.py db_worker``, polling every
   ``--interval`` seconds, 1 s by default) and as it starts it now (``manage.py worker`` with
   its defaults: woken when the task is enqueued), and with ``TASKS_BACKEND=immediate`` (sealed
   inside the last signer's request: the work itself). The HSM key, no TSA.

Loopback only (the TSA and the CRL are served on 127.0.0.1). A temporary SQLite database unless
``--database-url`` names an empty PostgreSQL database, and a temporary data directory. Every phase
has a deadline, so the run is bounded (a few minutes at most).
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _server import Server, prepare_environment, summary  # noqa: E402

PHASE_DEADLINE_SECONDS = 60.0


def contract(pages: int = 3) -> bytes:
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen.canvas import Canvas

    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=letter)
    for number in range(1, pages + 1):
        canvas.setFont("Helvetica-Bold", 16)
        canvas.drawString(72, 720, f"Services agreement, page {number}")
        canvas.setFont("Helvetica", 10)
        for line in range(40):
            canvas.drawString(72, 690 - line * 14, f"Clause {number}.{line + 1}: " + "terms " * 14)
        canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def time_seal(
    label: str, seal: Callable[[], object], runs: int, warmup: int = 5, width: int = 44
) -> None:
    """Print the median and p95 of ``runs`` calls after ``warmup`` untimed ones, ending early at
    the phase's deadline (bench/seal_renewal.py times its phases with this too)."""
    samples = []
    deadline = time.monotonic() + PHASE_DEADLINE_SECONDS
    for n in range(warmup + runs):
        started = time.perf_counter()
        seal()
        if n >= warmup:
            samples.append((time.perf_counter() - started) * 1000)
        if time.monotonic() > deadline:
            break
    median, p95 = summary(samples)
    print(f"  {label:<{width}} median {median:7.1f} ms   p95 {p95:7.1f} ms   ({len(samples)} runs)")


def engine(runs: int) -> None:
    from esign.engine.seal import seal_pdf
    from esign.engine.seal_credentials import SoftwareKey, load_credentials
    from esign.engine.seal_keys import create_development_pki
    from esign.engine.timestamps import TsaConfig
    from tests.esign.sealpki import shared_pki, softhsm_key

    pdf = contract()
    pki = shared_pki()
    hsm = load_credentials(softhsm_key())
    development = create_development_pki(now=datetime.now(UTC))
    software = load_credentials(
        SoftwareKey(development.key_pem, development.cert_pem, development.ca_pem)
    )
    print(f"Seal one 3-page document ({len(pdf) // 1024} KB), engine only:")
    time_seal(
        "SoftHSM2 key, no TSA (PAdES-B-B)",
        lambda: seal_pdf(pdf, credentials=hsm, signing_time=datetime.now(UTC)),
        runs,
    )
    time_seal(
        "software key, no TSA (PAdES-B-B)",
        lambda: seal_pdf(pdf, credentials=software, signing_time=datetime.now(UTC)),
        runs,
    )
    tsa = TsaConfig(urls=(pki.tsa_url,))
    time_seal(
        "SoftHSM2 key, local TSA (PAdES-B-LTA)",
        lambda: seal_pdf(pdf, credentials=hsm, signing_time=datetime.now(UTC), tsa=tsa),
        max(5, runs // 5),
        warmup=2,
    )


CREATE = """
mutation Create($files: [EtchFile!], $signers: [JSON!]) {
  createEtchPacket(name: "Bench packet", files: $files, signers: $signers) {
    eid documentGroup { eid signers { eid aliasId } }
  }
}
"""
SIGN_URL = """
mutation Url($signerEid: String!) { generateEtchSignURL(signerEid: $signerEid, clientUserId: "b") }
"""


class Packets:
    """Packets made and signed through the server's HTTP API, as an integrator and signers do."""

    def __init__(self, server: Server, key: str, pdf: bytes, pause: float) -> None:
        self.server = server
        self.pause = pause
        self.refused = 0  # RateLimitError answers waited out (graphql)
        self._refused_lock = threading.Lock()
        self.auth = "Basic " + base64.b64encode(f"{key}:".encode()).decode()
        self.files = [
            {
                "id": "agreement",
                "title": "Agreement",
                "file": {
                    "data": base64.b64encode(pdf).decode(),
                    "filename": "agreement.pdf",
                    "mimetype": "application/pdf",
                },
                "fields": [
                    {
                        "id": f"sig{n}",
                        "type": "signature",
                        "pageNum": 2,
                        "rect": {"x": 72, "y": 100 + 80 * n, "width": 200, "height": 50},
                    }
                    for n in (1, 2)
                ],
            }
        ]

    def graphql(self, query: str, variables: dict) -> dict:
        """The call's data; a RateLimitError (a new packet while the seals are behind, held too
        long: esign.sending.intake) is waited out for its retryAfter and sent again, as an
        integrator would, and counted in ``refused``."""
        while True:
            status, body = self.server.request(
                "POST",
                "/graphql",
                json.dumps({"query": query, "variables": variables}).encode(),
                {"Content-Type": "application/json", "Authorization": self.auth},
            )
            data = json.loads(body)
            codes = [e.get("extensions", {}).get("code") for e in data.get("errors", [])]
            if status != 200 or codes != ["RateLimitError"]:
                break
            with self._refused_lock:
                self.refused += 1
            time.sleep(data["errors"][0]["extensions"]["retryAfter"])
        assert status == 200 and "errors" not in data, data
        return data["data"]

    def sign(self, signer: str, token: str, typed: str) -> None:
        status, body = self.server.request(
            "POST",
            f"/api/etch/sign/{signer}/complete",
            json.dumps({"signature": {"typed": typed}}).encode(),
            {"Content-Type": "application/json", "X-Signing-Token": token},
        )
        assert status == 200, body

    def ready(self) -> tuple[str, str, str]:
        """A packet whose first signer has signed: (group eid, last signer eid, token)."""
        signers = [
            {
                "id": f"s{n}",
                "name": f"Signer {n}",
                "email": f"s{n}@example.com",
                "signerType": "embedded",
                "routingOrder": n,
                "fields": [{"fileId": "agreement", "fieldId": f"sig{n}"}],
            }
            for n in (1, 2)
        ]
        packet = self.graphql(CREATE, {"files": self.files, "signers": signers})
        packet = packet["createEtchPacket"]
        eids = {s["aliasId"]: s["eid"] for s in packet["documentGroup"]["signers"]}
        tokens = {}
        for alias, eid in eids.items():
            url = self.graphql(SIGN_URL, {"signerEid": eid})["generateEtchSignURL"]
            tokens[alias] = url.split("token=")[1]
        self.sign(eids["s1"], tokens["s1"], "Signer One")
        return packet["documentGroup"]["eid"], eids["s2"], tokens["s2"]

    def last_signature_to_zip(self, *, poll_http: bool) -> tuple[float, float]:
        """(ms for the last signer's request, ms from its start to the first 200 zip).

        The zip is asked for every 20 ms (``poll_http``), or once the packet reads sealed in the
        database (looked at every 5 ms: a query, not a request that competes with the worker
        for the CPU), and then every 20 ms until it answers 200.
        """
        from esign.models import Packet

        group, signer, token = self.ready()
        # At a random point of a polling worker's interval, as a real signer is: otherwise this
        # loop falls into step with the worker's polls and always waits about as long.
        time.sleep(random.uniform(0, self.pause))  # noqa: S311 - not cryptography
        started = time.perf_counter()
        self.sign(signer, token, "Signer Two")
        signed = time.perf_counter()
        deadline = time.monotonic() + PHASE_DEADLINE_SECONDS
        sealed = Packet.objects.filter(document_group__eid=group, seal_status="sealed")
        while not poll_http and not sealed.exists():
            if time.monotonic() > deadline:
                raise RuntimeError("the packet was not sealed in time")
            time.sleep(0.005)
        while True:
            status, body = self.server.request(
                "GET", f"/api/document-group/{group}.zip", headers={"Authorization": self.auth}
            )
            if status == 200:
                break
            assert status == 503, (status, body)
            if time.monotonic() > deadline:
                raise RuntimeError("the packet was not sealed in time")
            time.sleep(0.02)
        done = time.perf_counter()
        return (signed - started) * 1000, (done - started) * 1000


def packets(count: int, interval: float, data_dir: Path, *, poll_http: bool) -> None:
    from django.db import connection

    from accounts.models import ApiKey
    from accounts.services import api_key_create, organization_create

    organization = organization_create(slug="bench", name="Bench")
    _, key = api_key_create(organization=organization, kind=ApiKey.Kind.PRODUCTION)
    pdf = contract()
    print(
        f"\nA whole packet, last signature to downloadable zip ({count} packets each, "
        f"{connection.vendor}, {'zip asked for every 20 ms' if poll_http else 'zip asked for once sealed'}):"
    )
    workers = {
        f"db_worker --interval {interval} (the run command before)": [
            "db_worker",
            "--interval",
            str(interval),
        ],
        "worker (the run command now: woken at enqueue)": ["worker"],
        "TASKS_BACKEND=immediate": None,
    }
    for label, arguments in workers.items():
        os.environ["TASKS_BACKEND"] = "database" if arguments else "immediate"
        server = Server()
        worker = None
        if arguments:
            command = [sys.executable, "manage.py", *arguments, "--queue-name", "*"]
            command += ["--no-reload", "--worker-id", "bench-seal"]
            log = (data_dir / f"worker-{arguments[0]}.log").open("w")
            worker = subprocess.Popen(
                command, cwd=ROOT, env=os.environ.copy(), stdout=log, stderr=log
            )
            time.sleep(4)  # Django set up in the worker
        try:
            bench = Packets(server, key, pdf, pause=interval)
            bench.last_signature_to_zip(poll_http=poll_http)  # warm-up: opens the HSM session
            results = [bench.last_signature_to_zip(poll_http=poll_http) for _ in range(count)]
        finally:
            server.stop()
            if worker is not None:
                worker.send_signal(signal.SIGTERM)
                worker.wait(timeout=30)
        request_median, request_p95 = summary([r[0] for r in results])
        zip_median, zip_p95 = summary([r[1] for r in results])
        print(f"  {label}:")
        print(
            f"    last signer's request        median {request_median:7.1f} ms   p95 {request_p95:7.1f} ms"
        )
        print(
            f"    until the zip is downloadable median {zip_median:7.1f} ms   p95 {zip_p95:7.1f} ms"
        )


def use_softhsm_token() -> None:
    """Make a SoftHSM2 token for the run and point the seal settings at its key, in this
    process's environment, so the server and the workers started after this inherit them."""
    from tests.esign.sealpki import softhsm_available, softhsm_key

    if not softhsm_available():
        raise SystemExit("SoftHSM2 and pkcs11-tool are needed (bash scripts/bootstrap.sh test)")
    key = softhsm_key()
    os.environ.update(
        {
            "SEAL_PKCS11_MODULE": key.module,
            "SEAL_PKCS11_TOKEN_LABEL": key.token_label,
            "SEAL_PKCS11_KEY_LABEL": key.key_label,
            "SEAL_PKCS11_PIN": key.pin,
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--packets", type=int, default=15)
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--no-engine", action="store_true", help="skip the engine-only timings")
    parser.add_argument(
        "--poll-http", action="store_true", help="ask for the zip every 20 ms from the start"
    )
    args = parser.parse_args()

    # The token first: SoftHSM2 reads SOFTHSM2_CONF when the module is first loaded, and the
    # server and the worker inherit the variables it sets.
    use_softhsm_token()
    if not args.no_engine:
        engine(args.runs)
    # gunicorn.conf.py logs every request; the figures are what this prints.
    os.environ["GUNICORN_CMD_ARGS"] = "--access-logfile /dev/null"
    data_dir = prepare_environment(args.database_url)
    packets(args.packets, args.interval, data_dir, poll_http=args.poll_http)


if __name__ == "__main__":
    main()
