"""A worker serving the webhooks queue beside others takes deliveries in a lane of its own
(core.worker, issue 52, item 3): while its main loop is held by a long task (a seal), a task of
the webhooks queue enqueued after it runs at once, in the same process. Checked by what ran
while the long task was still running, never by timing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from django_tasks import TaskResultStatus, task
from django_tasks_db.models import DBTaskResult

from core.background import enqueue_in_transaction
from tests.core.test_tasks import shared_database_url, wait_until  # noqa: F401 - a fixture
from tests.core.test_worker import start_task_worker  # noqa: F401 - a fixture

HOLD_SECONDS = 120.0  # the most a held task waits for its release (a guard, not a measure)


@task()
def hold(*, started: str, release: str) -> str:
    """Mark ``started``, then wait until ``release`` exists (the main loop is busy meanwhile)."""
    Path(started).write_text(json.dumps({"thread": threading.current_thread().name}))
    deadline = time.monotonic() + HOLD_SECONDS
    while not Path(release).exists() and time.monotonic() < deadline:
        time.sleep(0.02)  # polling for the test's release, not waiting for time
    return "released"


@task(queue_name="webhooks")
def note(*, path: str) -> str:
    """Write which process and thread ran it."""
    where = {"pid": os.getpid(), "thread": threading.current_thread().name}
    Path(path).write_text(json.dumps(where))
    return "noted"


@pytest.mark.slow
def test_a_delivery_runs_in_the_lane_while_the_main_loop_holds_a_long_task(
    shared_database_url: str,  # noqa: F811 - the fixture imported above
    start_task_worker: Callable[..., subprocess.Popen],  # noqa: F811
    tmp_path: Path,
) -> None:
    worker = start_task_worker(
        shared_database_url, worker_id="lanes", arguments=("--interval", "1")
    )
    log = tmp_path / "lanes.log"
    started, release, noted = tmp_path / "started", tmp_path / "release", tmp_path / "noted"
    enqueue_in_transaction(hold, started=str(started), release=str(release))
    wait_until(started.exists, worker=worker, log=log)

    enqueue_in_transaction(note, path=str(noted))
    wait_until(noted.exists, worker=worker, log=log)

    # The long task still holds the main loop: the delivery went by the lane, in that process.
    assert not release.exists()
    assert DBTaskResult.objects.get(task_path__endswith=".hold").status == TaskResultStatus.RUNNING
    ran = json.loads(noted.read_text())
    assert ran == {"pid": worker.pid, "thread": "lanes-lane"}
    assert json.loads(started.read_text())["thread"] != "lanes-lane"
    assert DBTaskResult.objects.get(task_path__endswith=".note").worker_ids == ["lanes-lane"]

    release.touch()
    wait_until(
        lambda: (
            DBTaskResult.objects.get(task_path__endswith=".hold").status
            == TaskResultStatus.SUCCESSFUL
        ),
        worker=worker,
        log=log,
    )
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(timeout=120) == 0  # a graceful stop ends the lane too
