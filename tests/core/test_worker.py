"""The outbox (enqueue_in_transaction), worker wake-ups, the sweep registry, and a real
``manage.py worker`` woken by an enqueue instead of its poll."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import transaction
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult
from pytest_django.fixtures import Settings

from accounts.models import User
from core import sweeps
from core.background import enqueue_in_transaction
from core.wakeup import waiter_for
from tests.core.test_tasks import (  # noqa: F401 - fixtures shared with the task tests
    queued,
    record_attempt,
    shared_database_url,
    wait_until,
)
from tests.processes import started_processes, worker_environment

ROOT = Path(__file__).resolve().parents[2]


# --- enqueue_in_transaction ---------------------------------------------------------------------


@pytest.mark.django_db
def test_enqueue_in_transaction_writes_the_task_row_in_the_callers_transaction(
    django_capture_on_commit_callbacks: Callable,
) -> None:
    with django_capture_on_commit_callbacks(execute=False) as callbacks, transaction.atomic():
        enqueue_in_transaction(record_attempt, path="/tmp/x")
        (result,) = queued()  # there before the commit: it commits with the transaction

    assert callbacks == []  # nothing is left for after the commit (in-memory SQLite: no wake-up)
    assert result.task_path == "tests.core.test_tasks.record_attempt"
    assert result.args_kwargs == {"args": [], "kwargs": {"path": "/tmp/x"}}
    assert result.status == TaskResultStatus.READY


@pytest.mark.django_db
def test_enqueue_in_transaction_rolls_back_with_the_transaction() -> None:
    with contextlib.suppress(RuntimeError), transaction.atomic():
        enqueue_in_transaction(record_attempt, path="/tmp/x")
        assert len(queued()) == 1
        raise RuntimeError("rolled back")

    assert queued() == []


@pytest.mark.django_db
def test_enqueue_in_transaction_refuses_a_model_instance_at_once() -> None:
    with pytest.raises(TypeError, match="Unsupported type"):
        enqueue_in_transaction(record_attempt, path=User(username="ada"))

    assert queued() == []


@pytest.mark.django_db
def test_enqueue_in_transaction_with_the_immediate_backend_runs_after_the_commit(
    settings: Settings, tmp_path: Path, django_capture_on_commit_callbacks: Callable
) -> None:
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    marker = tmp_path / "attempts.txt"

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        enqueue_in_transaction(record_attempt, path=str(marker), attempt=2)
        assert not marker.exists()  # not inside the transaction: after it

    assert len(callbacks) == 1
    assert marker.read_text() == "2\n"
    assert queued() == []


# --- wake-ups -------------------------------------------------------------------------------------


def test_a_committed_enqueue_wakes_a_listening_worker_and_a_rolled_back_one_does_not(
    shared_database_url: str,  # noqa: F811 - the fixture imported above
) -> None:
    waiter = waiter_for("default")
    try:
        assert type(waiter).__name__ in {"SocketListener", "PostgresListener"}
        waiter.wait(0)  # listening from here on
        with contextlib.suppress(RuntimeError), transaction.atomic():
            enqueue_in_transaction(record_attempt, path="/tmp/rolled-back")
            raise RuntimeError("rolled back")
        assert waiter.wait(0.3) is False

        with transaction.atomic():
            enqueue_in_transaction(record_attempt, path="/tmp/a")
            enqueue_in_transaction(record_attempt, path="/tmp/b")
            assert waiter.wait(0.2) is False  # not before the commit
        # True is the wake-up itself: a wait that ran out would say False (after 30 s, a bound
        # only a loaded machine comes near; the wake-up returns as soon as it arrives).
        assert waiter.wait(30) is True
        assert waiter.wait(0.2) is False  # the two wake-ups were answered by one
    finally:
        waiter.close()
    assert len(queued()) == 2


# --- the sweep registry ---------------------------------------------------------------------------


def test_every_app_sweep_is_registered_by_name() -> None:
    assert {"esign.seals", "webhooks.deliveries"} <= set(sweeps.sweeps_registered())


@pytest.mark.django_db
def test_sweeps_run_runs_each_sweep_and_survives_one_that_raises(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[datetime] = []

    def finds_two(*, now: datetime) -> int:
        seen.append(now)
        return 2

    def broken(*, now: datetime) -> int:
        raise RuntimeError("a bug in a sweep")

    registry = dict(sweeps.sweeps_registered())
    monkeypatch.setattr(sweeps, "_sweeps", registry)
    sweeps.sweep_register("tests.broken", broken)
    sweeps.sweep("tests.finds_two")(finds_two)

    done = sweeps.sweeps_run()

    assert done["tests.broken"] is None
    assert done["tests.finds_two"] == 2
    assert done["esign.seals"] == done["webhooks.deliveries"] == 0
    assert len(seen) == 1
    assert "Sweep tests.broken failed" in caplog.text


@pytest.mark.django_db
def test_the_sweep_command_prints_what_each_sweep_did(capsys: pytest.CaptureFixture) -> None:
    call_command("sweep")

    lines = capsys.readouterr().out.splitlines()
    assert lines == [f"{name}: 0" for name in sweeps.sweeps_registered()]
    assert {"esign.seals: 0", "webhooks.deliveries: 0"} <= set(lines)


# --- a real worker --------------------------------------------------------------------------------


@pytest.fixture
def start_task_worker(tmp_path: Path) -> Iterator[Callable[..., subprocess.Popen]]:
    """Start ``manage.py worker`` processes (log in ``tmp_path/<worker_id>.log``); any still
    running at the end are killed."""
    with started_processes() as start_process:

        def start(
            database_url: str,
            *,
            worker_id: str = "test-worker",
            arguments: tuple[str, ...] = (),
            **environment: str,
        ) -> subprocess.Popen:
            command = ["worker", "--no-reload", "--no-startup-delay", "--queue-name", "*"]
            command += ["--worker-id", worker_id, *arguments]
            environ = worker_environment(database_url, tmp_path, **environment)
            return start_process(command, environ, tmp_path / f"{worker_id}.log")

        yield start


@pytest.mark.slow
def test_the_worker_is_woken_by_an_enqueue_not_by_its_poll(
    shared_database_url: str,  # noqa: F811 - the fixture imported above
    start_task_worker: Callable[..., subprocess.Popen],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def successful() -> int:
        return DBTaskResult.objects.filter(status=TaskResultStatus.SUCCESSFUL).count()

    # A poll every 600 s and no sweep: only a wake-up runs a task well before then.
    worker = start_task_worker(shared_database_url, arguments=("--interval", "600"))
    worker_log = tmp_path / "test-worker.log"
    enqueue_in_transaction(record_attempt, path=str(tmp_path / "first"), attempt=2)
    wait_until(lambda: successful() == 1, worker=worker, log=worker_log)  # its first poll

    latencies = []
    for n in range(5):
        time.sleep(0.3)  # idle again, waiting
        started = time.monotonic()
        with transaction.atomic():
            enqueue_in_transaction(record_attempt, path=str(tmp_path / f"t{n}"), attempt=2)
        wait_until(lambda n=n: successful() == n + 2, worker=worker, log=worker_log)
        latencies.append(time.monotonic() - started)
    worker.send_signal(signal.SIGTERM)
    # An idle worker stops at its next look up from the wait (core.worker.STOP_CHECK_SECONDS),
    # its lane too, not at the end of its 600 s poll: that would pass this guard against a hang
    # (at load 15 a stop took longer than 10 s), which measures nothing else.
    assert worker.wait(timeout=120) == 0
    with capsys.disabled():
        sys.stdout.write(f"\nenqueue to done: {[round(s * 1000) for s in latencies]} ms\n")
    # Only a wake-up explains any of them under the 600 s poll: a bound far from both a wake-up
    # (well under a second quiet, seconds at load 20) and the poll.
    assert max(latencies) < 30, latencies
