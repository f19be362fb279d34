"""The safe URL fetcher: what it refuses, how fast it gives up, and that it still fetches."""

from __future__ import annotations

import base64
import logging
import socket
import ssl
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from core.engine.fetch import (
    Fetched,
    FetchError,
    FetchPolicy,
    data_url_size,
    decode_data_url,
    fetch,
    is_public_address,
)
from tests.core.engine.conftest import assert_gives_up_on_a_slow_resolver, dripping_body, timed

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


# --- addresses -----------------------------------------------------------------------------------


def test_fetch_refuses_loopback_without_allowlist_and_never_connects(
    fetch_http_server: Any,
) -> None:
    fetch_http_server.respond("/x", b"secret", content_type="image/png")

    assert fetch_error_code(fetch_http_server.url("/x"), FetchPolicy()) == "address_not_allowed"
    assert fetch_http_server.requests == []


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://127.1.2.3:8080/",
        "http://10.0.0.1/",
        "http://172.16.0.1/",
        "https://192.168.1.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://100.64.0.1/",
        "http://0.0.0.0/",
        "http://224.0.0.1/",
        "http://255.255.255.255/",
        "http://192.0.2.1/",
        "http://240.0.0.1/",
        "http://[::1]/",
        "http://[::]/",
        "http://[fc00::1]/",
        "http://[fd12:3456::1]/",
        "http://[fe80::1]/",
        "http://[fec0::1]/",
        "http://[ff02::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:10.0.0.1]/",
        "http://[::ffff:169.254.169.254]/",
        "http://[::127.0.0.1]/",
        "http://[2002:7f00:1::]/",  # 6to4 wrapping 127.0.0.1
        "http://[64:ff9b::a9fe:a9fe]/",  # NAT64 wrapping 169.254.169.254
        "http://[2001:db8::1]/",
    ],
)
def test_fetch_refuses_non_public_address_literals(url: str) -> None:
    assert fetch_error_code(url, FetchPolicy(), resolve=never_resolve) == "address_not_allowed"


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("8.8.8.8", True),
        ("1.1.1.1", True),
        ("2606:4700:4700::1111", True),
        ("64:ff9b::808:808", True),  # NAT64 of 8.8.8.8: fine on an IPv6-only host
        ("::ffff:8.8.8.8", True),
        ("127.0.0.1", False),
        ("10.1.2.3", False),
        ("100.127.255.255", False),
        ("169.254.169.254", False),
        ("224.0.0.251", False),
        ("::1", False),
        ("fe80::1%eth0", False),
    ],
)
def test_is_public_address(address: str, public: bool) -> None:
    assert is_public_address(address) is public


def test_fetch_refuses_hostname_resolving_to_private_address() -> None:
    resolve = resolve_to("10.0.0.5")

    code = fetch_error_code("http://images.example.com/a.png", FetchPolicy(), resolve=resolve)

    assert code == "address_not_allowed"
    assert resolve.calls == [("images.example.com", 80)]


def test_fetch_refuses_hostname_when_any_resolved_address_is_private() -> None:
    resolve = resolve_to("93.184.216.34", "192.168.0.10")

    code = fetch_error_code("https://images.example.com/a.png", FetchPolicy(), resolve=resolve)

    assert code == "address_not_allowed"
    assert resolve.calls == [("images.example.com", 443)]


def test_fetch_refuses_localhost_through_system_resolver(fetch_http_server: Any) -> None:
    url = fetch_http_server.url("/x", host="localhost")

    assert fetch_error_code(url, FetchPolicy()) == "address_not_allowed"
    assert fetch_http_server.requests == []


@pytest.mark.parametrize(
    "url",
    [
        "http://2130706433/",
        "http://0x7f000001/",
        "http://017700000001/",
        "http://127.1/",
        "http://0/",
        "http://LOCALHOST./",
    ],
)
def test_fetch_refuses_odd_spellings_of_loopback(url: str) -> None:
    # Not IP literals to ipaddress, but the system resolver turns them into 127.0.0.1 / 0.0.0.0,
    # and the check runs on what it returns.
    assert fetch_error_code(url, FetchPolicy()) == "address_not_allowed"


def test_fetch_connects_to_checked_address_with_original_host_header(
    fetch_http_server: Any,
) -> None:
    fetch_http_server.respond("/a.png", b"ok", content_type="image/png")
    resolve = resolve_to("127.0.0.1")
    policy = FetchPolicy(allow_hosts=frozenset({"Images.Test."}))

    fetched = fetch(fetch_http_server.url("/a.png", host="images.test"), policy, resolve=resolve)

    assert fetched.data == b"ok"
    # Resolved once: a second, different answer (DNS rebinding) is never asked for.
    assert resolve.calls == [("images.test", fetch_http_server.port)]
    assert fetch_http_server.requests[0]["host"] == f"images.test:{fetch_http_server.port}"


def test_fetch_tries_next_checked_address_when_first_refuses(fetch_http_server: Any) -> None:
    fetch_http_server.respond("/a", b"second", content_type="image/png")
    # 127.0.0.2 has nothing listening on the server's port; 127.0.0.1 does.
    resolve = resolve_to("127.0.0.2", "127.0.0.1")

    fetched = fetch(fetch_http_server.url("/a", host="images.test"), LOCAL, resolve=resolve)

    assert fetched.data == b"second"


