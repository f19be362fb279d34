"""The production server as docs/configuration.md runs it: gunicorn with gunicorn.conf.py, DEBUG
off, on loopback, against a fresh SQLite database. What only a real server shows: the access log,
gunicorn's own error answers, timeouts that agree with the caps, fills beside long generates."""

from __future__ import annotations

import http.client
import json
import os
import runpy
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import basic_auth
from tests.generate.conftest import SLOW_HTML
from tests.processes import ROOT, free_port, gunicorn, production_environment, run_setup

pytestmark = pytest.mark.slow

SETUP = """
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from accounts.services import api_key_create, organization_create
from templates_app.engine.demo import build_demo_template
from templates_app.services import template_create_with_spec
keys = []
for slug in ("acme", "globex"):
    organization = organization_create(slug=slug, name=slug)
    keys.append(api_key_create(organization=organization, kind="production")[1])
pdf, spec = build_demo_template()
template = template_create_with_spec(
    organization=organization, title="Demo", pdf=pdf, spec=spec, publish=True
)
print(keys[0], keys[1], template.eid)
"""


@dataclass
class Running:
    pid: int  # gunicorn's arbiter
    port: int
    acme_key: str
    globex_key: str
    template_eid: str
    stdout: Path
    stderr: Path

    def request(
        self, method: str, path: str, body: object = None, key: str | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        headers = {"Authorization": basic_auth(key)} if key else {}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    data = tmp_path_factory.mktemp("server")
    environment = production_environment(
        data,
        # Short caps, so that a document runs past them in a test's time.
        GENERATE_WALL_TIMEOUT_SECONDS="3",
        GENERATE_QUEUE_TIMEOUT_SECONDS="2",
        GENERATE_MAX_PAGES="5000",
        # One web process, so that a test can warm the process its fills meet (with two, a
        # request may land on the one that has never filled).
        WEB_CONCURRENCY="1",
    )
    printed = run_setup(SETUP, cwd=ROOT, environment=environment, timeout=180)
    acme_key, globex_key, eid = printed.split()[-3:]
    port = free_port()
    stdout, stderr = data / "stdout.log", data / "stderr.log"
    with gunicorn(
        cwd=ROOT, environment=environment, port=port, stdout=stdout, stderr=stderr
    ) as process:
        yield Running(process.pid, port, acme_key, globex_key, eid, stdout, stderr)


def test_the_shipped_configuration_agrees_with_the_caps(monkeypatch) -> None:
    monkeypatch.setenv("GENERATE_WALL_TIMEOUT_SECONDS", "60")
    monkeypatch.setenv("GENERATE_QUEUE_TIMEOUT_SECONDS", "30")
    monkeypatch.syspath_prepend(str(ROOT))
    sys.modules.pop("config.settings", None)
    try:
        config = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    finally:
        sys.modules.pop("config.settings", None)

    assert config["worker_class"] == "config.gunicorn_worker.JsonErrorThreadWorker"
    assert config["threads"] > 1
    assert config["timeout"] > 60 + 30
    assert config["graceful_timeout"] >= config["timeout"]
    assert "%(u)s" not in config["access_log_format"]
    assert "%(r)s" not in config["access_log_format"]  # the request line carries the query


def test_the_access_log_names_no_credentials(server: Running) -> None:
    status, _, _ = server.request("POST", "/api/v1/fill/nothing.pdf?token=abc", {}, server.acme_key)
    server.request("GET", "/healthz", key=server.acme_key)
    time.sleep(0.5)  # the access log is written after the response

    log = server.stdout.read_text() + server.stderr.read_text()
    [line] = [line for line in log.splitlines() if "/api/v1/fill/nothing.pdf" in line]
    assert status == 404
    assert '"POST /api/v1/fill/nothing.pdf HTTP/1.1" 404' in line
    assert server.acme_key not in log
    assert server.acme_key[:10] not in log
    assert "token=abc" not in log


def test_an_over_long_request_line_is_a_json_414(server: Running) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"GET /api/v1/" + b"a" * 9000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk

    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 414 ")
    assert b"Content-Type: application/json" in head
    assert json.loads(body) == {
        "name": "RequestTooLarge",
        "message": "The request line (method, path and query) is too long.",
    }


def test_a_document_over_the_time_cap_is_a_json_422(server: Running) -> None:
    # Not timed: only the 3 s cap answers this message (20,000 rows take far longer to lay out).
    status, headers, body = server.request(
        "POST", "/api/v1/generate-pdf", SLOW_HTML, server.acme_key
    )

    assert status == 422, body[:300]
    assert headers["Content-Type"] == "application/json"
    assert json.loads(body) == {
        "name": "UnprocessableDocumentError",
        "message": "The document took longer than 3 seconds to render and was stopped.",
    }


def test_fills_are_answered_while_long_generates_run(server: Running) -> None:
    generates: list[tuple[int, float]] = []  # each generate's status and when it ended
    # A process's first fill loads the fill engine and reads the template: on a busy machine
    # that took longer than a render's whole 3 s cap, which is not what this test is about.
    # Fill once before the renders start, so the fills below measure waiting, not warming.
    status, _, body = server.request(
        "POST",
        f"/api/v1/fill/{server.template_eid}.pdf",
        {"data": {"title": "x"}},
        server.globex_key,
    )
    assert status == 200, body[:300]

    def generate(key: str) -> None:
        status, _, _ = server.request("POST", "/api/v1/generate-pdf", SLOW_HTML, key)
        generates.append((status, time.monotonic()))

    threads = [
        threading.Thread(target=generate, args=(key,))
        for key in (server.acme_key, server.globex_key, server.acme_key)
    ]
    for thread in threads:
        thread.start()
    time.sleep(0.8)

    fill_ends = []
    for _ in range(5):
        status, _, body = server.request(
            "POST",
            f"/api/v1/fill/{server.template_eid}.pdf",
            {"data": {"title": "x"}},
            server.globex_key,
        )
        fill_ends.append(time.monotonic())
        assert status == 200, body[:300]
    for thread in threads:
        thread.join()

    # Fills do not wait for the renders: they are answered while the long generates still run
    # (each takes its whole 3 s wall cap). An order, not a time limit: under load every request
    # is slower, but a fill queued behind the renders would end after them.
    renders_ended = sorted(end for status, end in generates if status == 422)
    assert len(renders_ended) >= 2, generates
    assert fill_ends[0] < renders_ended[0]
    assert sorted(status for status, _ in generates) in ([422, 422, 422], [422, 422, 503])


def test_a_server_process_that_crashes_leaves_every_threads_stack_in_the_log(
    server: Running,
) -> None:
    # A crash in native code (pdfium, a font library...) killed a process of the 1,000-packet
    # burst and the log said only "was sent SIGSEGV". The signal is sent here as the kernel sends
    # it on a bad access; faulthandler cannot tell the two apart.
    children = Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
    (worker,) = [int(pid) for pid in children]  # WEB_CONCURRENCY=1
    os.kill(worker, signal.SIGSEGV)

    deadline = time.monotonic() + 60
    while "was sent SIGSEGV" not in server.stderr.read_text():
        assert time.monotonic() < deadline, server.stderr.read_text()[-2000:]
        time.sleep(0.2)
    log = server.stderr.read_text()
    assert "Fatal Python error: Segmentation fault" in log
    assert "most recent call first" in log  # a Python stack, per thread
    # The arbiter starts a process in its place, which answers.
    while True:
        try:
            if server.request("GET", "/healthz")[0] == 200:
                break
        except OSError:
            pass
        assert time.monotonic() < deadline, "no process answered after the crash"
        time.sleep(0.2)
