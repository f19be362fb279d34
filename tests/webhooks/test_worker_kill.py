"""Killing a real ``db_worker`` process (SIGKILL) in the middle of a batch of deliveries loses
nothing: after ``manage.py webhooks_recover`` (run where workers start) and a new worker, every
event written has been delivered; the attempt that was under way is delivered again (a duplicate,
counted, that receivers drop by ``webhook-id``)."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import transaction
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from accounts.models import Organization
from tests.core.test_tasks import shared_database_url  # noqa: F401 - a fixture used below
from tests.processes import started_processes, worker_environment
from tests.webhooks.conftest import Receiver
from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEvent
from webhooks.services import endpoint_url_set, event_emit, secrets_current

ROOT = Path(__file__).resolve().parents[2]
EVENTS = 40
HELD_REQUEST = 12  # the request the worker is killed in the middle of
LEASE_SECONDS = 3.0

pytestmark = pytest.mark.slow


def delivery_worker_environment(database_url: str, tmp_path: Path) -> dict[str, str]:
    return worker_environment(
        database_url,
        tmp_path,
        FETCH_ALLOW_NETWORKS="127.0.0.0/8",
        WEBHOOK_LEASE_SECONDS=str(LEASE_SECONDS),
        WEBHOOK_RETRY_DELAYS="0.2,0.5,1,1,1,1,1,1",
        # One delivery per task: the lease of one attempt (batches: test_delivery_batches.py).
        WEBHOOK_DELIVERY_BATCH="1",
    )


@pytest.fixture
def start_worker(tmp_path: Path) -> Iterator[Callable[[str, str], subprocess.Popen]]:
    with started_processes() as start_process:

        def start(database_url: str, worker_id: str) -> subprocess.Popen:
            command = ["db_worker", "--no-reload", "--no-startup-delay", "--interval", "0.05"]
            command += ["--worker-id", worker_id, "--queue-name", "webhooks"]
            environment = delivery_worker_environment(database_url, tmp_path)
            return start_process(command, environment, tmp_path / f"{worker_id}.log")

        yield start


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


def test_killing_the_worker_mid_batch_loses_no_event(
    shared_database_url: str,  # noqa: F811 - the fixture imported above
    start_worker: Callable[[str, str], subprocess.Popen],
    organization: Organization,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    settings: Any,
) -> None:
    settings.FETCH_ALLOW_NETWORKS = ["127.0.0.0/8"]  # here too: the URL is checked when set
    held, release = threading.Event(), threading.Event()

    def hold(count: int) -> None:
        if count == HELD_REQUEST:
            held.set()
            release.wait(30)

    receiver = Receiver(delay=0.02, hook=hold)
    receiver.start()
    try:
        endpoint_url_set(organization=organization, url=receiver.url)
        secret = secrets_current(organization=organization)[0].secret
        for n in range(EVENTS):
            with transaction.atomic():
                event_emit(organization=organization, action="signerUpdateStatus", data={"n": n})

        first = start_worker(shared_database_url, "worker-a")
        assert held.wait(60), (tmp_path / "worker-a.log").read_text()
        # The worker is inside the POST of request HELD_REQUEST: kill it there.
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        release.set()

        in_flight = WebhookDelivery.objects.filter(claimed_until__isnull=False)
        assert in_flight.count() == 1
        running = DBTaskResult.objects.filter(status=TaskResultStatus.RUNNING)
        assert running.count() == 1  # django-tasks-db leaves the killed task RUNNING
        delivered_before = WebhookDelivery.objects.filter(status="delivered").count()
        assert delivered_before == HELD_REQUEST - 1

        # Where workers start: recover once the lease of the dead worker's claim has run out.
        time.sleep(LEASE_SECONDS + 0.5)
        recover = subprocess.run(
            [sys.executable, "manage.py", "webhooks_recover"],
            cwd=ROOT,
            env=delivery_worker_environment(shared_database_url, tmp_path),
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        assert "abandoned attempts retried: 1," in recover.stdout
        assert "stuck task results failed: 1" in recover.stdout

        second = start_worker(shared_database_url, "worker-b")
        wait_for(
            lambda: not WebhookDelivery.objects.exclude(status="delivered").exists(),
            "every delivery to be delivered",
        )
        second.send_signal(signal.SIGTERM)
        second.wait(timeout=20)
    finally:
        release.set()
        receiver.stop()

    written = set(WebhookEvent.objects.values_list("eid", flat=True))
    received = Counter(r.headers["webhook-id"].removeprefix("msg_") for r in receiver.requests)
    duplicates = sum(received.values()) - len(received)
    with capsys.disabled():
        sys.stdout.write(
            f"\nkill test: events written {len(written)}, distinct delivered {len(received)}, "
            f"requests received {sum(received.values())}, duplicates {duplicates}\n"
        )
    assert len(written) == EVENTS
    assert set(received) == written  # nothing lost
    assert duplicates == 1  # the attempt under way when the worker died, sent again
    abandoned = WebhookAttempt.objects.get(outcome="abandoned")
    assert abandoned.delivery.status == "delivered"
    assert abandoned.delivery.attempt_count == 2
    assert DBTaskResult.objects.filter(status=TaskResultStatus.RUNNING).count() == 0
    # Every request that arrived is authentic.
    from standardwebhooks import Webhook

    for request in receiver.requests:
        Webhook(secret).verify(request.body, request.headers)
