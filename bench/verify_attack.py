"""The /verify attack of the security report (item 2), against a real server. Run from the
repository root:

    .venv/bin/python bench/verify_attack.py

Builds the report's file (about 24 MB, one signature whose /Contents holds 12 MB of hexadecimal
digits: tests/esign/hostile_pdf.py), starts gunicorn (one process, gunicorn.conf.py) on loopback
against a temporary SQLite database, and sends it to ``POST /api/v1/verify`` (production key)
and twice to the public page ``/verify`` (with its CSRF token). For each it prints the status,
the answer's message, the seconds, and the peak resident memory of the web process (gunicorn's
worker) and of any verify worker, sampled every 10 ms.

Then the same against a second server whose structural limits are off
(``VERIFY_MAX_SIGNATURE_CONTENTS_BYTES`` 100 MB), so the file reaches a verify worker: its
memory limit (``VERIFY_WORKER_MEMORY_MB``) or deadline stops it, and the web process stays
small. A normal sealed-size file is verified last, through the worker, for comparison.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import re
import sys
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._server import Server, _children, prepare_environment  # noqa: E402

MB = 1_048_576


def _children_of_every_thread(pid: int) -> list[int]:
    """Children started by any thread of ``pid`` (a server thread starts a verify worker)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def _status_kb(pid: int, field: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class Peaks:
    """Peak resident memory of the web process and of its verify workers while running."""

    def __init__(self, server: Server) -> None:
        (self.web,) = _children(server.process.pid)  # gunicorn's one worker
        self.web_before = _status_kb(self.web, "VmRSS")
        self.web_peak = self.web_before
        self.worker_peak = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._done.wait(0.01):
            self.web_peak = max(self.web_peak, _status_kb(self.web, "VmRSS"))
            for pid in _children_of_every_thread(self.web):
                self.worker_peak = max(self.worker_peak, _status_kb(pid, "VmHWM"))

    def __enter__(self) -> Peaks:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()


def multipart(data: bytes, fields: dict[str, str]) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in fields.items()
    ]
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="attack.pdf"\r\n'
        "Content-Type: application/pdf\r\n\r\n".encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def send(
    server: Server, path: str, data: bytes, headers: dict[str, str], fields: dict[str, str]
) -> tuple[int, str, float, Peaks]:
    body, content_type = multipart(data, fields)
    with Peaks(server) as peaks:
        started = time.monotonic()
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=300)
        try:
            connection.request("POST", path, body, {**headers, "Content-Type": content_type})
            response = connection.getresponse()
            status, answer = response.status, response.read()
        finally:
            connection.close()
        seconds = time.monotonic() - started
    return status, message_of(answer), seconds, peaks


def message_of(answer: bytes) -> str:
    try:
        body = json.loads(answer)
    except ValueError:
        found = re.search(rb'id="verify-error">(.*?)</div>', answer, re.S)
        if found:
            text = re.sub(rb"<[^>]+>", b"", found.group(1)).decode().replace("&#x27;", "'")
            return " ".join(text.split())
        return f"(page, {len(answer)} bytes)"
    if "fields" in body:
        return body["fields"][0]["message"]
    return body.get("message") or json.dumps(body)[:100]


def csrf(server: Server) -> tuple[str, str]:
    """The page's CSRF cookie and form token."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.request("GET", "/verify")
        response = connection.getresponse()
        page = response.read()
        cookie = response.getheader("Set-Cookie", "").split(";")[0]
    finally:
        connection.close()
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert token, "no CSRF token on /verify"
    return cookie, token.group(1).decode()


def run(label: str, attack: bytes, normal: bytes, auth: dict[str, str]) -> None:
    server = Server()
    try:
        server.request("GET", "/verify")  # the web process warm, as after its first request
        print(f"\n{label}")
        print(
            f"{'endpoint':<22}{'status':>7}{'seconds':>9}{'web RSS before':>16}"
            f"{'web peak':>10}{'worker peak':>13}  answer"
        )
        cookie, token = csrf(server)
        page_headers = {"Cookie": cookie, "Referer": f"http://127.0.0.1:{server.port}/verify"}
        cases = [
            ("POST /api/v1/verify", "/api/v1/verify", attack, auth, {}),
            ("/verify (page) 1", "/verify", attack, page_headers, {"csrfmiddlewaretoken": token}),
            ("/verify (page) 2", "/verify", attack, page_headers, {"csrfmiddlewaretoken": token}),
            ("normal file, API", "/api/v1/verify", normal, auth, {}),
        ]
        for name, path, data, headers, fields in cases:
            status, message, seconds, peaks = send(server, path, data, headers, fields)
            worker = f"{peaks.worker_peak / 1024:.0f} MB" if peaks.worker_peak else "-"
            print(
                f"{name:<22}{status:>7}{seconds:>9.2f}{peaks.web_before / 1024:>13.0f} MB"
                f"{peaks.web_peak / 1024:>7.0f} MB{worker:>13}  {message[:90]}"
            )
    finally:
        server.stop()


def main() -> None:
    prepare_environment()
    from accounts.services import api_key_create, organization_create
    from tests.esign.hostile_pdf import oversized_signature_pdf

    organization = organization_create(slug="bench", name="Bench")
    _, key = api_key_create(organization=organization, kind="production")
    auth = {"Authorization": "Basic " + base64.b64encode(f"{key}:".encode()).decode()}
    attack = oversized_signature_pdf()
    normal = oversized_signature_pdf(contents_hex_digits=40_000, total=1 * MB)
    print(
        f"attack file: {len(attack):,} bytes, one signature with 12,000,000 hex digits;"
        f" normal file: {len(normal):,} bytes, one signature with 40,000"
    )
    run(
        "Default settings: refused by the structural limits, before any parse", attack, normal, auth
    )
    os.environ["VERIFY_MAX_SIGNATURE_CONTENTS_BYTES"] = str(100 * MB)
    memory = os.environ.get("VERIFY_WORKER_MEMORY_MB", "512 (default)")
    run(
        f"Structural limits off: the verify worker's limits (memory {memory} MB, deadline"
        f" {os.environ.get('VERIFY_TIMEOUT_SECONDS', '30 (default)')} s)",
        attack,
        normal,
        auth,
    )


if __name__ == "__main__":
    main()
