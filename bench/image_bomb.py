"""Pixel bombs posted to a public webform (issue 32, item 1), against a real server. Run from the
repository root:

    .venv/bin/python bench/image_bomb.py

Starts gunicorn (one process, gunicorn.conf.py) on loopback against a temporary SQLite database,
with a published workflow whose one public page takes a photo and fills a document with it, and
posts: a PNG of 7600 x 7600 RGB pixels (168 KB, the report's) as the photo's file, a 7000 x 7000
RGBA PNG (190 KB), the two and another 7600 x 7600 at once, a 7000 x 7000 grey PNG (47 KB) as the
``data:`` URL a page carries (its kept image), the same through ``forgeSubmit`` (production
key, ``complete: true``), a 4000 x 4000 RGBA PNG (62 KB, 16 MP: at the cap of a PNG, so it is
decoded, in an image worker), and last a phone's 4000 x 3000 JPEG for comparison. The bombs are made
row by row (tests/image_bombs.py), never decoded by the benchmark.

Each case has a server of its own, so that what one leaves held is not the next one's. For each
it prints the status, the message beside the photo (or the API's), the seconds, the web
process's resident memory before, its peak (sampled every 10 ms), the peak of every process it
started (image workers, their own high-water marks, summed) and what the web process holds after.
The peak of the whole tree is at most the web peak plus the workers'.
"""

from __future__ import annotations

import base64
import html
import http.client
import io
import json
import os
import re
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._processes import Sampler  # noqa: E402
from bench._server import Server, _children, prepare_environment  # noqa: E402
from tests.memory import descendants, resident  # noqa: E402

MB = 1_048_576


