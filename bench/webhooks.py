"""Webhook deliveries per second to a local receiver with 1 and 4 workers, and the delay from an
event to its first delivery attempt and to its arrival at the receiver.

    python bench/webhooks.py [--events 300] [--trickle 40] [--interval 1.0] [--database-url URL]
                             [--workers 1,4] [--commands db_worker,worker]

For each worker command (``db_worker``: django-tasks-db's, polling every ``--interval`` seconds,
as the run command used to start it; ``worker``: this project's, woken when a task is enqueued,
as the run command starts it now) and worker count: start that many ``manage.py <command>
--queue-name webhooks`` processes, then (1) a burst: emit ``--events`` events in one transaction
and time until the receiver has them all (deliveries/s; the event-to-first-attempt delay here is
mostly waiting in the queue), and (2) a trickle: emit ``--trickle`` events one by one, 0.1 s
apart, to idle workers (the delay here is the wait for the worker, a poll or a wake-up, plus one
claim). Loopback only: the receiver is an http.server on 127.0.0.1 answering 200 at
once. A temporary SQLite database unless ``--database-url`` names an empty PostgreSQL database.
Every phase has a deadline, so the run is bounded (a few minutes at most).
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._server import prepare_environment  # noqa: E402

PHASE_DEADLINE_SECONDS = 120.0


class Receiver:
    def __init__(self) -> None:
        self.count = 0
        self.arrived: dict[str, float] = {}  # webhook-id: time.time() of its first arrival
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver.lock:
                    receiver.count += 1
                    receiver.arrived.setdefault(self.headers["webhook-id"], time.time())
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def start_worker(arguments: list[str], log: Path) -> subprocess.Popen:
    """``manage.py`` with ``arguments`` (a task worker), in this process's environment, its
    output to ``log`` (bench/burst.py starts its workers with this too)."""
    out = log.open("w")
    command = [sys.executable, "manage.py", *arguments]
    return subprocess.Popen(command, cwd=ROOT, env=os.environ.copy(), stdout=out, stderr=out)


def start_workers(
    command_name: str, count: int, interval: float, data_dir: Path
) -> list[subprocess.Popen]:
    workers = []
    for n in range(count):
        command = [
            command_name,
            "--queue-name",
            "webhooks",
            "--no-reload",
            "--worker-id",
            f"bench-{n}",
        ]
        if command_name == "db_worker":
            command += ["--interval", str(interval)]
        workers.append(start_worker(command, data_dir / f"worker-{command_name}-{n}.log"))
    time.sleep(4)  # Django set up in each (the first attempt's delay should not include that)
    return workers


def stop_workers(workers: list[subprocess.Popen], timeout: float = 20) -> None:
    """SIGTERM to every worker (each finishes its task), then wait ``timeout`` seconds for each
    before killing it."""
    for worker in workers:
        worker.send_signal(signal.SIGTERM)
    for worker in workers:
        try:
            worker.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            worker.kill()


def wait_for(receiver: Receiver, total: int) -> bool:
    deadline = time.monotonic() + PHASE_DEADLINE_SECONDS
    while receiver.count < total:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def first_attempt_delays(event_ids: list[int]) -> list[float]:
    from webhooks.models import WebhookAttempt

    rows = WebhookAttempt.objects.filter(number=1, delivery__event_id__in=event_ids).values_list(
        "started_at", "delivery__event__created_at"
    )
    return [(started - created).total_seconds() for started, created in rows]


def arrival_delays(receiver: Receiver, event_ids: list[int]) -> list[float]:
    from webhooks.models import WebhookEvent

    delays = []
    for event in WebhookEvent.objects.filter(pk__in=event_ids):
        arrived = receiver.arrived.get(f"msg_{event.eid}")
        if arrived is not None:
            delays.append(arrived - event.created_at.timestamp())
    return delays


def describe(delays: list[float]) -> str:
    if not delays:
        return "no attempts"
    ordered = sorted(delays)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"median {statistics.median(ordered) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms"


def delivering_setup(database_url: str | None, prefix: str) -> tuple[Path, Receiver, Any]:
    """Django on a fresh data directory whose tasks go through the database (so workers started
    apart run them) and whose webhooks may go to loopback, a receiver there, and an organization
    whose webhook URL is the receiver's: what bench/burst.py shares with this bench."""
    data_dir = prepare_environment(
        database_url,
        prefix=prefix,
        TASKS_BACKEND="database",
        FETCH_ALLOW_NETWORKS="127.0.0.0/8",
    )
    from accounts.services import organization_create
    from webhooks.services import endpoint_url_set

    receiver = Receiver()
    organization = organization_create(slug="bench", name="Bench")
    endpoint_url_set(organization=organization, url=receiver.url)
    return data_dir, receiver, organization


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=300)
    parser.add_argument("--trickle", type=int, default=40)
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--workers", default="1,4")
    parser.add_argument("--commands", default="db_worker,worker")
    args = parser.parse_args()

    data_dir, receiver, organization = delivering_setup(args.database_url, "bench-webhooks-")
    from django.db import connection, transaction

    from webhooks.services import event_emit

    print(
        f"database: {connection.vendor}; receiver {receiver.url}; "
        f"db_worker --interval {args.interval}; worker with its defaults"
    )

    runs = [(c, int(n)) for c in args.commands.split(",") for n in args.workers.split(",")]
    for command_name, count in runs:
        workers = start_workers(command_name, count, args.interval, data_dir)
        label = f"{count} {command_name}(s)"
        try:
            # Burst: every event committed at once, then delivered as fast as the workers go.
            receiver.count = 0
            started = time.monotonic()
            with transaction.atomic():
                burst = [
                    event_emit(
                        organization=organization, action="signerUpdateStatus", data={"n": n}
                    ).pk
                    for n in range(args.events)
                ]
            complete = wait_for(receiver, args.events)
            elapsed = time.monotonic() - started
            rate = receiver.count / elapsed
            note = "" if complete else f" (deadline hit: {receiver.count}/{args.events})"
            print(
                f"{label}: burst of {args.events}: {rate:.1f} deliveries/s "
                f"({elapsed:.2f} s){note}; event to first attempt "
                f"{describe(first_attempt_delays(burst))}"
            )
            # Trickle: idle workers, one event at a time.
            receiver.count = 0
            trickle = []
            for n in range(args.trickle):
                trickle.append(
                    event_emit(organization=organization, action="webhookTest", data={"n": n}).pk
                )
                time.sleep(0.1)
            wait_for(receiver, args.trickle)
            print(
                f"{label}: trickle of {args.trickle} (0.1 s apart): event to first attempt "
                f"{describe(first_attempt_delays(trickle))}; to its arrival "
                f"{describe(arrival_delays(receiver, trickle))}"
            )
        finally:
            stop_workers(workers)
    receiver.server.shutdown()


if __name__ == "__main__":
    main()