def test_fetch_reports_connection_refused() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free_port = probe.getsockname()[1]

    assert fetch_error_code(f"http://127.0.0.1:{free_port}/", LOCAL) == "connection_failed"


def test_fetch_network_allowlist_does_not_cover_other_loopback_addresses(
    fetch_http_server: Any,
) -> None:
    fetch_http_server.respond("/x", b"x", content_type="image/png")
    url = fetch_http_server.url("/x", host="127.0.0.2")

    code = fetch_error_code(url, FetchPolicy(allow_networks=("127.0.0.1/32",)))

    assert code == "address_not_allowed"


def test_refused_address_is_logged_but_not_echoed(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="core.engine.fetch")
    resolve = resolve_to("169.254.169.254")

    with pytest.raises(FetchError) as caught:
        fetch("http://metadata.example/latest?token=s3cret", FetchPolicy(), resolve=resolve)

    assert caught.value.code == "address_not_allowed"
    assert str(caught.value) == "The URL points to an address that is not allowed."
    records = [r for r in caplog.records if r.name == "core.engine.fetch"]
    assert [r.levelno for r in records] == [logging.WARNING]
    message = records[0].getMessage()
    assert "169.254.169.254" in message
    assert "metadata.example" in message
    assert "s3cret" not in message


# --- resolution ----------------------------------------------------------------------------------


def test_fetch_reports_resolver_failure() -> None:
    def fail(host: str, port: int) -> list[str]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    assert fetch_error_code("http://nowhere.example/", FetchPolicy(), resolve=fail) == "dns_failed"


def test_fetch_reports_empty_resolution() -> None:
    assert (
        fetch_error_code("http://x.example/", FetchPolicy(), resolve=resolve_to()) == "dns_failed"
    )


def test_fetch_gives_up_on_slow_resolver_at_deadline() -> None:
    policy = FetchPolicy(deadline_seconds=0.3)
    assert_gives_up_on_a_slow_resolver(
        lambda resolve: fetch_error_code("http://slow.example/", policy, resolve=resolve)
    )


# --- schemes and URL shape -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "FILE:///etc/passwd",
        "ftp://ftp.example.com/a.png",
        "gopher://example.com/",
        "javascript:alert(1)",
        "/relative/path.png",
    ],
)
def test_fetch_refuses_other_schemes(url: str) -> None:
    assert fetch_error_code(url, LOCAL, resolve=never_resolve) == "scheme_not_allowed"


@pytest.mark.parametrize(
    "url",
    [
        "http:///no-host",
        "http://user:pw@127.0.0.1/",
        "http://127.0.0.1:99999/",
        "http://exa mple.com/",
        "http://[not-an-ip]/",
        "http://a..b/",
        "http://example.com/" + "a" * 9000,
    ],
)
def test_fetch_refuses_malformed_urls(url: str) -> None:
    assert fetch_error_code(url, LOCAL, resolve=never_resolve) == "invalid_url"


# --- redirects -----------------------------------------------------------------------------------


def test_fetch_refuses_redirect_by_default(fetch_http_server: Any) -> None:
    fetch_http_server.redirect("/start", fetch_http_server.url("/final"))
    fetch_http_server.respond("/final", b"x", content_type="image/png")

    assert fetch_error_code(fetch_http_server.url("/start"), LOCAL) == "redirect_refused"
    assert [r["path"] for r in fetch_http_server.requests] == ["/start"]


def test_fetch_follows_redirect_within_max(fetch_http_server: Any) -> None:
    fetch_http_server.redirect("/start", "/final", status=301)
    fetch_http_server.respond("/final", b"final", content_type="image/png")
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), max_redirects=1)

    fetched = fetch(fetch_http_server.url("/start"), policy)

    assert fetched == Fetched(
        url=fetch_http_server.url("/final"), content_type="image/png", data=b"final"
    )
    assert [r["path"] for r in fetch_http_server.requests] == ["/start", "/final"]


def test_fetch_refuses_redirects_beyond_max(fetch_http_server: Any) -> None:
    fetch_http_server.redirect("/a", "/b")
    fetch_http_server.redirect("/b", "/final")
    fetch_http_server.respond("/final", b"x", content_type="image/png")
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), max_redirects=1)

    assert fetch_error_code(fetch_http_server.url("/a"), policy) == "too_many_redirects"
    assert [r["path"] for r in fetch_http_server.requests] == ["/a", "/b"]


@pytest.mark.parametrize("max_redirects", [0, 1])
def test_fetch_refuses_redirect_to_private_address(
    fetch_http_server: Any, max_redirects: int
) -> None:
    fetch_http_server.redirect("/start", "http://10.0.0.1/admin")
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), max_redirects=max_redirects)

    code = fetch_error_code(fetch_http_server.url("/start"), policy)

    assert code == {0: "redirect_refused", 1: "address_not_allowed"}[max_redirects]


