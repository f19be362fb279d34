"""The safe URL fetcher and the response it reads: a normal fetch (chunked, connection-close
bodies), the size cap, the deadline on dripping bodies and headers, the status and content types
it accepts, and HTTPS verifying the URL's hostname on the pinned address.

Its other refusals are next to it: test_fetch_addresses.py (where it may connect) and
test_fetch_urls.py (schemes, redirects, data: URLs, the policy)."""

from __future__ import annotations

import ssl
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from core.engine.fetch import Fetched, FetchError, FetchPolicy, fetch
from tests.core.engine.conftest import LOCAL, dripping_body, fetch_error_code, resolve_to, timed

# --- a normal fetch ------------------------------------------------------------------------------


def test_fetch_returns_body_and_media_type_from_allowlisted_server(fetch_http_server: Any) -> None:
    fetch_http_server.respond("/logo.png", b"PNGDATA", content_type="Image/PNG; charset=binary")
    url = fetch_http_server.url("/logo.png")

    fetched = fetch(url, FetchPolicy(allow_networks=("127.0.0.0/8",), user_agent="ua-test/1"))

    assert fetched == Fetched(url=url, content_type="image/png", data=b"PNGDATA")
    assert len(fetch_http_server.requests) == 1
    request = fetch_http_server.requests[0]
    assert request["path"] == "/logo.png"
    assert request["user-agent"] == "ua-test/1"
    assert request["accept"] == "*/*"
    assert request["accept-encoding"] == "identity"


def test_fetch_quotes_spaces_in_path_and_sends_query(fetch_http_server: Any) -> None:
    fetch_http_server.respond("/my%20logo.png", b"x", content_type="image/png")

    fetched = fetch(fetch_http_server.url("/my logo.png?size=2&v=a b"), LOCAL)

    assert fetched.data == b"x"
    assert fetch_http_server.requests[0]["path"] == "/my%20logo.png?size=2&v=a%20b"


def test_fetch_asks_for_the_allowed_content_types(fetch_http_server: Any) -> None:
    fetch_http_server.respond("/a", b"x", content_type="image/png")
    policy = FetchPolicy(
        allow_networks=("127.0.0.0/8",), allowed_content_types=("image/", "font/woff2")
    )

    fetch(fetch_http_server.url("/a"), policy)

    assert fetch_http_server.requests[0]["accept"] == "image/*, font/woff2"


def test_fetch_reads_chunked_body(fetch_http_server: Any) -> None:
    def chunked(request: BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.send_header("Content-Type", "image/png")
        request.send_header("Transfer-Encoding", "chunked")
        request.end_headers()
        for part in (b"abc", b"defg", b"h"):
            request.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
        request.wfile.write(b"0\r\n\r\n")

    fetch_http_server.route("/chunked", chunked)

    assert fetch(fetch_http_server.url("/chunked"), LOCAL).data == b"abcdefgh"


def test_fetch_reads_body_delimited_by_connection_close(fetch_http_server: Any) -> None:
    def no_length(request: BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.send_header("Content-Type", "image/png")
        request.send_header("Connection", "close")
        request.end_headers()
        request.wfile.write(b"until-close")
        request.close_connection = True

    fetch_http_server.route("/no-length", no_length)

    assert fetch(fetch_http_server.url("/no-length"), LOCAL).data == b"until-close"


# --- size ----------------------------------------------------------------------------------------


def test_fetch_refuses_declared_length_over_cap(fetch_http_server: Any) -> None:
    fetch_http_server.respond("/big", b"x" * 2000, content_type="image/png")
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), max_bytes=1000)

    assert fetch_error_code(fetch_http_server.url("/big"), policy) == "too_large"


@pytest.mark.parametrize(("size", "expected"), [(999, "ok"), (1000, "too_large")])
def test_fetch_cap_is_exclusive(fetch_http_server: Any, size: int, expected: str) -> None:
    fetch_http_server.respond("/edge", b"x" * size, content_type="image/png")
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), max_bytes=1000)

    try:
        outcome = "ok" if len(fetch(fetch_http_server.url("/edge"), policy).data) == size else "?"
    except FetchError as exc:
        outcome = exc.code

    assert outcome == expected


def test_fetch_refuses_chunked_body_over_cap(fetch_http_server: Any) -> None:
    def chunked(request: BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.send_header("Content-Type", "image/png")
        request.send_header("Transfer-Encoding", "chunked")
        request.end_headers()
        for _ in range(20):
            request.wfile.write(b"3e8\r\n" + b"x" * 1000 + b"\r\n")
        request.wfile.write(b"0\r\n\r\n")

    fetch_http_server.route("/chunked", chunked)
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), max_bytes=4096)

    assert fetch_error_code(fetch_http_server.url("/chunked"), policy) == "too_large"


