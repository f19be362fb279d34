"""A signer's finish and decline read their JSON as the API does (core.parsers.decode_json):
text with NUL or another control character (PostgreSQL stores no NUL), a lone surrogate, or
nesting deeper than any body needs is a 400 in the wire shape naming the property, and nothing
about the signer changes. Before, NUL was a 500 on PostgreSQL and 100,000 nested ``[`` a
RecursionError (500) on either database."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from esign.models import AuditEvent, Signer
from tests.esign.conftest import token_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def first_signer(
    create_packet: Callable[..., dict[str, Any]], sign_url: Callable[..., str]
) -> tuple[str, str]:
    signers = create_packet()["documentGroup"]["signers"]
    eid = next(s["eid"] for s in signers if s["aliasId"] == "client")
    return eid, token_of(sign_url(eid))


def post(signer: tuple[str, str], action: str, raw: str) -> Any:
    eid, token = signer
    return Client().post(
        f"/api/etch/sign/{eid}/{action}",
        data=raw,
        content_type="application/json",
        HTTP_X_SIGNING_TOKEN=token,
    )


def assert_untouched(eid: str) -> None:
    signer = Signer.objects.get(eid=eid)
    assert signer.status == "sent"
    assert (signer.decline_reason, signer.signature_text, signer.values) == ("", "", {})
    assert not AuditEvent.objects.filter(
        signer=signer, action__in=["signerCompleted", "signerDeclined"]
    ).exists()


@pytest.mark.parametrize(
    ("action", "raw", "property"),
    [
        ("decline", '{"reason": "no\\u0000thanks"}', "reason"),
        ("decline", '{"reason": "esc \\u001b[31m"}', "reason"),
        ("decline", '{"reason": "half \\ud800"}', "reason"),
        ("complete", '{"signature": {"typed": "Ada\\u0000"}}', "signature.typed"),
        (
            "complete",
            '{"signature": {"typed": "Ada"}, "values": {"agreement/title1": "x\\u0000"}}',
            "values.agreement/title1",
        ),
        ("complete", '{"signature": {"typed": "Ada"}, "initials": "\\u0000"}', "initials"),
    ],
)
def test_text_that_is_no_text_is_a_400_naming_it(
    first_signer: tuple[str, str], action: str, raw: str, property: str
) -> None:
    response = post(first_signer, action, raw)

    assert response.status_code == 400, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["name"] == "ValidationError"
    assert [f["property"] for f in body["fields"]] == [property]
    assert_untouched(first_signer[0])


@pytest.mark.parametrize("action", ["decline", "complete"])
def test_a_body_nested_100000_deep_is_a_400(first_signer: tuple[str, str], action: str) -> None:
    response = post(first_signer, action, "[" * 100_000 + "]" * 100_000)

    assert response.status_code == 400, response.content[:300]
    body = response.json()
    assert body["name"] == "ValidationError"
    assert "nested too deeply" in body["fields"][0]["message"]
    assert_untouched(first_signer[0])


def test_a_reason_on_several_lines_with_tabs_is_taken(first_signer: tuple[str, str]) -> None:
    response = post(first_signer, "decline", '{"reason": "Not now.\\r\\n\\tWrong address."}')

    assert response.status_code == 200, response.content
    signer = Signer.objects.get(eid=first_signer[0])
    assert (signer.status, signer.decline_reason) == ("declined", "Not now.\r\n\tWrong address.")
