"""Where the safe URL fetcher may connect: loopback, private and odd spellings refused before any
connection, every resolved address checked, the checked address connected to, and the
resolver's failures and slowness."""

from __future__ import annotations

import logging
import socket
from typing import Any

import pytest

from core.engine.fetch import FetchError, FetchPolicy, fetch, is_public_address
from tests.core.engine.conftest import (
    LOCAL,
    assert_gives_up_on_a_slow_resolver,
    fetch_error_code,
    never_resolve,
    resolve_to,
)

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
