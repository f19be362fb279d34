"""`fetch()`'s caller headers (the single sign-on's userinfo sends its bearer token with them):
sent to the URL asked for, never to where it redirects, checked before anything is sent."""

from __future__ import annotations

from typing import Any

import pytest

from core.engine.fetch import FetchPolicy, fetch

LOCAL = FetchPolicy(allow_networks=("127.0.0.0/8",))


def test_fetch_sends_the_callers_headers_over_the_defaults(fetch_http_server: Any) -> None:
    fetch_http_server.respond("/me", b"{}", content_type="application/json")

    fetch(
        fetch_http_server.url("/me"),
        LOCAL,
        headers={"Authorization": "Bearer t0ken", "accept": "application/json"},
    )

    request = fetch_http_server.requests[0]
    assert request["authorization"] == "Bearer t0ken"
    assert request["accept"] == "application/json"
    assert request["user-agent"] == LOCAL.user_agent


def test_a_redirect_hop_gets_none_of_the_callers_headers(fetch_http_server: Any) -> None:
    # Even to the same server: the headers were meant for one URL.
    fetch_http_server.redirect("/start", "/final")
    fetch_http_server.respond("/final", b"x", content_type="application/json")
    policy = FetchPolicy(allow_networks=("127.0.0.0/8",), max_redirects=1)

    fetch(fetch_http_server.url("/start"), policy, headers={"Authorization": "Bearer t0ken"})

    start, final = fetch_http_server.requests
    assert start["authorization"] == "Bearer t0ken"
    assert "authorization" not in final
    assert final["user-agent"] == policy.user_agent


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({"Host": "elsewhere.example"}, "set by the fetcher"),
        ({"Bad Name": "x"}, "invalid header name"),
        ({"Authorization": "Bearer a\r\nX-Injected: 1"}, "invalid value"),
    ],
)
def test_a_bad_header_is_refused_before_anything_is_sent(
    fetch_http_server: Any, headers: dict[str, str], message: str
) -> None:
    fetch_http_server.respond("/me", b"{}", content_type="application/json")

    with pytest.raises(ValueError, match=message):
        fetch(fetch_http_server.url("/me"), LOCAL, headers=headers)

    assert fetch_http_server.requests == []
