"""The URLs the safe URL fetcher follows: the schemes and URL shapes it refuses, redirects (off by
default, bounded, each hop checked again), data: URLs, and the policy's own checks."""

from __future__ import annotations

import base64
import logging
from typing import Any

import pytest

from core.engine.fetch import (
    Fetched,
    FetchError,
    FetchPolicy,
    data_url_size,
    decode_data_url,
    fetch,
)
from tests.core.engine.conftest import LOCAL, fetch_error_code, never_resolve, resolve_to

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
