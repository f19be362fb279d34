"""Fill throughput with one web process and with two, as several machines run the service: each
gunicorn process with its own DATA_DIR, all sharing one PostgreSQL database, one S3 bucket
(moto's server) and one Redis server. Run from the repository root:

    .venv/bin/python bench/several_processes.py --database-url postgres://postgres@127.0.0.1/<empty db>
        [--seconds 20] [--clients 8]

Prints fills per second (and median latency) with ``--clients`` concurrent clients against one
web process, then spread over two. On one machine the two processes share its CPUs, so the
ratio says how much of a second machine's worth the service can use, not what it would give.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.cluster import Cluster, call, shared_environment  # noqa: E402
from tests.s3server import start_s3_server  # noqa: E402

SETUP = """
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from accounts.services import api_key_create, organization_create
from templates_app.engine.demo import build_demo_template
from templates_app.services import template_create_with_spec
organization = organization_create(slug="bench", name="Bench")
key = api_key_create(organization=organization, kind="production")[1]
pdf, spec = build_demo_template()
template = template_create_with_spec(
    organization=organization, title="Demo", pdf=pdf, spec=spec, publish=True
)
print(key, template.eid)
"""
FILL = {"data": {"title": "Several processes"}}


def run_load(webs: list[str], key: str, path: str, seconds: float, clients: int) -> dict:
    """``clients`` threads fill in a loop for ``seconds``, spread over ``webs``."""
    latencies: list[float] = []
    errors = 0
    stop = time.monotonic() + seconds
    lock = threading.Lock()

    def client(index: int) -> None:
        nonlocal errors
        web = webs[index % len(webs)]
        while time.monotonic() < stop:
            started = time.monotonic()
            status, _ = call(web, "POST", path, key=key, body=FILL)
            with lock:
                if status == 200:
                    latencies.append(time.monotonic() - started)
                else:
                    errors += 1

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {
        "fills_per_second": round(len(latencies) / seconds, 1),
        "median_ms": round(statistics.median(latencies) * 1000, 1) if latencies else None,
        "errors": errors,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--database-url", required=True, help="an empty PostgreSQL database")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--clients", type=int, default=8)
    options = parser.parse_args()
    directory = Path(tempfile.mkdtemp(prefix="bench-several-"))
    s3 = start_s3_server(directory / "s3.log")
    bucket = s3.new_bucket()
    environment = shared_environment(
        options.database_url,
        s3.environment(bucket),
        SECRET_KEY=secrets.token_urlsafe(40),
        RATE_LIMIT_PRODUCTION="1000000",
    )
    setup = subprocess.run(
        [sys.executable, "-c", SETUP],
        cwd=ROOT,
        env={**environment, "DATA_DIR": str(directory / "setup")},
        capture_output=True,
        text=True,
        check=True,
    )
    key, eid = setup.stdout.split()[-2:]
    cluster = Cluster(directory / "cluster", environment)
    try:
        cluster.start_redis()
        a, b = cluster.start_web("web-a"), cluster.start_web("web-b")
        path = f"/api/v1/fill/{eid}.pdf"
        for web in (a, b):  # warm both up
            call(web, "POST", path, key=key, body=FILL)
        one = run_load([a], key, path, options.seconds, options.clients)
        two = run_load([a, b], key, path, options.seconds, options.clients)
        print(
            json.dumps(
                {
                    "clients": options.clients,
                    "seconds": options.seconds,
                    "cpus": os.cpu_count(),
                    "one_web_process": one,
                    "two_web_processes": two,
                    "ratio": round(two["fills_per_second"] / one["fills_per_second"], 2)
                    if one["fills_per_second"]
                    else None,
                },
                indent=2,
            )
        )
    finally:
        cluster.stop()
        s3.process.terminate()


if __name__ == "__main__":
    main()
