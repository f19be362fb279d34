"""A signer's finish (POST /api/etch/sign/<eid>/complete) is a public write: only the signer's own
fields are taken, each value within a length its type allows, the whole body within
SIGNING_BODY_MAX_BYTES (refused before it is read), and nothing is stored on a refusal."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from esign.models import AuditEvent, Packet, Signer
from tests.esign.conftest import CREATE, sign, token_of, two_signer_packet

COMPLETE = "/api/etch/sign/{eid}/complete"
TYPED = {"signature": {"typed": "Ada Lovelace"}}


def _rect(y: int) -> dict[str, int]:
    return {"x": 72, "y": y, "width": 200, "height": 20}


def packet_with_every_value_type() -> dict[str, Any]:
    """The two-signer packet, with signer 1 also filling an email, a long text, a name, a date
    and a checkbox."""
    variables = copy.deepcopy(two_signer_packet())
    extra = [
        ("email1", "email"),
        ("notes1", "longText"),
        ("name1", "fullName"),
        ("when1", "date"),
        ("agree1", "checkbox"),
    ]
    for n, (field_id, kind) in enumerate(extra):
        variables["files"][0]["fields"].append(
            {"id": field_id, "type": kind, "pageNum": 0, "rect": _rect(400 - 30 * n)}
        )
        variables["signers"][0]["fields"].append({"fileId": "agreement", "fieldId": field_id})
    return variables


GOOD = {
    "agreement/title1": "Chief Analyst",
    "agreement/email1": "ada@example.com",
    "agreement/notes1": "Signed in London.",
    "agreement/name1": "Ada Lovelace",
    "agreement/when1": "1843-07-10",
    "agreement/agree1": True,
}


@pytest.fixture
def first_signer(
    graphql: Callable[..., dict[str, Any]], sign_url: Callable[..., str]
) -> tuple[str, str]:
    result = graphql(CREATE, packet_with_every_value_type())
    assert "errors" not in result, result
    signers = result["data"]["createEtchPacket"]["documentGroup"]["signers"]
    eid = next(s["eid"] for s in signers if s["aliasId"] == "client")
    return eid, token_of(sign_url(eid))


def assert_nothing_stored(eid: str) -> None:
    signer = Signer.objects.get(eid=eid)
    assert signer.status != "completed"
    assert signer.values == {}
    assert signer.completed_at is None
    assert Packet.objects.get(pk=signer.packet_id).status == "sent"
    assert not AuditEvent.objects.filter(signer=signer, action="signerCompleted").exists()


def test_the_signers_own_values_are_taken(first_signer: tuple[str, str]) -> None:
    eid, token = first_signer

    response = sign(Client(), eid, token, {**TYPED, "values": GOOD})

    assert response.status_code == 200, response.content
    assert Signer.objects.get(eid=eid).values == GOOD


def test_values_that_are_not_the_signers_fields_are_refused(
    first_signer: tuple[str, str],
) -> None:
    eid, token = first_signer
    values = {
        **GOOD,
        "agreement/nope": "x",
        "junk": "y" * 100_000,
        "agreement/sig2": "the other signer's field",
        "agreement/sig1": "a signature is adopted, not typed",
    }

    response = sign(Client(), eid, token, {**TYPED, "values": values})

    assert response.status_code == 400
    assert response.json() == {
        "name": "ValidationError",
        "fields": [
            {"property": f"values.{key}", "message": "Not a field this signer fills in."}
            for key in ("agreement/nope", "agreement/sig1", "agreement/sig2", "junk")
        ],
    }
    assert_nothing_stored(eid)


def test_each_value_is_capped_by_its_type(first_signer: tuple[str, str], settings) -> None:
    settings.SIGNING_TEXT_MAX_CHARS = 50
    eid, token = first_signer
    values = {
        **GOOD,
        "agreement/title1": "T" * 51,
        "agreement/notes1": "N" * 51,
        "agreement/email1": "a" * 250 + "@b.co",
        "agreement/name1": "A" * 256,
        "agreement/when1": "1" * 33,
        "agreement/agree1": "yes" * 1000,
    }

    response = sign(Client(), eid, token, {**TYPED, "values": values})

    assert response.status_code == 400
    assert response.json()["fields"] == [
        {"property": "agreement/title1", "message": "At most 50 characters."},
        {"property": "agreement/email1", "message": "At most 254 characters."},
        {"property": "agreement/notes1", "message": "At most 50 characters."},
        {"property": "agreement/name1", "message": "At most 255 characters."},
        {"property": "agreement/when1", "message": "At most 32 characters."},
        {"property": "agreement/agree1", "message": "Must be true or false."},
    ]
    assert_nothing_stored(eid)


def test_the_drawn_signature_is_capped_by_its_setting(
    first_signer: tuple[str, str], settings
) -> None:
    from tests.esign.test_packets import DRAWN

    settings.SIGNING_SIGNATURE_MAX_BYTES = 100
    eid, token = first_signer

    response = sign(Client(), eid, token, {"signature": {"drawn": DRAWN}, "values": GOOD})

    assert response.status_code == 400
    assert response.json()["fields"] == [
        {"property": "signature.drawn", "message": "Must be a PNG of at most 100 bytes."}
    ]
    assert_nothing_stored(eid)


def test_a_body_over_the_cap_is_refused(first_signer: tuple[str, str]) -> None:
    """The report's case: 100 unknown keys of 100 KB each (10 MB)."""
    eid, token = first_signer
    values = {**GOOD, **{f"k{n}": "x" * 100_000 for n in range(100)}}

    response = sign(Client(), eid, token, {**TYPED, "values": values})

    assert response.status_code == 413
    assert response.json() == {
        "name": "RequestTooLarge",
        "message": "The request is larger than the limit of 2 MB.",
    }
    assert_nothing_stored(eid)


def test_a_declared_body_over_the_cap_is_refused_unread(
    first_signer: tuple[str, str], settings
) -> None:
    """Content-Length says 60 MB and the body is a few bytes: answered without reading it (the
    test client's stream fails a read past what it holds)."""
    settings.SIGNING_BODY_MAX_BYTES = 10_240
    eid, token = first_signer

    response = Client().generic(
        "POST",
        COMPLETE.format(eid=eid),
        data=json.dumps({**TYPED, "values": GOOD}),
        content_type="application/json",
        HTTP_X_SIGNING_TOKEN=token,
        CONTENT_LENGTH=str(60 * 1_048_576),
    )

    assert response.status_code == 413
    assert response.json() == {
        "name": "RequestTooLarge",
        "message": "The request is larger than the limit of 10 KB.",
    }
    assert_nothing_stored(eid)
