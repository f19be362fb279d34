"""A line break in a value that becomes an email header (or a file name) is refused up front.

Before, ``name: "Hello\r\nBcc: x@example.com"`` stored the packet as sent, then the signing
email raised BadHeaderError after the commit: ``Internal server error.`` inside a 200, no email,
and an embedded first signer's complete answered 500 after saving the signature.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core import mail
from django.test import Client

from esign.models import Packet
from tests.esign.conftest import CREATE, send_queued_emails, sign, token_of, two_signer_packet

# createEtchPacket with the arguments that become email headers declared too.
CREATE_WITH_EMAIL = CREATE.replace(
    "$mergePDFs: Boolean) {",
    "$mergePDFs: Boolean, $signatureEmailSubject: String, $replyToName: String) {",
).replace(
    "mergePDFs: $mergePDFs) {",
    "mergePDFs: $mergePDFs, signatureEmailSubject: $signatureEmailSubject,"
    " replyToName: $replyToName) {",
)

INJECTED = "Hello\r\nBcc: x@example.com"


def _post(api_client: Client, variables: dict[str, Any]):
    return api_client.post(
        "/graphql",
        data=json.dumps({"query": CREATE_WITH_EMAIL, "variables": variables}),
        content_type="application/json",
    )


def _with(path: str, value: str) -> dict[str, Any]:
    variables = two_signer_packet()
    target: Any = variables
    *parents, last = path.split(".")
    for part in parents:
        target = target[int(part)] if part.isdigit() else target[part]
    target[last] = value
    return variables


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("name", INJECTED),
        ("signatureEmailSubject", INJECTED),
        ("replyToName", "Ada\nBcc: x@example.com"),
        ("signers.0.name", "Ada\rLovelace"),
        ("files.0.title", "Agreement\u2028Bcc: x"),
        ("files.0.filename", "agreement\n.pdf"),
        # NEL, a line break; NUL and the other C0 controls are refused as the body is read
        # (tests/core/test_text_at_the_door.py).
        ("files.0.file.filename", "agree\x85ment.pdf"),
    ],
)
def test_a_line_break_is_a_400_on_the_property_and_stores_nothing(
    api_client: Client, path: str, value: str
) -> None:
    assert "signatureEmailSubject: $signatureEmailSubject" in CREATE_WITH_EMAIL
    response = _post(api_client, _with(path, value))

    # GraphQL answers 200 with the error's own status in its extensions (as for every error).
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["data"]["createEtchPacket"] is None
    error = body["errors"][0]
    assert (error["extensions"]["code"], error["extensions"]["status"]) == ("ValidationError", 400)
    assert {f["property"] for f in error["extensions"]["fields"]} == {path}
    assert Packet.objects.count() == 0
    assert mail.outbox == []


def test_a_title_made_of_answers_still_gives_a_one_line_subject(
    api_client: Client, client: Client, sign_url, django_capture_on_commit_callbacks
) -> None:
    """A packet name that reached the database some other way (a workflow's title is made of a
    webform's answers) must not break the email of the next signer."""
    variables = two_signer_packet()
    variables["signers"][1]["signerType"] = "email"
    response = _post(api_client, variables)
    packet = response.json()["data"]["createEtchPacket"]
    Packet.objects.filter(eid=packet["eid"]).update(name=INJECTED)
    first = packet["documentGroup"]["signers"][0]["eid"]

    with django_capture_on_commit_callbacks(execute=True):
        answer = sign(
            client,
            first,
            token_of(sign_url(first)),
            {"signature": {"typed": "Ada Lovelace"}, "values": {"agreement/title1": "CTO"}},
        )

    assert answer.status_code == 200, answer.content
    assert send_queued_emails() == ["sent"]
    assert [m.to for m in mail.outbox] == [["charles@example.com"]]
    assert mail.outbox[0].subject == "Please sign: Hello Bcc: x@example.com"
    headers = mail.outbox[0].message().as_string().split("\n\n")[0]
    assert "Bcc" not in headers.replace("Subject: Please sign: Hello Bcc: x@example.com", "")
