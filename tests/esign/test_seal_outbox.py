"""Sealing survives dead processes: the seal task is written in the transaction that completes
the packet (an outbox), and the worker's sweep enqueues it again when a worker is killed with it.

Each test uses real processes on a database they share with this one (SQLite file or
PostgreSQL): a web-side process that dies (``os._exit``) just before or just after its commit,
and ``manage.py worker`` processes killed with SIGKILL. Counted at the end: the packet is sealed
exactly once (one ``packetSealed`` audit event), no task result is left running, and the only
extra task is the one a sweep enqueued for the attempt the kill interrupted."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from asn1crypto import tsp
from django.test import Client
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from core.background import enqueue_in_transaction
from core.sweeps import sweeps_run
from esign.models import Packet
from tests.core.test_tasks import (  # noqa: F401 - fixtures shared with the task tests
    record_attempt,
    shared_database_url,
)
from tests.core.test_worker import start_task_worker  # noqa: F401 - a fixture used below
from tests.esign.sealpki import SealTestPki, shared_pki
from tests.esign.test_seal_packets import zip_url

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
LEASE_SECONDS = 2.0
SWEEP_SECONDS = 0.5
# Worker settings for these tests: a short seal lease and frequent sweeps, so the bound is short.
# How long a test waits for a new worker to start and seal: a guard against a hang, not a
# measure (on two cores at load 10-13 a worker took 24-32 s to start; 30 s of margin failed).
# Every wait below is this guard, as in test_bulk_worker_kill (a worker's seal before the TSA,
# or a child's django.setup(), runs on a tenth of a core at load 20): what the tests check is the
# order of events, never their time.
START_AND_SEAL = 300
FAST_SWEEP = {"SEAL_LEASE_SECONDS": str(LEASE_SECONDS), "TASKS_SWEEP_SECONDS": str(SWEEP_SECONDS)}
SEAL_TASK = "esign.tasks.packet_seal_task"

# Run in a child process on the shared database: complete the packet and enqueue its seal in one
# transaction, then die just before the commit, or just after it (before anything registered to
# run after the commit: the old enqueue on commit was such a callback).
COMPLETE_AND_DIE = """
import os, sys
import django
django.setup()
from django.db import transaction
from django.utils import timezone
from esign.models import Packet
from esign.sealing.seal import packet_seal_enqueue

packet_id, when = int(sys.argv[1]), sys.argv[2]
with transaction.atomic():
    if when == "after-commit":
        transaction.on_commit(lambda: os._exit(9))
    Packet.objects.filter(pk=packet_id).update(status="completed", completed_at=timezone.now())
    packet_seal_enqueue(Packet.objects.get(pk=packet_id))
    if when == "before-commit":
        os._exit(9)
raise SystemExit("not reached")
"""


@pytest.fixture
def seal_environment(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Child processes read the files this process stored and seal with the same key."""
    monkeypatch.setenv("MEDIA_ROOT", str(settings.MEDIA_ROOT))
    monkeypatch.setenv("SEAL_DEV_DIR", str(settings.SEAL_DEV_DIR))


def seal_tasks() -> list[DBTaskResult]:
    return list(DBTaskResult.objects.filter(task_path=SEAL_TASK).order_by("enqueued_at"))


def sealed_events(packet: Packet) -> int:
    return packet.audit_events.filter(action="packetSealed").count()


def wait_for(condition: Callable[[], bool], what: str, timeout: float, logs: Path) -> float:
    """Seconds until ``condition`` held; fails with the workers' logs after ``timeout``."""
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > timeout:
            text = "\n".join(f"--- {p.name}\n{p.read_text()}" for p in sorted(logs.glob("*.log")))
            pytest.fail(f"timed out after {timeout} s waiting for {what}\n{text}")
        time.sleep(0.05)
    return time.monotonic() - started


