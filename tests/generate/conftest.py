"""Helpers for the generate tests: calling the endpoint, reading what is in the PDF, a local
HTTP server for images and fonts."""

from __future__ import annotations

import io
import json
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pypdf
import pytest
from django.test import Client
from PIL import Image

from tests.core.engine.conftest import serving
from tests.pdfcheck import PopplerWord, poppler_words, render

URL = "/api/v1/generate-pdf"
# A generate request whose render takes seconds (a table of 20,000 rows): it holds a render
# worker long enough for the busy and share limits to be seen.
SLOW_HTML = {
    "type": "html",
    "data": {
        "html": "<table>"
        + "".join(f"<tr><td>{i}</td><td>row {i}</td></tr>" for i in range(20000))
        + "</table>"
    },
}


def post(client: Client, payload: Any, **extra: Any) -> Any:
    """POST a JSON body to the endpoint, the way the published clients do."""
    return client.post(URL, data=json.dumps(payload), content_type="application/json", **extra)


def generate_pdf(client: Client, payload: Any) -> bytes:
    """The PDF for ``payload``; fails the test with the error body otherwise."""
    response = post(client, payload, HTTP_ACCEPT="application/pdf")
    assert response.status_code == 200, response.content[:2000]
    assert response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF-")
    return response.content


def reader(pdf: bytes) -> pypdf.PdfReader:
    return pypdf.PdfReader(io.BytesIO(pdf))


def page_texts(pdf: bytes) -> list[str]:
    """Text of every page, as pypdf extracts it."""
    return [page.extract_text() for page in reader(pdf).pages]


def layout_texts(pdf: bytes) -> list[str]:
    """Text of every page laid out as poppler sees it (``pdftotext -layout``)."""
    out = _poppler(["pdftotext", "-layout", "-enc", "UTF-8"], pdf, suffix=".txt")
    return out.decode().split("\f")[:-1]


def page_sizes(pdf: bytes) -> list[tuple[float, float]]:
    """(width, height) of every page in points."""
    return [(float(p.mediabox.width), float(p.mediabox.height)) for p in reader(pdf).pages]


Word = PopplerWord


def words(pdf: bytes) -> list[Word]:
    """Every word with its box, from ``pdftotext -bbox`` (origin top-left, y down)."""
    return poppler_words(pdf)


def word(pdf: bytes, text: str) -> Word:
    matches = [w for w in words(pdf) if w.text == text]
    assert matches, f"{text!r} is not in the PDF"
    return matches[0]


def fonts(pdf: bytes) -> set[str]:
    """Font names used in the PDF (``pdffonts``), without the subset prefix."""
    out = _poppler(["pdffonts"], pdf, suffix=None).decode()
    names = set()
    for line in out.splitlines()[2:]:
        if line.strip():
            names.add(line.split()[0].split("+")[-1])
    return names


def page_image(pdf: bytes, page: int = 1, dpi: int = 50) -> Image.Image:
    """One page (1-based) rasterised by poppler, as an RGB image."""
    return render(pdf, page - 1, dpi)


def _poppler(command: list[str], pdf: bytes, *, suffix: str | None) -> bytes:
    with tempfile.TemporaryDirectory() as directory:
        source = Path(directory) / "in.pdf"
        source.write_bytes(pdf)
        arguments = [*command, str(source)]
        if suffix is not None:
            arguments.append(str(Path(directory) / f"out{suffix}"))
        completed = subprocess.run(arguments, check=True, capture_output=True, timeout=60)
        if suffix is None:
            return completed.stdout
        return (Path(directory) / f"out{suffix}").read_bytes()


# -- a local server for images, stylesheets and fonts ---------------------------------------------


@dataclass
class AssetServer:
    """Serves bytes with the content type a test chooses; remembers the paths asked for."""

    port: int
    routes: dict[str, tuple[int, str, bytes, dict[str, str], float]] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def serve(
        self,
        path: str,
        body: bytes,
        content_type: str,
        *,
        status: int = 200,
        headers: dict[str, str] | None = None,
        delay: float = 0.0,
    ) -> str:
        self.routes[path] = (status, content_type, body, headers or {}, delay)
        return self.url(path)


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        owner = self.server.owner
        path = urlsplit(self.path).path
        owner.requests.append(path)
        status, content_type, body, headers, delay = owner.routes.get(
            path, (404, "text/plain", b"not found", {}, 0.0)
        )
        if delay:
            time.sleep(delay)
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the fetcher gave up on purpose (deadline)

    def log_message(self, format: str, *args: object) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: AssetServer


@pytest.fixture
def asset_server(settings: Any) -> Iterator[AssetServer]:
    """A server on 127.0.0.1 that documents may load from (loopback is allowed for the test)."""
    settings.FETCH_ALLOW_NETWORKS = ["127.0.0.0/8"]
    server = _Server(("127.0.0.1", 0), _Handler)
    server.owner = AssetServer(port=server.server_address[1])
    with serving(server, join_timeout=5):
        yield server.owner


@pytest.fixture
def production_client(production_key: str, client_for: Callable[[str], Client]) -> Client:
    return client_for(production_key)
