"""A local webhook receiver on 127.0.0.1, tasks run in the test's own process, and helpers."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django_tasks_db.models import DBTaskResult
from pytest_django.fixtures import Settings

from accounts.models import Organization
from webhooks.services import endpoint_url_set

# Short delays so retries run within a test; the production schedule is tested on its own.
TEST_DELAYS = [0.2, 0.2, 0.3, 0.3, 0.5, 0.5, 0.5, 0.5]


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    path: str

    @property
    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Receiver:
    """Records every POST; answers with the statuses queued in ``answers`` (then 200)."""

    port: int = 0
    requests: list[Received] = field(default_factory=list)
    answers: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    delay: float = 0.0
    # Called with the number of requests received so far, before answering (e.g. to hold one).
    hook: Callable[[int], None] | None = None
    server: ThreadingHTTPServer | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def start(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                if receiver.delay:
                    time.sleep(receiver.delay)
                with receiver.lock:
                    receiver.requests.append(
                        Received({k.lower(): v for k, v in self.headers.items()}, body, self.path)
                    )
                    status, headers = receiver.answers.pop(0) if receiver.answers else (200, {})
                    count = len(receiver.requests)
                if receiver.hook is not None:
                    receiver.hook(count)
                payload = b'{"ok": true}' if status < 300 else b"receiver says no"
                # The sender may be gone (a worker killed mid-request): nobody to answer then.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None


@pytest.fixture
def receiver(settings: Settings) -> Iterator[Receiver]:
    settings.FETCH_ALLOW_NETWORKS = ["127.0.0.0/8"]
    settings.WEBHOOK_RETRY_DELAYS = TEST_DELAYS
    receiver = Receiver()
    receiver.start()
    yield receiver
    receiver.stop()


@pytest.fixture
def endpoint_org(organization: Organization, receiver: Receiver) -> Organization:
    """The organization with the receiver as its webhook URL."""
    endpoint_url_set(organization=organization, url=receiver.url)
    return organization


def _due(result: DBTaskResult) -> datetime:
    return result.run_after if result.run_after.year < 9999 else result.enqueued_at


def run_tasks(until: Callable[[], bool], *, timeout: float = 20.0) -> None:
    """Run due tasks in this process, as a worker would, until ``until()`` or the timeout."""
    deadline = time.monotonic() + timeout
    while not until():
        if time.monotonic() > deadline:
            pytest.fail("the tasks did not get there in time")
        # The one due first, as a worker takes them. django-tasks-db writes "no run_after" as the
        # year 9999, so ordering by run_after put a task due later (a paced replay) before one
        # due at once as soon as both were ready, which a busy machine reached.
        result = min(DBTaskResult.objects.ready(), key=_due, default=None)
        if result is None:
            time.sleep(0.02)
            continue
        result.claim("test-worker")
        try:
            value = result.task.call(*result.task_result.args, **result.task_result.kwargs)
        except Exception as error:
            result.set_failed(error)
            raise
        result.set_successful(value)
