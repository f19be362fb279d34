"""Local HTTP(S) servers and helpers for the fetcher tests, on real sockets on 127.0.0.1 (port
chosen by the OS), and the fonts tests' fixtures (from tests/core/engine/font_library.py)."""

from __future__ import annotations

import datetime
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from core.engine.fetch import FetchError, FetchPolicy, fetch
from tests.core.engine.font_library import catalog_server, library  # noqa: F401 - the fonts tests' fixtures

Route = Callable[[BaseHTTPRequestHandler], None]

# The test servers listen on 127.0.0.1, which only the allowlist lets the fetcher reach.
LOCAL = FetchPolicy(allow_networks=("127.0.0.0/8",))


def fetch_error_code(url: str, policy: FetchPolicy, **kwargs: Any) -> str:
    with pytest.raises(FetchError) as caught:
        fetch(url, policy, **kwargs)
    return caught.value.code


def never_resolve(host: str, port: int) -> list[str]:
    raise AssertionError(f"an IP literal must not be resolved ({host}:{port})")


def resolve_to(*addresses: str) -> Any:
    calls: list[tuple[str, int]] = []

    def resolve(host: str, port: int) -> list[str]:
        calls.append((host, port))
        return list(addresses)

    resolve.calls = calls  # type: ignore[attr-defined]
    return resolve


def timed(call: Callable[[], str]) -> tuple[str, float]:
    """What ``call()`` returns, and the seconds it took."""
    started = time.monotonic()
    result = call()
    return result, time.monotonic() - started


def dripping_body(server: FetchTestServer, content_type: str | None = None) -> Route:
    """A route that promises 100 bytes and sends one every half second (50 s in all), until the
    server stops."""

    def drip(request: BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        if content_type:
            request.send_header("Content-Type", content_type)
        request.send_header("Content-Length", "100")
        request.end_headers()
        for _ in range(100):
            request.wfile.write(b"x")
            if server.stopping.wait(0.5):
                return

    return drip


def assert_gives_up_on_a_slow_resolver(
    attempt: Callable[[Callable[[str, int], list[str]]], str],
) -> None:
    """``attempt(resolve)`` (with a 0.3 s deadline) times out with a resolver that would answer
    only after a minute; the resolver is released at the end, so the test does not wait."""
    release = threading.Event()

    def slow(host: str, port: int) -> list[str]:
        release.wait(60)  # far past the deadline: without it, the test takes a minute
        return ["127.0.0.1"]

    try:
        code, seconds = timed(lambda: attempt(slow))
    finally:
        release.set()

    assert code == "timeout"
    # The resolver would answer after 60 s; a bound far under that holds at any load.
    assert seconds < 20


@dataclass
class FetchTestServer:
    """Answers each path with a route the test installs; remembers what it was asked."""

    scheme: str
    port: int
    stopping: threading.Event
    routes: dict[str, Route] = field(default_factory=dict)
    requests: list[dict[str, str]] = field(default_factory=list)

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"{self.scheme}://{host}:{self.port}{path}"

    def route(self, path: str, handler: Route) -> None:
        self.routes[path] = handler

    def respond(
        self,
        path: str,
        body: bytes,
        *,
        content_type: str = "application/octet-stream",
        status: int = 200,
        headers: dict[str, str] | None = None,
    ) -> None:
        def handler(request: BaseHTTPRequestHandler) -> None:
            request.send_response(status)
            request.send_header("Content-Type", content_type)
            request.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                request.send_header(name, value)
            request.end_headers()
            request.wfile.write(body)

        self.route(path, handler)

    def redirect(self, path: str, location: str, *, status: int = 302) -> None:
        self.respond(path, b"", status=status, headers={"Location": location})


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def do_GET(self) -> None:
        self._dispatch()

    def _dispatch(self) -> None:
        """Remember the request, and answer it by its path's route (404 if none)."""
        owner = self.server.owner
        owner.requests.append(
            {"path": self.path, **{k.lower(): v for k, v in self.headers.items()}}
        )
        handler = owner.routes.get(urlsplit(self.path).path)
        try:
            if handler is None:
                self.send_error(404)
            else:
                handler(self)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client hung up on purpose (cap or deadline reached)

    def log_message(self, format: str, *args: object) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: FetchTestServer


@contextmanager
def serving(server: ThreadingHTTPServer, *, join_timeout: float) -> Iterator[None]:
    """``server`` answering from a thread of its own for as long as the block runs; then shut
    down and closed."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=join_timeout)


def _serve(
    scheme: str,
    tls: ssl.SSLContext | None,
    handler: type[_Handler] = _Handler,
    kind: type[FetchTestServer] = FetchTestServer,
) -> Iterator[Any]:
    server = _Server(("127.0.0.1", 0), handler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    stopping = threading.Event()
    server.owner = kind(scheme=scheme, port=server.server_address[1], stopping=stopping)
    with serving(server, join_timeout=2):
        try:
            yield server.owner
        finally:
            stopping.set()  # lets dripping handlers stop early, before the server shuts down


@pytest.fixture
def fetch_http_server() -> Iterator[FetchTestServer]:
    yield from _serve("http", None)


@dataclass(frozen=True)
class FetchTlsFiles:
    cert_path: Path
    key_path: Path
    hostname: str


@pytest.fixture(scope="session")
def fetch_tls_files(tmp_path_factory: pytest.TempPathFactory) -> FetchTlsFiles:
    """A self-signed certificate for images.test (only), made fresh for the test session."""
    hostname = "images.test"
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hostname)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(hostname)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    directory = tmp_path_factory.mktemp("fetch-tls")
    cert_path = directory / "cert.pem"
    key_path = directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return FetchTlsFiles(cert_path=cert_path, key_path=key_path, hostname=hostname)


def server_tls(files: FetchTlsFiles) -> ssl.SSLContext:
    """The test servers' TLS: the self-signed certificate for images.test."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(files.cert_path, files.key_path)
    return context


@pytest.fixture
def fetch_https_server(fetch_tls_files: FetchTlsFiles) -> Iterator[FetchTestServer]:
    yield from _serve("https", server_tls(fetch_tls_files))


@pytest.fixture
def fetch_trusting_tls_context(fetch_tls_files: FetchTlsFiles) -> ssl.SSLContext:
    """A client context that trusts the test certificate (and nothing else)."""
    return ssl.create_default_context(cafile=str(fetch_tls_files.cert_path))
