"""The /verify attacks of the security report (item 2) and of the attacker audit (issue 32),
against a real server. Run from the repository root:

    .venv/bin/python bench/verify_attack.py

Builds the files (tests/esign/hostile_pdf.py): the report's (about 24 MB, one signature whose
/Contents holds 12 MB of hexadecimal digits) and the audit's three: six signatures of 4 MB of
digits in compressed object streams (28 KB), eleven signatures of 1 MB each (23 MB), a 20 MB
literal-string /Contents. Starts gunicorn (one process, gunicorn.conf.py) on loopback against a
temporary SQLite database, and sends each to ``POST /api/v1/verify`` (production key) and to the
public page ``/verify`` (with its CSRF token). For each it prints the status, the answer's
message, the seconds, and the peak resident memory of the web process (gunicorn's worker) and of
any verify worker, sampled every 10 ms.

Then the audit's three at once from one address with, 0.2 s later, a bystander's normal file
from another (``TRUST_X_FORWARDED_FOR`` is on and each request says its address in
``X-Forwarded-For``): how long the bystander waits, and what the attacker's three get.

Then all of it against a second server whose structural limits are off
(``VERIFY_MAX_SIGNATURE_CONTENTS_BYTES`` and ``VERIFY_MAX_TOTAL_SIGNATURE_CONTENTS_BYTES`` 100
MB), so the files reach a verify worker: its memory limit (``VERIFY_WORKER_MEMORY_MB``) or
deadline stops them, and the web process stays small. A normal sealed-size file is verified last,
through the worker, for comparison.
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

from bench._processes import Sampler  # noqa: E402
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


class Peaks(Sampler):
    """Peak resident memory of the web process and of its verify workers while running."""

    def __init__(self, server: Server) -> None:
        (self.web,) = _children(server.process.pid)  # gunicorn's one worker
        self.web_before = _status_kb(self.web, "VmRSS")
        self.web_peak = self.web_before
        self.worker_peak = 0
        super().__init__()

    def sample(self) -> None:
        self.web_peak = max(self.web_peak, _status_kb(self.web, "VmRSS"))
        for pid in _children_of_every_thread(self.web):
            self.worker_peak = max(self.worker_peak, _status_kb(pid, "VmHWM"))


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


def post(
    server: Server, path: str, data: bytes, headers: dict[str, str], fields: dict[str, str]
) -> tuple[int, str, float, str]:
    """Status, message, seconds and Retry-After ("" when none) of one POST."""
    body, content_type = multipart(data, fields)
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=300)
    try:
        connection.request("POST", path, body, {**headers, "Content-Type": content_type})
        response = connection.getresponse()
        status, answer = response.status, response.read()
        retry_after = response.getheader("Retry-After", "")
    finally:
        connection.close()
    return status, message_of(answer), time.monotonic() - started, retry_after


def send(
    server: Server, path: str, data: bytes, headers: dict[str, str], fields: dict[str, str]
) -> tuple[int, str, float, Peaks]:
    with Peaks(server) as peaks:
        status, message, seconds, _ = post(server, path, data, headers, fields)
    return status, message, seconds, peaks


def mb(kb: int) -> str:
    return f"{kb / 1024:.0f} MB" if kb else "-"


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


ATTACKER = "203.0.113.7"
BYSTANDER = "198.51.100.2"


def run(label: str, files: dict[str, bytes], normal: bytes, auth: dict[str, str]) -> None:
    server = Server()
    try:
        server.request("GET", "/verify")  # the web process warm, as after its first request
        print(f"\n{label}")
        print(
            f"{'file':<20}{'endpoint':<10}{'status':>7}{'seconds':>9}{'web RSS before':>16}"
            f"{'web peak':>10}{'worker peak':>13}  answer"
        )
        cookie, token = csrf(server)
        page_headers = {"Cookie": cookie, "Referer": f"http://127.0.0.1:{server.port}/verify"}
        endpoints = [
            ("API", "/api/v1/verify", auth, {}),
            ("page", "/verify", page_headers, {"csrfmiddlewaretoken": token}),
        ]
        cases = [
            (name, endpoint, path, data, headers, fields)
            for name, data in files.items()
            for endpoint, path, headers, fields in endpoints
        ]
        cases.append(("normal file", "API", "/api/v1/verify", normal, auth, {}))
        for name, endpoint, path, data, headers, fields in cases:
            status, message, seconds, peaks = send(server, path, data, headers, fields)
            print(
                f"{name:<20}{endpoint:<10}{status:>7}{seconds:>9.2f}"
                f"{peaks.web_before / 1024:>13.0f} MB{mb(peaks.web_peak):>10}"
                f"{mb(peaks.worker_peak):>13}  {message[:90]}"
            )
        at_once(server, files, normal, auth)
    finally:
        server.stop()


def at_once(server: Server, files: dict[str, bytes], normal: bytes, auth: dict[str, str]) -> None:
    """The audit's three files at once from one address, and 0.2 s later a bystander's normal
    file from another."""
    attacks = [name for name in files if name != "report's 24 MB"]
    sent: list[tuple[str, str, bytes]] = [(f"{n} (attacker)", ATTACKER, files[n]) for n in attacks]
    sent.append(("normal file (bystander)", BYSTANDER, normal))
    answers: dict[str, tuple[int, str, float, str]] = {}

    def one(name: str, address: str, data: bytes) -> None:
        headers = {**auth, "X-Forwarded-For": address}
        answers[name] = post(server, "/api/v1/verify", data, headers, {})

    print(f"\nthree at once from {ATTACKER}, then one from {BYSTANDER} (API)")
    with Peaks(server) as peaks:
        threads = []
        for name, address, data in sent:
            if address == BYSTANDER:
                time.sleep(0.2)
            thread = threading.Thread(target=one, args=(name, address, data))
            thread.start()
            threads.append(thread)
        for thread in threads:
            thread.join()
    for name, _, _ in sent:
        status, message, seconds, retry_after = answers[name]
        retry = f"Retry-After {retry_after}" if retry_after else ""
        print(f"{name:<32}{status:>7}{seconds:>9.2f}  {retry:<16}{message[:80]}")
    print(
        f"web peak {mb(peaks.web_peak)} (before {mb(peaks.web_before)}),"
        f" verify workers' peak {mb(peaks.worker_peak)}"
    )


def main() -> None:
    prepare_environment(TRUST_X_FORWARDED_FOR="true")
    from accounts.services import api_key_create, organization_create
    from tests.esign.hostile_pdf import (
        literal_contents_pdf,
        many_signatures_pdf,
        object_stream_signatures_pdf,
        oversized_signature_pdf,
    )

    organization = organization_create(slug="bench", name="Bench")
    _, key = api_key_create(organization=organization, kind="production")
    auth = {"Authorization": "Basic " + base64.b64encode(f"{key}:".encode()).decode()}
    files = {
        "report's 24 MB": oversized_signature_pdf(),
        "object streams": object_stream_signatures_pdf(),
        "eleven 1 MB sigs": many_signatures_pdf(),
        "20 MB literal": literal_contents_pdf(),
    }
    normal = oversized_signature_pdf(contents_hex_digits=40_000, total=1 * MB)
    for name, data in files.items():
        print(f"{name}: {len(data):,} bytes")
    print(f"normal file: {len(normal):,} bytes, one signature with 40,000 hex digits")
    run("Default settings: refused by the structural limits, before any parse", files, normal, auth)
    os.environ["VERIFY_MAX_SIGNATURE_CONTENTS_BYTES"] = str(100 * MB)
    os.environ["VERIFY_MAX_TOTAL_SIGNATURE_CONTENTS_BYTES"] = str(100 * MB)
    from django.conf import settings

    run(
        "Structural limits off: the verify worker's limits (memory"
        f" {settings.VERIFY_WORKER_MEMORY_MB} MB, deadline {settings.VERIFY_TIMEOUT_SECONDS:g} s,"
        f" queue {settings.VERIFY_QUEUE_TIMEOUT_SECONDS:g} s)",
        files,
        normal,
        auth,
    )


if __name__ == "__main__":
    main()