def test_fetch_refuses_undeclared_body_over_cap(fetch_http_server: Any) -> None:
    def no_length(request: BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.send_header("Content-Type", "image/png")
        request.send_header("Connection", "close")
        request.end_headers()
        request.wfile.write(b"x" * 20_000)
        request.close_connection = True

    fetch_http_server.route("/no-length", no_length)
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), max_bytes=4096)

    assert fetch_error_code(fetch_http_server.url("/no-length"), policy) == "too_large"


def test_fetch_refuses_body_cut_short(fetch_http_server: Any) -> None:
    def short(request: BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.send_header("Content-Type", "image/png")
        request.send_header("Content-Length", "100")
        request.end_headers()
        request.wfile.write(b"only ten b")
        request.close_connection = True

    fetch_http_server.route("/short", short)

    assert fetch_error_code(fetch_http_server.url("/short"), LOCAL) == "bad_response"


# --- deadline ------------------------------------------------------------------------------------


def test_fetch_cuts_off_dripping_body_at_deadline(fetch_http_server: Any) -> None:
    fetch_http_server.route("/drip", dripping_body(fetch_http_server, "image/png"))
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), deadline_seconds=1.0)

    code, elapsed = timed(lambda: fetch_error_code(fetch_http_server.url("/drip"), policy))

    assert code == "timeout"
    # The whole body would take 50 s; every read came in time, so only the deadline stops it.
    assert elapsed < 20


def test_fetch_cuts_off_dripping_headers_at_deadline(fetch_http_server: Any) -> None:
    def drip_headers(request: BaseHTTPRequestHandler) -> None:
        request.wfile.write(b"HTTP/1.1 200 OK\r\n")
        for byte in b"X-Slow: " + b"a" * 100:
            request.wfile.write(bytes([byte]))
            if fetch_http_server.stopping.wait(0.25):
                return

    fetch_http_server.route("/drip-headers", drip_headers)
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), deadline_seconds=0.6)

    code, elapsed = timed(lambda: fetch_error_code(fetch_http_server.url("/drip-headers"), policy))

    assert code == "timeout"
    # The headers would take 27 s; every byte came in time, so only the deadline stops them.
    assert elapsed < 15


# --- status and content type ---------------------------------------------------------------------


@pytest.mark.parametrize("status", [204, 404, 500])
def test_fetch_refuses_non_200_status(fetch_http_server: Any, status: int) -> None:
    fetch_http_server.respond("/x", b"", content_type="image/png", status=status)

    assert fetch_error_code(fetch_http_server.url("/x"), LOCAL) == "bad_status"


@pytest.mark.parametrize(
    ("allowed", "served"),
    [
        (("image/",), "text/html; charset=utf-8"),
        (("image/",), ""),
        (("image/png",), "image/jpeg"),
        (("font/woff2",), "font/woff"),
    ],
)
def test_fetch_refuses_content_type_not_allowed(
    fetch_http_server: Any, allowed: tuple[str, ...], served: str
) -> None:
    fetch_http_server.respond("/x", b"<html>", content_type=served)
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), allowed_content_types=allowed)

    assert fetch_error_code(fetch_http_server.url("/x"), policy) == "bad_content_type"


def test_fetch_refuses_compressed_body(fetch_http_server: Any) -> None:
    fetch_http_server.respond(
        "/x", b"\x1f\x8b", content_type="image/png", headers={"Content-Encoding": "gzip"}
    )

    assert fetch_error_code(fetch_http_server.url("/x"), LOCAL) == "bad_response"


# --- https ---------------------------------------------------------------------------------------


def test_fetch_https_verifies_certificate_for_url_hostname_on_pinned_address(
    fetch_https_server: Any, fetch_trusting_tls_context: ssl.SSLContext
) -> None:
    fetch_https_server.respond("/logo.png", b"tls", content_type="image/png")
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), ssl_context=fetch_trusting_tls_context)
    url = fetch_https_server.url("/logo.png", host="images.test")

    fetched = fetch(url, policy, resolve=resolve_to("127.0.0.1"))

    assert fetched == Fetched(url=url, content_type="image/png", data=b"tls")
    assert fetch_https_server.requests[0]["host"] == f"images.test:{fetch_https_server.port}"


def test_fetch_https_refuses_certificate_for_another_hostname(
    fetch_https_server: Any, fetch_trusting_tls_context: ssl.SSLContext
) -> None:
    fetch_https_server.respond("/logo.png", b"tls", content_type="image/png")
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), ssl_context=fetch_trusting_tls_context)
    url = fetch_https_server.url("/logo.png", host="other.test")

    assert fetch_error_code(url, policy, resolve=resolve_to("127.0.0.1")) == "connection_failed"
    assert fetch_https_server.requests == []


def test_fetch_https_refuses_untrusted_certificate(fetch_https_server: Any) -> None:
    fetch_https_server.respond("/logo.png", b"tls", content_type="image/png")
    url = fetch_https_server.url("/logo.png", host="images.test")

    assert fetch_error_code(url, LOCAL, resolve=resolve_to("127.0.0.1")) == "connection_failed"
    assert fetch_https_server.requests == []