def test_fetch_rechecks_redirect_hop_against_allowlist(fetch_http_server: Any) -> None:
    # Allowed to reach 127.0.0.1 only; the server sends the fetcher on to 127.0.0.2.
    fetch_http_server.redirect("/start", fetch_http_server.url("/final", host="127.0.0.2"))
    fetch_http_server.respond("/final", b"x", content_type="image/png")
    policy = FetchPolicy(allow_networks=("127.0.0.1/32",), max_redirects=3)

    assert fetch_error_code(fetch_http_server.url("/start"), policy) == "address_not_allowed"
    assert [r["path"] for r in fetch_http_server.requests] == ["/start"]


def test_fetch_rechecks_redirect_hop_hostname(fetch_http_server: Any) -> None:
    fetch_http_server.redirect("/start", "http://internal.example/")
    resolve = resolve_to("192.168.1.20")
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), max_redirects=1)

    code = fetch_error_code(fetch_http_server.url("/start"), policy, resolve=resolve)

    assert code == "address_not_allowed"
    assert resolve.calls == [("internal.example", 80)]


@pytest.mark.parametrize("location", ["file:///etc/passwd", "data:image/png;base64,AAAA"])
def test_fetch_refuses_redirect_to_other_scheme(fetch_http_server: Any, location: str) -> None:
    fetch_http_server.redirect("/start", location)
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), max_redirects=1)

    assert fetch_error_code(fetch_http_server.url("/start"), policy) == "scheme_not_allowed"


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


# --- data: URLs ----------------------------------------------------------------------------------


def test_fetch_decodes_base64_data_url() -> None:
    url = "data:image/png;base64," + base64.b64encode(b"\x89PNG fake").decode()

    assert fetch(url, LOCAL) == Fetched(url=url, content_type="image/png", data=b"\x89PNG fake")


@pytest.mark.parametrize(
    ("url", "media_type", "data"),
    [
        ("data:,Hello%2C%20World", "text/plain", b"Hello, World"),
        ("data:text/plain;charset=utf-8,caf%C3%A9", "text/plain", b"caf\xc3\xa9"),
        ("DATA:Image/SVG+XML,%3Csvg%2F%3E", "image/svg+xml", b"<svg/>"),
        ("data:;base64,SGk=", "text/plain", b"Hi"),
        ("data:image/gif;base64,R0lG OD lh\n", "image/gif", b"GIF89a"),  # spaces, no padding
        ("data:image/png;base64,%2B%2F8%3D", "image/png", b"\xfb\xff"),
    ],
)
def test_decode_data_url(url: str, media_type: str, data: bytes) -> None:
    assert decode_data_url(url, max_bytes=100) == Fetched(
        url=url, content_type=media_type, data=data
    )


@pytest.mark.parametrize(
    "url",
    ["data:image/png;base64", "data:image/png;base64,****", "data:not a type,x", "http://x/"],
)
def test_decode_data_url_refuses_malformed(url: str) -> None:
    with pytest.raises(FetchError) as caught:
        decode_data_url(url, max_bytes=100)

    assert caught.value.code == "invalid_url"


def test_a_malformed_data_url_logs_nothing_of_its_text(caplog: pytest.LogCaptureFixture) -> None:
    # A fill value that merely starts with "data:" is the caller's data, never logged.
    caplog.set_level(logging.DEBUG, logger="core.engine.fetch")

    with pytest.raises(FetchError):
        decode_data_url("data:John Smith lives at 1 Main St,rest", max_bytes=100)

    assert caplog.records
    assert all("john smith" not in r.getMessage().lower() for r in caplog.records)


def test_data_url_size_counts_decoded_bytes() -> None:
    assert data_url_size("data:image/png;base64," + base64.b64encode(b"x" * 300).decode()) == 300
    assert data_url_size("data:,a%20b") == 3


def test_data_url_at_cap_is_too_large() -> None:
    url = "data:image/png;base64," + base64.b64encode(b"x" * 1000).decode()

    with pytest.raises(FetchError) as caught:
        fetch(url, FetchPolicy(max_bytes=1000))

    assert caught.value.code == "too_large"
    assert decode_data_url(url, max_bytes=1001).data == b"x" * 1000


def test_fetch_checks_data_url_media_type() -> None:
    policy = FetchPolicy(allowed_content_types=("image/",))

    assert fetch_error_code("data:text/html,<script>", policy) == "bad_content_type"


# --- policy --------------------------------------------------------------------------------------


def test_policy_refuses_bad_configuration() -> None:
    with pytest.raises(ValueError, match="does not appear to be an IPv4 or IPv6 network"):
        FetchPolicy(allow_networks=("intranet",))
    with pytest.raises(ValueError, match="deadline_seconds must be positive"):
        FetchPolicy(deadline_seconds=0)


def test_policy_normalises_allowlists() -> None:
    policy = FetchPolicy(
        allow_hosts=["Intranet.Example.", "images.test"],  # type: ignore[arg-type]
        allowed_content_types=("Image/",),
    )

    assert policy.allow_hosts == frozenset({"intranet.example", "images.test"})
    assert policy.allowed_content_types == ("image/",)
