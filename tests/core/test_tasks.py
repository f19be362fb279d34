"""Background tasks: enqueueing on commit, retries at given delays, and a real db_worker process."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db import connections, transaction
from django_tasks import TaskResultStatus, task
from django_tasks_db.models import DBTaskResult
from pytest_django.fixtures import Settings

from accounts.models import User
from core.background import RETRY_DELAYS, enqueue_on_commit, retry_later
from tests.processes import run_with_settings, started_processes, worker_environment

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
# A guard against a worker that never runs the task, not a measure: a fresh worker process at
# load 8 was still starting after 30 s (Django, the apps and pikepdf imported on a busy machine).
WORKER_TIMEOUT_SECONDS = 300.0


@task()
def record_attempt(*, path: str, attempt: int = 1) -> int:
    """Append the attempt's number to the file at ``path``; the first attempt asks for a retry.

    Runs in the worker process in the worker test, so it lives at module level where the worker
    can import it (``tests.core.test_tasks``). Returns the process id it ran in.
    """
    with Path(path).open("a") as file:
        file.write(f"{attempt}\n")
    if attempt == 1:
        retry_later(record_attempt, kwargs={"path": path}, attempt=attempt, delays=(0.5,))
    return os.getpid()


def middle(low: float, high: float) -> float:
    """A ``uniform`` without randomness: the exact delay, neither stretched nor shortened."""
    return (low + high) / 2


def queued() -> list[DBTaskResult]:
    return list(DBTaskResult.objects.order_by("enqueued_at"))


# --- enqueue_on_commit ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_enqueue_on_commit_enqueues_when_the_transaction_commits(
    django_capture_on_commit_callbacks: Callable,
) -> None:
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        enqueue_on_commit(record_attempt, path="/tmp/x")
        assert queued() == []

    assert len(callbacks) == 1
    (result,) = queued()
    assert result.task_path == "tests.core.test_tasks.record_attempt"
    assert result.args_kwargs == {"args": [], "kwargs": {"path": "/tmp/x"}}
    assert result.status == TaskResultStatus.READY
    assert result.queue_name == "default"


@pytest.mark.django_db
def test_enqueue_on_commit_enqueues_nothing_when_the_transaction_rolls_back(
    django_capture_on_commit_callbacks: Callable,
) -> None:
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        contextlib.suppress(RuntimeError),
        transaction.atomic(),
    ):
        enqueue_on_commit(record_attempt, path="/tmp/x")
        raise RuntimeError("rolled back")

    assert callbacks == []
    assert queued() == []


@pytest.mark.django_db
def test_enqueue_on_commit_refuses_a_model_instance_at_once(
    django_capture_on_commit_callbacks: Callable,
) -> None:
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(TypeError, match="Unsupported type"),
    ):
        enqueue_on_commit(record_attempt, path=User(username="ada"))

    assert callbacks == []
    assert queued() == []


# --- retry_later ----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_retry_later_uses_the_delays_in_order_then_gives_up(
    django_capture_on_commit_callbacks: Callable,
) -> None:
    delays = (0, 5, 60)
    with django_capture_on_commit_callbacks(execute=True):
        due = [
            retry_later(
                record_attempt,
                kwargs={"path": "/tmp/x"},
                attempt=attempt,
                delays=delays,
                now=NOW,
                uniform=middle,
            )
            for attempt in (1, 2, 3, 4)
        ]

    expected = [NOW, NOW + timedelta(seconds=5), NOW + timedelta(seconds=60)]
    assert due == [*expected, None]
    results = queued()
    assert [r.run_after for r in results] == expected
    assert [r.args_kwargs["kwargs"] for r in results] == [
        {"path": "/tmp/x", "attempt": 2},
        {"path": "/tmp/x", "attempt": 3},
        {"path": "/tmp/x", "attempt": 4},
    ]


@pytest.mark.django_db
def test_retry_later_gives_up_after_the_last_delay_without_enqueueing(
    django_capture_on_commit_callbacks: Callable,
) -> None:
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        due = retry_later(
            record_attempt, kwargs={"path": "/tmp/x"}, attempt=len(RETRY_DELAYS) + 1, now=NOW
        )

    assert due is None
    assert callbacks == []
    assert queued() == []


@pytest.mark.parametrize(
    ("uniform", "seconds"),
    [
        (lambda low, high: low, 54.0),
        (middle, 60.0),
        (lambda low, high: high, 66.0),
    ],
    ids=["shortest", "exact", "longest"],
)
@pytest.mark.django_db
def test_retry_later_jitter_stretches_or_shortens_the_delay_by_at_most_the_fraction(
    uniform: Callable[[float, float], float], seconds: float
) -> None:
    due = retry_later(
        record_attempt,
        kwargs={"path": "/tmp/x"},
        attempt=1,
        delays=(60,),
        jitter=0.1,
        now=NOW,
        uniform=uniform,
    )

    assert due == NOW + timedelta(seconds=seconds)


@pytest.mark.django_db
def test_retry_later_random_jitter_stays_within_its_bounds() -> None:
    due = {
        retry_later(record_attempt, kwargs={"path": "/tmp/x"}, attempt=1, delays=(60,), now=NOW)
        for _ in range(200)
    }

    assert all(NOW + timedelta(seconds=54) <= d <= NOW + timedelta(seconds=66) for d in due)
    assert len(due) > 100  # really random, not one fixed delay


@pytest.mark.django_db
def test_retry_later_is_enqueued_in_the_transaction_and_rolls_back_with_it(
    django_capture_on_commit_callbacks: Callable,
) -> None:
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with contextlib.suppress(RuntimeError), transaction.atomic():
            retry_later(record_attempt, kwargs={"path": "/tmp/rolled-back"}, attempt=1, now=NOW)
            raise RuntimeError("rolled back")
        retry_later(record_attempt, kwargs={"path": "/tmp/committed"}, attempt=1, now=NOW)
        (result,) = queued()  # written at once, in the transaction

    assert callbacks == []  # nothing waits for the commit (no wake-up: an in-memory database)
    assert result.args_kwargs["kwargs"] == {"path": "/tmp/committed", "attempt": 2}


@pytest.mark.parametrize(("attempt", "jitter"), [(0, 0.1), (1, -0.1), (1, 1.0)])
@pytest.mark.django_db
def test_retry_later_refuses_a_bad_attempt_or_jitter(attempt: int, jitter: float) -> None:
    with pytest.raises(ValueError, match="attempt|jitter"):
        retry_later(record_attempt, kwargs={"path": "/tmp/x"}, attempt=attempt, jitter=jitter)

    assert queued() == []


@pytest.mark.django_db
def test_retry_later_with_the_immediate_backend_runs_the_retry_at_once(
    settings: Settings,
    tmp_path: Path,
    django_capture_on_commit_callbacks: Callable,
) -> None:
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    marker = tmp_path / "attempts.txt"

    with django_capture_on_commit_callbacks(execute=True):
        due = retry_later(record_attempt, kwargs={"path": str(marker)}, attempt=1, now=NOW)

    assert due is not None
    assert marker.read_text() == "2\n"


# --- settings -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "backend"),
    [
        (None, "django_tasks_db.DatabaseBackend"),
        ("immediate", "django_tasks.backends.immediate.ImmediateBackend"),
    ],
)
def test_tasks_backend_setting_chooses_the_backend(
    tmp_path: Path, value: str | None, backend: str
) -> None:
    result = load_settings(tmp_path, tasks_backend=value)

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == backend


def test_tasks_backend_setting_refuses_an_unknown_backend(tmp_path: Path) -> None:
    result = load_settings(tmp_path, tasks_backend="redis")

    assert result.returncode != 0
    assert "TASKS_BACKEND must be one of database, immediate (got 'redis')" in result.stderr


def load_settings(tmp_path: Path, *, tasks_backend: str | None) -> subprocess.CompletedProcess:
    code = "from django.conf import settings; print(settings.TASKS['default']['BACKEND'])"
    env = {} if tasks_backend is None else {"TASKS_BACKEND": tasks_backend}
    return run_with_settings(tmp_path, code, unset=("TASKS_BACKEND",), check=False, **env)


# --- a real worker process ------------------------------------------------------------------------


@pytest.fixture
def shared_database_url(transactional_db: None, tmp_path: Path) -> Iterator[str]:
    """A DATABASE_URL through which another process sees this test's database.

    On PostgreSQL that is the test database itself. On SQLite the test database lives in this
    process's memory, which no other process can open: it is copied to a file, and this process
    uses the file too until the test ends (the in-memory database is left as it was).
    """
    connection = connections["default"]
    params = connection.settings_dict
    if connection.vendor == "postgresql":
        credentials = quote(params["USER"] or "", safe="")
        if params["PASSWORD"]:
            credentials += ":" + quote(params["PASSWORD"], safe="")
        host = f"{params['HOST'] or 'localhost'}:{params['PORT'] or 5432}"
        yield f"postgres://{credentials}@{host}/{quote(params['NAME'], safe='')}"
        return
    assert connection.vendor == "sqlite", connection.vendor
    path = tmp_path / "shared.sqlite3"
    connection.ensure_connection()
    with contextlib.closing(sqlite3.connect(path)) as copy:
        connection.connection.backup(copy)
    file_connection = type(connection)({**params, "NAME": str(path)}, alias="default")
    connections["default"] = file_connection
    try:
        yield f"sqlite:///{path}"
    finally:
        file_connection.close()
        connections["default"] = connection


@pytest.fixture
def start_worker(tmp_path: Path) -> Iterator[Callable[[str], subprocess.Popen]]:
    """Start ``manage.py db_worker`` processes on a database URL; any still running are killed."""
    with started_processes() as start_process:

        def start(database_url: str) -> subprocess.Popen:
            command = ["db_worker", "--no-reload", "--no-startup-delay", "--interval", "0.1"]
            command += ["--worker-id", "test-worker"]
            environment = worker_environment(database_url, tmp_path)
            return start_process(command, environment, tmp_path / "worker.log")

        yield start


def wait_until(condition: Callable[[], bool], *, worker: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + WORKER_TIMEOUT_SECONDS
    while not condition():
        if worker.poll() is not None:
            pytest.fail(f"the worker exited with {worker.returncode}:\n{log.read_text()}")
        if time.monotonic() > deadline:
            pytest.fail(
                f"no result after {WORKER_TIMEOUT_SECONDS} s; worker log:\n{log.read_text()}"
            )
        time.sleep(0.1)


@pytest.mark.slow
def test_a_worker_process_runs_an_enqueued_task_and_its_retry(
    shared_database_url: str, start_worker: Callable[[str], subprocess.Popen], tmp_path: Path
) -> None:
    marker = tmp_path / "attempts.txt"
    with transaction.atomic():
        enqueue_on_commit(record_attempt, path=str(marker))
    assert [r.status for r in queued()] == [TaskResultStatus.READY]

    worker = start_worker(shared_database_url)
    wait_until(
        lambda: DBTaskResult.objects.filter(status=TaskResultStatus.SUCCESSFUL).count() == 2,
        worker=worker,
        log=tmp_path / "worker.log",
    )
    worker.send_signal(signal.SIGTERM)
    # A graceful stop ends the task in hand first; the wait guards against a hang (at load
    # 15 a stop took longer than 10 s), it measures nothing.
    assert worker.wait(timeout=120) == 0

    first, retry = (record_attempt.get_result(str(r.id)) for r in queued())
    assert first.status == retry.status == TaskResultStatus.SUCCESSFUL
    assert first.return_value == retry.return_value == worker.pid
    assert first.worker_ids == retry.worker_ids == ["test-worker"]
    assert first.kwargs == {"path": str(marker)}
    assert retry.kwargs == {"path": str(marker), "attempt": 2}
    assert retry.started_at >= retry.task.run_after >= first.started_at + timedelta(seconds=0.45)
    assert marker.read_text() == "1\n2\n"