def worker_ready(
    start: Callable[..., subprocess.Popen], url: str, tmp_path: Path, **kw: Any
) -> subprocess.Popen:
    """A worker started and in its loop (it has run a first, trivial task)."""
    worker = start(url, **kw)
    marker = tmp_path / f"ready-{kw.get('worker_id', 'test-worker')}"
    enqueue_in_transaction(record_attempt, path=str(marker), attempt=2)
    wait_for(marker.exists, "the worker to start", START_AND_SEAL, tmp_path)
    return worker


def kill(worker: subprocess.Popen) -> None:
    worker.send_signal(signal.SIGKILL)
    worker.wait(timeout=10)


def uncomplete(packet: Packet) -> None:
    """Back to just before the last signature's commit: not completed, no seal task."""
    DBTaskResult.objects.all().delete()
    Packet.objects.filter(pk=packet.pk).update(
        status=Packet.Status.PARTIAL, completed_at=None, seal_status=""
    )


def complete_and_die(packet: Packet, when: str, database_url: str) -> int:
    child = subprocess.run(
        [sys.executable, "-c", COMPLETE_AND_DIE, str(packet.pk), when],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": database_url, "TASKS_BACKEND": "database"},
        capture_output=True,
        text=True,
        timeout=START_AND_SEAL,
        check=False,
    )
    assert child.returncode == 9, child.stderr
    return child.returncode


def test_a_process_that_dies_before_its_commit_completes_nothing_and_enqueues_nothing(
    shared_database_url: str,  # noqa: F811 - the fixture imported above
    seal_environment: None,
    complete,  # noqa: F811
) -> None:
    _, packet = complete()
    uncomplete(packet)

    complete_and_die(packet, "before-commit", shared_database_url)

    packet.refresh_from_db()
    assert (packet.status, packet.completed_at, packet.seal_status) == ("partial", None, "")
    assert DBTaskResult.objects.count() == 0


def test_a_process_that_dies_right_after_its_commit_still_gets_the_packet_sealed(
    shared_database_url: str,  # noqa: F811
    seal_environment: None,
    complete,  # noqa: F811
    start_task_worker: Callable[..., subprocess.Popen],  # noqa: F811
    api_client: Client,
    tmp_path: Path,
) -> None:
    created, packet = complete()
    uncomplete(packet)

    complete_and_die(packet, "after-commit", shared_database_url)

    packet.refresh_from_db()
    assert (packet.status, packet.seal_status) == ("completed", "pending")
    (task,) = seal_tasks()  # committed with the packet
    assert (task.status, task.args_kwargs["kwargs"]) == ("READY", {"packet_id": packet.pk})
    start_task_worker(shared_database_url)
    wait_for(
        lambda: Packet.objects.get(pk=packet.pk).seal_status == "sealed",
        "the seal",
        START_AND_SEAL,
        tmp_path,
    )
    assert api_client.get(zip_url(created)).status_code == 200
    assert sealed_events(packet) == 1
    assert [t.status for t in seal_tasks()] == ["SUCCESSFUL"]