def _high_water(pid: int) -> int:
    """The peak resident memory of process ``pid`` since it started its program (VmHWM)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _is_image_worker(pid: int) -> bool:
    try:
        return b"image_worker" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


class Peaks(Sampler):
    """Peak resident memory of the web process (sampled), and of each process it started (an
    image worker: its own high-water mark, which a fork's moment before exec does not inflate
    as a sampled sum would)."""

    def __init__(self, server: Server) -> None:
        (self.web,) = _children(server.process.pid)  # gunicorn's one worker
        self.web_before = resident(self.web)
        self.web_peak = self.web_before
        self.workers: dict[int, int] = {}
        super().__init__()

    def sample(self) -> None:
        self.web_peak = max(self.web_peak, resident(self.web))
        for pid in descendants(self.web):
            if _is_image_worker(pid):  # started its program: not the fork before exec
                self.workers[pid] = max(self.workers.get(pid, 0), _high_water(pid))

    @property
    def workers_peak(self) -> int:
        return sum(self.workers.values())

    def __exit__(self, *exc: object) -> None:
        super().__exit__(*exc)
        self.web_after = resident(self.web)


def multipart(fields: dict[str, str], photo: tuple[bytes, str] | None) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in fields.items()
    ]
    if photo is not None:
        data, mime = photo
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="photo.file"; '
            f'filename="photo"\r\nContent-Type: {mime}\r\n\r\n'.encode()
            + data
            + b"\r\n"
        )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def post(server: Server, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=300)
    try:
        connection.request("POST", path, body, headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def message_of(answer: bytes) -> str:
    try:
        body = json.loads(answer)
    except ValueError:
        found = re.search(rb'id="f-photo-error">(.*?)</p>', answer, re.S)
        if found:
            return html.unescape(found.group(1).decode())
        if b"Thank you" in answer:
            return "(taken: the thank-you page)"
        return f"(page, {len(answer)} bytes)"
    if body.get("errors"):
        error = body["errors"][0]
        fields = error.get("extensions", {}).get("fields")
        return fields[0]["message"] if fields else error.get("message", "")
    if body.get("data"):
        return "(taken)"
    return json.dumps(body)[:100]


def png_bombs() -> dict[str, bytes]:
    from tests.image_bombs import png_bomb

    return {
        "RGB 7600": png_bomb(7600, 7600, "RGB"),
        "RGBA 7000": png_bomb(7000, 7000, "RGBA"),
        "L 7000": png_bomb(7000, 7000, "L"),
        "RGBA 4000": png_bomb(4000, 4000, "RGBA"),
    }


def phone_jpeg() -> bytes:
    from PIL import Image

    image = Image.frombytes("RGB", (1000, 750), os.urandom(1000 * 750 * 3)).resize((4000, 3000))
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=92)
    return buffer.getvalue()


def main() -> None:
    prepare_environment(prefix="bench-image-bomb-")
    from accounts.services import api_key_create, organization_create
    from templates_app.engine.demo import build_demo_template
    from templates_app.services import template_create_with_spec
    from tests.workflows.test_public_uploads import badge_create

    organization = organization_create(slug="bench", name="Bench")
    _, key = api_key_create(organization=organization, kind="production")
    pdf, spec = build_demo_template()
    template = template_create_with_spec(
        organization=organization, title="Demo", pdf=pdf, spec=spec, publish=True
    )
    workflow = badge_create(organization, template)
    forge = workflow.webforms.get().eid
    form = f"/form/{organization.slug}/{workflow.slug}"
    auth = {"Authorization": "Basic " + base64.b64encode(f"{key}:".encode()).decode()}
    bombs = png_bombs()
    photo = phone_jpeg()
    print(
        f"bombs: RGB 7600x7600 {len(bombs['RGB 7600']):,} bytes, RGBA 7000x7000"
        f" {len(bombs['RGBA 7000']):,} bytes, L 7000x7000 {len(bombs['L 7000']):,} bytes;"
        f" phone JPEG 4000x3000 {len(photo):,} bytes"
    )
    fields = {"forge": forge, "page": "0", "email": "a@b.co"}

    def page(server: Server, data: bytes, mime: str = "image/png") -> tuple[int, bytes]:
        body, content_type = multipart(fields, (data, mime))
        return post(server, form, body, {"Content-Type": content_type})

    def kept(server: Server, data: bytes) -> tuple[int, bytes]:
        url = "data:image/png;base64," + base64.b64encode(data).decode()
        body, content_type = multipart({**fields, "photo": url}, None)
        return post(server, form, body, {"Content-Type": content_type})

    def forge_submit(server: Server, data: bytes) -> tuple[int, bytes]:
        from tests.workflows.conftest import FORGE_SUBMIT

        url = "data:image/png;base64," + base64.b64encode(data).decode()
        variables = {"forgeEid": forge, "payload": {"photo": url, "email": "a@b.co"}}
        body = json.dumps({"query": FORGE_SUBMIT, "variables": {**variables, "complete": True}})
        return post(server, "/graphql", body.encode(), {**auth, "Content-Type": "application/json"})

    def at_once(server: Server) -> list[tuple[int, bytes]]:
        answers: list[tuple[int, bytes]] = []
        names = ("RGB 7600", "RGBA 7000", "RGB 7600")
        threads = [
            threading.Thread(target=lambda n=n: answers.append(page(server, bombs[n])))
            for n in names
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return answers

    cases: list[tuple[str, Callable[[Server], list[tuple[int, bytes]]]]] = [
        ("RGB 7600x7600 PNG, file", lambda server: [page(server, bombs["RGB 7600"])]),
        ("RGBA 7000x7000 PNG, file", lambda server: [page(server, bombs["RGBA 7000"])]),
        ("three at once", at_once),
        ("L 7000x7000, kept data: URL", lambda server: [kept(server, bombs["L 7000"])]),
        ("L 7000x7000, forgeSubmit", lambda server: [forge_submit(server, bombs["L 7000"])]),
        ("RGBA 4000x4000 PNG, file", lambda server: [page(server, bombs["RGBA 4000"])]),
        ("phone JPEG 4000x3000, file", lambda server: [page(server, photo, "image/jpeg")]),
    ]
    # The access log would interleave with the table.
    os.environ["GUNICORN_CMD_ARGS"] = "--access-logfile /dev/null"
    print(
        f"\n{'case':<30}{'status':>12}{'seconds':>9}{'web before':>12}{'web peak':>10}"
        f"{'workers':>10}{'web after':>11}  answer"
    )
    for name, run in cases:
        # A server of its own for each case: what one case leaves held is not the next one's.
        server = Server()
        try:
            server.request("GET", form)  # the web process warm, as after its first request
            with Peaks(server) as peaks:
                started = time.monotonic()
                answers = run(server)
                seconds = time.monotonic() - started
        finally:
            server.stop()
        statuses = ",".join(str(status) for status, _ in answers)
        print(
            f"{name:<30}{statuses:>12}{seconds:>9.2f}{peaks.web_before / MB:>9.0f} MB"
            f"{peaks.web_peak / MB:>7.0f} MB{peaks.workers_peak / MB:>7.0f} MB"
            f"{peaks.web_after / MB:>8.0f} MB"
            f"  {message_of(answers[0][1])[:80]}"
        )


if __name__ == "__main__":
    main()
