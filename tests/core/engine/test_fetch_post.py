"""`post()`: the fetcher's guard for outbound deliveries (webhooks), with real sockets on 127.0.0.1."""

from __future__ import annotations

import logging
import socket
import ssl
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from core.engine.fetch import FetchError, FetchPolicy, PostResponse, post
from tests.core.engine.conftest import (
    FetchTestServer,
    FetchTlsFiles,
    _Handler,
    _serve,
    _Server,
    assert_gives_up_on_a_slow_resolver,
    dripping_body,
    server_tls,
    timed,
)

LOCAL = FetchPolicy(allow_networks=("127.0.0.0/8",))
PAYLOAD = b'{"action": "signerComplete", "data": {"email": "ann@example.com"}}'


@dataclass
class PostTestServer(FetchTestServer):
    bodies: list[bytes] = field(default_factory=list)


class _PostHandler(_Handler):
    server: _Server

    def do_POST(self) -> None:
        owner = self.server.owner
        assert isinstance(owner, PostTestServer)
        owner.bodies.append(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        self._dispatch()


def _serve_posts(scheme: str, tls: ssl.SSLContext | None) -> Iterator[PostTestServer]:
    yield from _serve(scheme, tls, _PostHandler, PostTestServer)


@pytest.fixture
def post_server() -> Iterator[PostTestServer]:
    yield from _serve_posts("http", None)


@pytest.fixture
def post_https_server(fetch_tls_files: FetchTlsFiles) -> Iterator[PostTestServer]:
    yield from _serve_posts("https", server_tls(fetch_tls_files))


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """Listens and never accepts: the kernel completes handshakes into the backlog, where
    `connections()` counts them."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        sock.setblocking(False)
        yield sock


def connections(listener: socket.socket) -> int:
    count = 0
    while True:
        try:
            connection, _ = listener.accept()
        except BlockingIOError:
            return count
        connection.close()
        count += 1


def listener_url(listener: socket.socket, path: str = "/hook", host: str = "127.0.0.1") -> str:
    return f"http://{host}:{listener.getsockname()[1]}{path}"


def post_error_code(url: str, policy: FetchPolicy, **kwargs: Any) -> str:
    with pytest.raises(FetchError) as caught:
        post(url, PAYLOAD, policy, **kwargs)
    return caught.value.code


def never_resolve(host: str, port: int) -> list[str]:
    raise AssertionError(f"an IP literal must not be resolved ({host}:{port})")


def resolve_in_turn(*answers: list[str]) -> Any:
    """A resolver that gives each answer in turn: a rebinding DNS server."""
    calls: list[tuple[str, int]] = []

    def resolve(host: str, port: int) -> list[str]:
        calls.append((host, port))
        return answers[min(len(calls), len(answers)) - 1]

    resolve.calls = calls  # type: ignore[attr-defined]
    return resolve


# --- a normal delivery ---------------------------------------------------------------------------


def test_post_delivers_exact_body_and_headers(post_server: PostTestServer) -> None:
    post_server.respond("/hook", b"thanks", content_type="text/plain", status=202)
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), user_agent="hooks-test/1")

    response = post(
        post_server.url("/hook?id=7"),
        PAYLOAD,
        policy,
        headers={"Content-Type": "application/json", "X-Signature": "sha256=abc"},
    )

    assert (response.status, response.reason, response.body, response.truncated) == (
        202,
        "Accepted",
        b"thanks",
        False,
    )
    assert response.header("content-type") == "text/plain"
    assert response.header("X-Missing") is None
    assert 0 < response.elapsed_seconds < 60  # measured (a duration, not a clock reading)
    assert post_server.bodies == [PAYLOAD]
    [request] = post_server.requests
    assert request["path"] == "/hook?id=7"
    assert request["content-type"] == "application/json"
    assert request["x-signature"] == "sha256=abc"
    assert request["content-length"] == str(len(PAYLOAD))
    assert request["user-agent"] == "hooks-test/1"
    assert request["accept-encoding"] == "identity"
    assert request["host"] == f"127.0.0.1:{post_server.port}"


def test_post_caller_header_replaces_default(post_server: PostTestServer) -> None:
    post_server.respond("/hook", b"")

    post(post_server.url("/hook"), b"", LOCAL, headers={"user-agent": "custom/2"})

    assert post_server.requests[0]["user-agent"] == "custom/2"
    assert post_server.requests[0]["content-length"] == "0"
    assert post_server.bodies == [b""]


@pytest.mark.parametrize(
    "headers",
    [
        {"Host": "elsewhere.example"},
        {"Content-Length": "3"},
        {"transfer-encoding": "chunked"},
        {"Connection": "keep-alive"},
        {"Accept-Encoding": "gzip"},
        {"X-Bad Name": "x"},
        {"X-Injected": "a\r\nX-Other: b"},
    ],
)
def test_post_refuses_reserved_or_malformed_headers_before_connecting(
    listener: socket.socket, headers: dict[str, str]
) -> None:
    with pytest.raises(ValueError, match="header"):
        post(listener_url(listener), PAYLOAD, LOCAL, headers=headers)

    assert connections(listener) == 0


def test_post_https_verifies_certificate_for_url_hostname_on_pinned_address(
    post_https_server: PostTestServer, fetch_trusting_tls_context: ssl.SSLContext
) -> None:
    post_https_server.respond("/hook", b"ok")
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), ssl_context=fetch_trusting_tls_context)

    response = post(
        post_https_server.url("/hook", host="images.test"),
        PAYLOAD,
        policy,
        resolve=resolve_in_turn(["127.0.0.1"]),
    )

    assert (response.status, response.body) == (200, b"ok")
    assert post_https_server.bodies == [PAYLOAD]
    assert post_https_server.requests[0]["host"] == f"images.test:{post_https_server.port}"


def test_post_https_refuses_certificate_for_another_hostname(
    post_https_server: PostTestServer, fetch_trusting_tls_context: ssl.SSLContext
) -> None:
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), ssl_context=fetch_trusting_tls_context)
    url = post_https_server.url("/hook", host="other.test")

    assert post_error_code(url, policy, resolve=resolve_in_turn(["127.0.0.1"])) == (
        "connection_failed"
    )
    assert post_https_server.requests == []


# --- the guard -----------------------------------------------------------------------------------


def test_post_refuses_loopback_without_allowlist_and_never_connects(
    listener: socket.socket,
) -> None:
    assert post_error_code(listener_url(listener), FetchPolicy()) == "address_not_allowed"
    assert connections(listener) == 0


def test_post_refuses_localhost_through_system_resolver(listener: socket.socket) -> None:
    url = listener_url(listener, host="localhost")

    assert post_error_code(url, FetchPolicy()) == "address_not_allowed"
    assert connections(listener) == 0


@pytest.mark.parametrize(
    "url",
    [
        "http://10.0.0.1/hook",
        "http://169.254.169.254/latest/meta-data/",
        "http://100.64.0.1/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[64:ff9b::a9fe:a9fe]/",
    ],
)
def test_post_refuses_non_public_address_literals(url: str) -> None:
    assert post_error_code(url, FetchPolicy(), resolve=never_resolve) == "address_not_allowed"


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("data:application/json,{}", "scheme_not_allowed"),
        ("file:///etc/passwd", "scheme_not_allowed"),
        ("ftp://hooks.example/", "scheme_not_allowed"),
        ("http://user:pw@hooks.example/", "invalid_url"),
        ("http:///no-host", "invalid_url"),
    ],
)
def test_post_refuses_other_schemes_and_malformed_urls(url: str, code: str) -> None:
    assert post_error_code(url, LOCAL, resolve=never_resolve) == code


def test_post_refuses_when_any_resolved_address_is_private(listener: socket.socket) -> None:
    # A public address paired with the listener's: connection order must not decide.
    resolve = resolve_in_turn(["93.184.216.34", "127.0.0.1"])

    code = post_error_code(
        listener_url(listener, host="hooks.example"), FetchPolicy(), resolve=resolve
    )

    assert code == "address_not_allowed"
    assert resolve.calls == [("hooks.example", listener.getsockname()[1])]
    assert connections(listener) == 0


def test_post_resolves_once_and_connects_to_the_checked_address(
    post_server: PostTestServer,
) -> None:
    # A rebinding DNS server: an allowed address first, then a private one. The connection goes
    # to the first, checked answer; the second is never asked for within one delivery.
    post_server.respond("/hook", b"ok")
    resolve = resolve_in_turn(["127.0.0.1"], ["10.0.0.7"])
    policy = FetchPolicy(allow_networks=("127.0.0.1/32",))
    url = post_server.url("/hook", host="hooks.test")

    assert post(url, PAYLOAD, policy, resolve=resolve).status == 200
    assert resolve.calls == [("hooks.test", post_server.port)]
    assert post_server.requests[0]["host"] == f"hooks.test:{post_server.port}"

    # The next delivery resolves afresh and is checked afresh.
    assert post_error_code(url, policy, resolve=resolve) == "address_not_allowed"
    assert len(post_server.requests) == 1


def test_post_reports_connection_refused() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free_port = probe.getsockname()[1]

    assert post_error_code(f"http://127.0.0.1:{free_port}/", LOCAL) == "connection_failed"


# --- the answer ----------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_post_returns_redirect_without_following_it(
    post_server: PostTestServer, status: int
) -> None:
    post_server.redirect("/hook", post_server.url("/elsewhere"), status=status)
    post_server.respond("/elsewhere", b"followed")
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), max_redirects=5)

    response = post(post_server.url("/hook"), PAYLOAD, policy)

    assert response.status == status
    assert response.header("Location") == post_server.url("/elsewhere")
    assert response.body == b""
    assert [r["path"] for r in post_server.requests] == ["/hook"]


@pytest.mark.parametrize("status", [400, 404, 500, 503])
def test_post_returns_error_status_as_response(post_server: PostTestServer, status: int) -> None:
    post_server.respond("/hook", b"try later", content_type="text/plain", status=status)

    response = post(post_server.url("/hook"), PAYLOAD, LOCAL)

    assert (response.status, response.body, response.truncated) == (status, b"try later", False)


def test_post_returns_no_content(post_server: PostTestServer) -> None:
    def no_content(request: BaseHTTPRequestHandler) -> None:
        request.send_response(204)
        request.end_headers()

    post_server.route("/hook", no_content)

    response = post(post_server.url("/hook"), PAYLOAD, LOCAL)

    assert (response.status, response.body, response.truncated) == (204, b"", False)


@pytest.mark.parametrize(("size", "truncated"), [(999, False), (1000, False), (1001, True)])
def test_post_keeps_at_most_max_bytes_of_the_body(
    post_server: PostTestServer, size: int, truncated: bool
) -> None:
    post_server.respond("/hook", (b"0123456789" * 101)[:size])
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), max_bytes=1000)

    response = post(post_server.url("/hook"), PAYLOAD, policy)

    assert response.body == (b"0123456789" * 100)[: min(size, 1000)]
    assert response.truncated is truncated


def test_post_stops_reading_an_endless_body_at_the_cap(post_server: PostTestServer) -> None:
    def endless(request: BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.send_header("Connection", "close")
        request.end_headers()
        request.close_connection = True
        while not post_server.stopping.is_set():
            request.wfile.write(b"x" * 65536)

    post_server.route("/hook", endless)
    # A deadline far away: reading on to it would take 60 s, stopping at the cap takes none.
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), max_bytes=4096, deadline_seconds=60)

    started = time.monotonic()
    response = post(post_server.url("/hook"), PAYLOAD, policy)

    assert (response.status, response.body, response.truncated) == (200, b"x" * 4096, True)
    assert time.monotonic() - started < 20


def test_post_cuts_off_dripping_body_at_deadline(post_server: PostTestServer) -> None:
    post_server.route("/hook", dripping_body(post_server))
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), deadline_seconds=1.0)

    code, elapsed = timed(lambda: post_error_code(post_server.url("/hook"), policy))

    assert code == "timeout"
    # The whole body would take 50 s; every read came in time, so only the deadline stops it.
    assert elapsed < 20


def test_post_gives_up_on_a_server_that_never_answers(listener: socket.socket) -> None:
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), deadline_seconds=0.5)

    started = time.monotonic()
    code = post_error_code(listener_url(listener), policy)
    elapsed = time.monotonic() - started

    assert code == "timeout"
    # Not before the deadline; and it returned, where nobody ever answers (the upper bound is
    # only a guard: load on a shared machine can delay the return by seconds).
    assert 0.4 < elapsed < 20
    assert connections(listener) == 1  # it connected and sent; nobody answered


def test_post_gives_up_on_slow_resolver_at_deadline() -> None:
    policy = FetchPolicy(deadline_seconds=0.3)
    assert_gives_up_on_a_slow_resolver(
        lambda resolve: post_error_code("http://slow.example/hook", policy, resolve=resolve)
    )


def test_post_reports_body_cut_short(post_server: PostTestServer) -> None:
    def short(request: BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.send_header("Content-Length", "100")
        request.end_headers()
        request.wfile.write(b"only ten b")
        request.close_connection = True

    post_server.route("/hook", short)

    assert post_error_code(post_server.url("/hook"), LOCAL) == "bad_response"


def test_post_response_is_a_plain_value() -> None:
    response = PostResponse(
        status=200,
        reason="OK",
        headers=(("Set-Cookie", "a=1"), ("set-cookie", "b=2")),
        body=b"",
        truncated=False,
        elapsed_seconds=0.1,
    )

    assert response.header("SET-COOKIE") == "a=1"


# --- logging -------------------------------------------------------------------------------------


def test_post_logs_neither_body_nor_headers_nor_query(
    post_server: PostTestServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    secret_body = b'{"ssn": "078-05-1120"}'
    secret_headers = {"X-Signature": "sig-s3cret"}
    post_server.route("/slow", lambda request: post_server.stopping.wait(2))
    refused_policy = FetchPolicy()
    slow_policy = FetchPolicy(allow_networks=("127.0.0.0/8",), deadline_seconds=0.3)

    for url, policy in [
        ("http://169.254.169.254/hook?token=q-s3cret", refused_policy),
        (post_server.url("/slow?token=q-s3cret"), slow_policy),
    ]:
        with pytest.raises(FetchError):
            post(url, secret_body, policy, headers=secret_headers)

    records = [r for r in caplog.records if r.name == "core.engine.fetch"]
    assert [r.levelno for r in records] == [logging.WARNING, logging.INFO]
    assert "169.254.169.254" in records[0].getMessage()
    assert "/slow" in records[1].getMessage()
    for record in caplog.records:
        message = record.getMessage()
        assert "s3cret" not in message
        assert "078-05-1120" not in message
