"""The README's run command on a port other than 8000: every link it prints and every link the
service then hands out (signing URLs, the embed demo's frame, the start page) is on that port."""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def get(url: str, *, key: str = "", body: bytes | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=body)  # noqa: S310 - a URL the test built
    if key:
        request.add_header(
            "Authorization", "Basic " + base64.b64encode(f"{key}:".encode()).decode()
        )
    if body is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def graphql(base: str, key: str, query: str, **variables: str) -> dict:
    body = json.dumps({"query": query, "variables": variables}).encode()
    answer = json.loads(get(base + "/graphql", key=key, body=body)[1])
    assert "errors" not in answer, answer
    return answer["data"]


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, str]]:
    """``bash scripts/run.sh`` with PORT set and PUBLIC_BASE_URL not: (port, what it printed)."""
    port = free_port()
    data_dir = tmp_path_factory.mktemp("run-command") / "data"
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PUBLIC_BASE_URL", "DATABASE_URL", "DJANGO_SETTINGS_MODULE", "MEDIA_ROOT")
        and not k.startswith(("S3_", "PYTEST"))
    }
    env.update(
        PORT=str(port), HOST="127.0.0.1", DATA_DIR=str(data_dir), WEB_CONCURRENCY="1",
        GUNICORN_THREADS="4", GENERATE_WORKERS="1", LOG_LEVEL="WARNING", RATE_LIMIT_ENABLED="false",
    )  # fmt: skip
    log = data_dir.parent / "run.log"
    with log.open("wb") as out:
        process = subprocess.Popen(  # noqa: S603 - the README's command
            ["bash", "scripts/run.sh"],  # noqa: S607
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        # migrate, collectstatic and demo_setup on a fresh DATA_DIR, on a machine that is busy
        deadline = time.monotonic() + 480
        while True:
            printed = log.read_text(errors="replace")
            if "Create another two-signer" in printed:
                try:
                    if get(f"http://127.0.0.1:{port}/healthz")[0] == 200:
                        break
                except OSError:
                    pass
            assert process.poll() is None, printed
            assert time.monotonic() < deadline, printed
            time.sleep(0.5)
        yield port, printed
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def test_the_printed_links_are_on_the_port_it_was_started_on(started: tuple[int, str]) -> None:
    port, printed = started
    base = f"http://127.0.0.1:{port}"

    assert f"Service: {base}   " in printed
    urls = re.findall(r"https?://[^\s'\"]+", printed)
    assert len(urls) >= 8
    assert [url for url in urls if url != base and not url.startswith(base + "/")] == []
    assert ":8000" not in printed


def test_the_links_the_service_hands_out_follow_the_port(started: tuple[int, str]) -> None:
    port, printed = started
    base = f"http://127.0.0.1:{port}"
    key = re.search(r"curl -s -u '([^:]+):'", printed)[1]  # type: ignore[index]

    # The start page shows the address in force, with no note that it differs.
    status, page = get(base + "/")
    assert status == 200
    assert f"<code>{base}</code>" in page.decode()
    assert "was opened at" not in page.decode()

    # The fill the run command prints, as printed.
    fill_url = re.search(r"(\S+/api/v1/fill/\S+\.pdf)", printed)[1]  # type: ignore[index]
    body = re.search(r"-d '(\{\"title\": \"Demo fill\".*?)' ", printed)[1]  # type: ignore[index]
    status, pdf = get(fill_url, key=key, body=body.encode())
    assert (status, pdf[:5]) == (200, b"%PDF-")

    # The embed demo frames the workflow at this address (it was a broken frame on :8000).
    workflow_url = re.search(r"embedded: (\S+)\)", printed)[1]  # type: ignore[index]
    status, html = get(workflow_url)
    assert status == 200
    frame = re.search(r'<iframe id="wf-demo-iframe" src="([^"]+)"', html.decode())[1]  # type: ignore[index]
    assert frame.startswith(base + "/form/")
    assert get(frame.replace("&amp;", "&"))[0] == 200

    # A packet made through GraphQL: its signing URL and its zip's URL are here too.
    request_file = re.search(r"-d @(\S+) ", printed)[1]  # type: ignore[index]
    created = json.loads(get(base + "/graphql", key=key, body=Path(request_file).read_bytes())[1])
    group = created["data"]["createEtchPacket"]["documentGroup"]
    client = next(s for s in group["signers"] if s["aliasId"] == "client")
    sign_url = graphql(
        base,
        key,
        'mutation($s: String!) { generateEtchSignURL(signerEid: $s, clientUserId: "u1") }',
        s=client["eid"],
    )["generateEtchSignURL"]
    assert sign_url.startswith(base + "/")
    assert get(sign_url)[0] == 200
    packet = graphql(
        base,
        key,
        "query($e: String!) { etchPacket(eid: $e) { documentGroup { downloadZipURL } } }",
        e=created["data"]["createEtchPacket"]["eid"],
    )["etchPacket"]
    assert packet["documentGroup"]["downloadZipURL"].startswith(base + "/")


def test_the_run_command_says_where_emails_are_read(started: tuple[int, str]) -> None:
    port, printed = started

    assert "Emails are kept, not sent (development)" in printed
    assert f"http://127.0.0.1:{port}/admin/core/sentemail/" in printed


def test_the_signing_page_is_served_with_hashed_compressed_cached_files(
    started: tuple[int, str],
) -> None:
    port, printed = started
    base = f"http://127.0.0.1:{port}"
    signing = re.search(r"(\S+/api/etch/verify/\S+)", printed)[1]  # type: ignore[index]
    status, page = get(signing)
    assert status == 200
    html = page.decode()
    assert "pdf.worker" not in html  # the pages are pictures: no PDF reader
    script = re.search(r'src="(/static/esign/sign\.[0-9a-f]{12}\.js)"', html)[1]  # type: ignore[index]
    request = urllib.request.Request(base + script, headers={"Accept-Encoding": "br, gzip"})  # noqa: S310
    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
        assert response.headers["Content-Encoding"] == "br"
        assert response.headers["Cache-Control"] == "max-age=315360000, public, immutable"
    picture = re.search(r'src="(/api/etch/sign/[^"]+\.webp[^"]*)"', html)[1].replace("&amp;", "&")  # type: ignore[index]
    status, image = get(base + picture)
    assert (status, image[:4], image[8:12]) == (200, b"RIFF", b"WEBP")