def test_killing_the_worker_right_after_the_last_signature_loses_nothing(
    shared_database_url: str,  # noqa: F811
    seal_environment: None,
    complete,  # noqa: F811
    start_task_worker: Callable[..., subprocess.Popen],  # noqa: F811
    api_client: Client,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    first = worker_ready(
        start_task_worker, shared_database_url, tmp_path, worker_id="a", **FAST_SWEEP
    )
    created, packet = complete()  # the last signature commits and wakes the worker ...
    kill(first)  # ... which is killed before, while or after it claims the seal
    before = [t.status for t in seal_tasks()]

    start_task_worker(shared_database_url, worker_id="b", **FAST_SWEEP)
    took = wait_for(
        lambda: Packet.objects.get(pk=packet.pk).seal_status == "sealed",
        "the seal",
        LEASE_SECONDS + SWEEP_SECONDS + START_AND_SEAL,
        tmp_path,
    )
    with capsys.disabled():
        sys.stdout.write(f"\nseal task when killed: {before}; sealed {took:.1f} s later\n")
    assert api_client.get(zip_url(created)).status_code == 200
    assert sealed_events(packet) == 1
    statuses = sorted(t.status for t in seal_tasks())
    # Killed while it ran: that result is marked failed and the sweep enqueued one more.
    assert statuses in (["SUCCESSFUL"], ["FAILED", "SUCCESSFUL"]), statuses
    assert (statuses == ["SUCCESSFUL"]) == (before != ["RUNNING"])


class HeldTsa:
    """A TSA (the shared test PKI's) that holds its first request until released."""

    def __init__(self, pki: SealTestPki) -> None:
        self.held, self.release = threading.Event(), threading.Event()
        self.requests = 0
        tsa = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                tsa.requests += 1
                if tsa.requests == 1:
                    tsa.held.set()
                    tsa.release.wait(START_AND_SEAL)
                reply = pki.timestamper.request_tsa_response(tsp.TimeStampReq.load(body)).dump()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.send_response(200)
                    self.send_header("Content-Type", "application/timestamp-reply")
                    self.send_header("Content-Length", str(len(reply)))
                    self.end_headers()
                    self.wfile.write(reply)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/tsa"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.release.set()
        self.server.shutdown()


@pytest.fixture
def held_tsa(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[HeldTsa]:
    pki = shared_pki()
    tsa = HeldTsa(pki)
    roots = Path(settings.SEAL_DEV_DIR).parent / "held-tsa-roots.pem"
    roots.write_bytes(pki.ca_pem)
    monkeypatch.setenv("SEAL_TSA_URLS", tsa.url)
    monkeypatch.setenv("SEAL_TRUST_ROOTS_FILE", str(roots))
    yield tsa
    tsa.stop()


def test_killing_the_worker_mid_seal_gets_the_packet_sealed_by_the_sweep(
    shared_database_url: str,  # noqa: F811
    seal_environment: None,
    held_tsa: HeldTsa,
    complete,  # noqa: F811
    start_task_worker: Callable[..., subprocess.Popen],  # noqa: F811
    api_client: Client,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    first = worker_ready(
        start_task_worker, shared_database_url, tmp_path, worker_id="a", **FAST_SWEEP
    )
    created, packet = complete()
    assert held_tsa.held.wait(START_AND_SEAL), (tmp_path / "a.log").read_text()
    kill(first)  # in the middle of the seal, waiting for the timestamp
    killed_at = time.monotonic()
    held_tsa.release.set()
    (lost,) = seal_tasks()
    assert lost.status == "RUNNING"  # django-tasks-db leaves it so for good

    start_task_worker(shared_database_url, worker_id="b", **FAST_SWEEP)
    wait_for(
        lambda: Packet.objects.get(pk=packet.pk).seal_status == "sealed",
        "the sweep to have the packet sealed",
        LEASE_SECONDS + SWEEP_SECONDS + START_AND_SEAL,
        tmp_path,
    )
    took = time.monotonic() - killed_at
    with capsys.disabled():
        sys.stdout.write(
            f"\nkilled mid-seal; sealed {took:.1f} s later (lease {LEASE_SECONDS} s)\n"
        )
    assert api_client.get(zip_url(created)).status_code == 200
    assert sealed_events(packet) == 1
    lost_task, again = seal_tasks()
    assert (lost_task.pk, lost_task.status) == (lost.pk, "FAILED")
    assert lost_task.exception_class_path == "core.sweeps.WorkerLost"
    assert again.status == "SUCCESSFUL"
    # Enqueued again once the lost attempt's lease ran out, not before.
    assert (again.enqueued_at - lost.started_at).total_seconds() >= LEASE_SECONDS
    assert again.args_kwargs["kwargs"] == {"packet_id": packet.pk, "attempt": 1}
    assert DBTaskResult.objects.filter(status=TaskResultStatus.RUNNING).count() == 0
    packet.refresh_from_db()
    assert (packet.seal_attempts, packet.seal_error) == (0, "")
    assert sweeps_run()["esign.seals"] == 0  # nothing more to sweep
