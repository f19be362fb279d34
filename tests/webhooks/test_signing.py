"""The Standard Webhooks engine, checked against the standardwebhooks library; Retry-After."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

import pytest
from standardwebhooks import Webhook

from webhooks.engine.signing import (
    new_secret,
    retry_after_seconds,
    secret_key,
    sign,
    signature_headers,
)

NOW = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)


def test_a_new_secret_is_whsec_and_32_random_bytes() -> None:
    first, second = new_secret(), new_secret()

    assert first.startswith("whsec_")
    assert first != second
    assert len(secret_key(first)) == 32


def test_the_signature_is_the_one_the_library_computes() -> None:
    secret = new_secret()
    body = b'{"action":"webhookTest","token":"t","data":{"\xc3\xa9":1}}'

    ours = sign(secret=secret, message_id="msg_1", timestamp=1_700_000_000, body=body)

    theirs = Webhook(secret).sign(
        "msg_1", datetime.fromtimestamp(1_700_000_000, UTC), body.decode()
    )
    assert ours == theirs


def test_the_headers_carry_one_signature_per_secret_and_verify_with_either() -> None:
    old, new = new_secret(), new_secret()
    body = b'{"a":1}'
    timestamp = int(datetime.now(UTC).timestamp())

    headers = signature_headers(
        secrets=[new, old], message_id="msg_x", timestamp=timestamp, body=body
    )

    assert headers["webhook-id"] == "msg_x"
    assert headers["webhook-timestamp"] == str(timestamp)
    assert len(headers["webhook-signature"].split(" ")) == 2
    assert Webhook(old).verify(body, headers) == {"a": 1}
    assert Webhook(new).verify(body, headers) == {"a": 1}


@pytest.mark.parametrize(
    "secret",
    ["abc", "whsec_not*base64", "whsec_" + base64.b64encode(b"short").decode()],
)
def test_secret_key_refuses_what_is_not_a_secret(secret: str) -> None:
    with pytest.raises(ValueError, match="webhook secret"):
        secret_key(secret)


def test_signing_needs_a_secret() -> None:
    with pytest.raises(ValueError, match="at least one secret"):
        signature_headers(secrets=[], message_id="m", timestamp=1, body=b"")


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        (None, None),
        ("120", 120.0),
        (" 0 ", 0.0),
        ("Wed, 04 Mar 2026 05:07:07 GMT", 60.0),
        ("Wed, 04 Mar 2026 05:00:00 GMT", 0.0),
        ("soon", None),
        ("-5", None),
    ],
)
def test_retry_after_reads_seconds_and_http_dates(value: str | None, seconds: float | None) -> None:
    assert retry_after_seconds(value, now=NOW) == seconds
