"""Fill throughput alone and beside two long generates, on the production server configuration.

    python bench/starvation.py [--clients 8] [--seconds 20] [--rows 6500] [--compare-sync]
                               [--database-url postgres://...] [--rate-limit-cache-url redis://...]

Starts gunicorn with gunicorn.conf.py (2 processes, threaded) on 127.0.0.1 against a temporary
SQLite database (or an empty PostgreSQL database, and Redis for the rate-limit counters, as
docs/configuration.md runs production), then:

1. ``--clients`` threads fill the demo template as fast as they can for ``--seconds``: fills per
   second, p50 and p95 latency ("alone");
2. two organizations each start a long, valid generate (an HTML table of ``--rows`` rows, about
   24 s alone on one core) while the same fill clients run again for ``--seconds`` (or until
   the generates end): the same figures ("beside two generates"), the ratio to alone (target: at
   least 70 %), and how each generate ended.

With ``--compare-sync`` it runs it all again with the configuration the docs used to give
(gunicorn's sync workers, ``-w 2``, render workers at normal priority), for comparison.
Everything stays on loopback. The run is bounded: each phase stops after ``--seconds``, a
generate after the render cap (60 s), and the whole run after ``--budget`` seconds (default 300).
Figures only, no assertions.
"""

from __future__ import annotations

import argparse
import base64
import http.client
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._server import prepare_environment  # noqa: E402


@dataclass
class Setup:
    env: dict[str, str]
    fill_path: str
    fill_body: bytes
    fill_auth: str
    generate_auths: list[str]


@dataclass
class Phase:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds if self.seconds else 0.0

    def percentile(self, share: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] * 1000


def prepare(database_url: str | None, rate_limit_cache_url: str | None = None) -> Setup:
    """A fresh database with three organizations, their production keys and the demo template."""
    prepare_environment(
        database_url,
        prefix="bench-starvation-",
        GUNICORN_LOG_LEVEL="warning",
        GENERATE_MAX_PAGES="5000",
        **({"RATE_LIMIT_CACHE_URL": rate_limit_cache_url} if rate_limit_cache_url else {}),
    )
    env = dict(os.environ)
    from accounts.services import api_key_create, organization_create
    from fill.openapi import EXAMPLES
    from templates_app.engine.demo import build_demo_template
    from templates_app.services import template_create_with_spec

    def auth(slug: str) -> tuple[object, str]:
        organization = organization_create(slug=slug, name=slug)
        _, key = api_key_create(organization=organization, kind="production")
        return organization, "Basic " + base64.b64encode(f"{key}:".encode()).decode()

    filler, fill_auth = auth("fills")
    pdf, spec = build_demo_template()
    template = template_create_with_spec(
        organization=filler, title="Demo", pdf=pdf, spec=spec, publish=True
    )
    generate_auths = [auth(slug)[1] for slug in ("reports-a", "reports-b")]
    # The demo template's values, as the fill API's documentation shows them.
    values = next(example.value["data"] for example in EXAMPLES if example.name == "Values")
    fill_body = json.dumps({"title": "Starvation", "data": values}).encode()
    return Setup(env, f"/api/v1/fill/{template.eid}.pdf", fill_body, fill_auth, generate_auths)


class Server:
    def __init__(self, env: dict[str, str], extra: list[str]) -> None:
        with socketless_port() as port:
            self.port = port
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "-b", f"127.0.0.1:{port}"]
            + extra,
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,  # the access log: written (its cost counts), not shown
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if self.request("GET", "/healthz", None, {})[0] == 200:
                    return
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("the server did not start")

    def request(
        self, method: str, path: str, body: bytes | None, headers: dict[str, str], timeout=120.0
    ) -> tuple[int, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class socketless_port:  # noqa: N801 - a context manager used like a function
    """A free port on loopback (bound and released)."""

    def __enter__(self) -> int:
        import socket

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        return self.sock.getsockname()[1]

    def __exit__(self, *exc: object) -> None:
        self.sock.close()


def fill_load(
    server: Server, setup: Setup, clients: int, stop_at: threading.Event, seconds: float
) -> Phase:
    """``clients`` threads filling on keep-alive connections until ``stop_at`` or ``seconds``."""
    phase = Phase()
    lock = threading.Lock()
    headers = {"Authorization": setup.fill_auth, "Content-Type": "application/json"}
    deadline = time.monotonic() + seconds

    def client() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
        try:
            while not stop_at.is_set() and time.monotonic() < deadline:
                started = time.perf_counter()
                try:
                    connection.request(
                        "POST", setup.fill_path, body=setup.fill_body, headers=headers
                    )
                    response = connection.getresponse()
                    ok = response.status == 200 and response.read().startswith(b"%PDF")
                except (OSError, http.client.HTTPException):
                    connection.close()
                    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
                    ok = False
                elapsed = time.perf_counter() - started
                with lock:
                    if ok:
                        phase.latencies.append(elapsed)
                    else:
                        phase.errors += 1
        finally:
            connection.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    phase.seconds = time.monotonic() - started
    return phase


def table(rows: int) -> bytes:
    cells = "".join(
        f"<tr><td>{i}</td><td>Line item {i}</td><td>{i * 3.25:.2f}</td></tr>" for i in range(rows)
    )
    return json.dumps({"type": "html", "data": {"html": f"<table>{cells}</table>"}}).encode()


def run(setup: Setup, args: argparse.Namespace, label: str, extra: list[str], env: dict) -> None:
    print(f"\n== {label}")
    server = Server(env, extra)
    try:
        # Warm up: every server process and its render workers started once.
        warm = threading.Event()
        fill_load(server, setup, args.clients, warm, 3)
        for auth in setup.generate_auths:
            server.request(
                "POST",
                "/api/v1/generate-pdf",
                json.dumps({"data": [{"content": "warm"}]}).encode(),
                {"Authorization": auth, "Content-Type": "application/json"},
            )

        alone = fill_load(server, setup, args.clients, threading.Event(), args.seconds)
        report("fills alone", alone)

        generates: list[tuple[int, float, str]] = []
        done = threading.Event()
        body = table(args.rows)

        def generate(auth: str) -> None:
            started = time.monotonic()
            status, content = server.request(
                "POST",
                "/api/v1/generate-pdf",
                body,
                {"Authorization": auth, "Content-Type": "application/json"},
                timeout=args.budget,
            )
            name = (
                "PDF" if content.startswith(b"%PDF") else json.loads(content or b"{}").get("name")
            )
            generates.append((status, time.monotonic() - started, str(name)))
            if len(generates) == len(setup.generate_auths):
                done.set()

        threads = [threading.Thread(target=generate, args=(a,)) for a in setup.generate_auths]
        for thread in threads:
            thread.start()
        time.sleep(1.0)  # both generates under way
        beside = fill_load(server, setup, args.clients, done, args.seconds)
        still_running = not done.is_set()
        report("fills beside two generates", beside)
        for thread in threads:
            thread.join(timeout=args.budget)
        ratio = beside.rate / alone.rate if alone.rate else float("nan")
        print(f"  throughput beside / alone: {ratio:.0%} (target: at least 70%)")
        if not still_running:
            print("  (the generates ended before the phase did: the phase was cut short)")
        for status, seconds, name in sorted(generates):
            print(f"  generate: {status} {name} after {seconds:.1f} s")
    finally:
        server.stop()


def report(label: str, phase: Phase) -> None:
    print(
        f"  {label:28} {phase.rate:7.1f} fills/s  p50 {phase.percentile(0.5):7.1f} ms  "
        f"p95 {phase.percentile(0.95):7.1f} ms  errors {phase.errors}  "
        f"({len(phase.latencies)} in {phase.seconds:.1f} s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rows", type=int, default=6500)
    parser.add_argument("--budget", type=float, default=300.0)
    parser.add_argument("--compare-sync", action="store_true")
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--rate-limit-cache-url", default=None)
    args = parser.parse_args()
    # The whole run is bounded: whatever happens, the process ends after the budget.
    watchdog = threading.Timer(args.budget * (2 if args.compare_sync else 1), os._exit, (3,))
    watchdog.daemon = True
    watchdog.start()

    setup = prepare(args.database_url, args.rate_limit_cache_url)
    database = "PostgreSQL" if args.database_url else "SQLite"
    counters = "Redis" if args.rate_limit_cache_url else "the database"
    print(
        f"{os.cpu_count()} CPUs; {database}, rate-limit counters in {counters}; "
        f"{args.clients} fill clients; generates: two HTML tables of {args.rows} rows, "
        "from two organizations"
    )
    run(setup, args, "gunicorn.conf.py (threaded, 2 processes)", [], setup.env)
    if args.compare_sync:
        env = {**setup.env, "GENERATE_WORKER_NICE": "0"}
        run(
            setup,
            args,
            "before: sync workers, -w 2, render workers not niced",
            [
                # One thread: gunicorn turns sync workers with threads into gthread ones.
                *("-k", "sync", "-w", "2", "--threads", "1", "--timeout", "30"),
            ],
            env,
        )


if __name__ == "__main__":
    main()
