"""python-anvil and forwarding (esign.signing.forwarding): create_etch_packet passes a signer's
``allowForward`` through (the published client keeps a signer's unknown keys), the signer then
forwards their turn over the signing page's API, and the client's own query call reaches the
extension mutation reassignEtchSigner, its answer and its refusal."""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core import mail

from esign.models import AuditEvent, Signer
from tests.esign.conftest import contract_pdf, send_queued_emails

REASSIGN = """mutation($s: String!, $name: String, $email: String) {
  reassignEtchSigner(signerEid: $s, name: $name, email: $email) {
    eid aliasId name status forwardedFrom { eid status }
  }
}"""
SIGNERS = "query($eid: String!) { etchPacket(eid: $eid) { documentGroup { signers { eid aliasId status allowForward } } } }"


def payload() -> dict[str, Any]:
    field = {
        "type": "signature",
        "pageNum": 0,
        "rect": {"x": 72, "y": 400, "width": 200, "height": 40},
    }
    return {
        "name": "Forwarded contract",
        "isTest": True,
        "signers": [
            {
                "id": "buyer",
                "name": "Ada Lovelace",
                "email": "ada@example.com",
                "signerType": "email",
                "allowForward": True,
                "fields": [{"fileId": "doc", "fieldId": "sig1"}],
            },
            {
                "id": "seller",
                "name": "Charles Babbage",
                "email": "charles@example.com",
                "signerType": "embedded",
                "fields": [{"fileId": "doc", "fieldId": "sig2"}],
            },
        ],
        "files": [
            {
                "id": "doc",
                "title": "Contract",
                "file": {
                    "data": base64.b64encode(contract_pdf(1)).decode(),
                    "filename": "contract.pdf",
                    "mimetype": "application/pdf",
                },
                "fields": [
                    {"id": "sig1", **field},
                    {"id": "sig2", **field, "rect": {**field["rect"], "y": 300}},
                ],
            }
        ],
    }


def post_json(url: str, token: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "X-Signing-Token": token},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - loopback
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.mark.django_db(transaction=True)
def test_python_anvil_creates_a_forwarding_packet_and_reassigns(
    python_anvil, live_server, settings
) -> None:
    settings.PUBLIC_BASE_URL = live_server.url
    created = python_anvil("create_etch_packet", payload=payload())
    assert "error" not in created, created
    packet = created["result"]["createEtchPacket"]
    shown = python_anvil("query", query=SIGNERS, variables={"eid": packet["eid"]})
    signers = shown["result"]["etchPacket"]["documentGroup"]["signers"]
    assert [(s["aliasId"], s["allowForward"]) for s in signers] == [
        ("buyer", True),
        ("seller", False),
    ]

    # Ada forwards from her signing link; Grace is emailed her own.
    assert send_queued_emails() == ["sent"]
    link = next(line for line in mail.outbox[-1].body.splitlines() if "/api/etch/verify/" in line)
    token = parse_qs(urlsplit(link).query)["token"][0]
    ada = signers[0]["eid"]
    status, answer = post_json(
        f"{live_server.url}/api/etch/sign/{ada}/forward",
        token,
        {"name": "Grace Hopper", "email": "grace@example.com"},
    )
    assert (status, answer["signerStatus"]) == (200, "forwarded")
    assert send_queued_emails() == ["sent"]
    assert mail.outbox[-1].to == ["grace@example.com"]

    # The sender reassigns the embedded seller through the client's own call.
    seller = signers[1]["eid"]
    refused = python_anvil(
        "query", query=REASSIGN, variables={"s": seller, "name": "G", "email": "GRACE@example.com"}
    )
    assert "error" in refused, refused
    assert "already a signer" in refused["error"]
    assert not Signer.objects.filter(forwarded_from__eid=seller).exists()
    done = python_anvil(
        "query", query=REASSIGN, variables={"s": seller, "name": "Mary Somerville", "email": ""}
    )
    assert "error" not in done, done
    mary = done["result"]["reassignEtchSigner"]
    assert (mary["aliasId"], mary["name"]) == ("seller-2", "Mary Somerville")
    assert mary["forwardedFrom"] == {"eid": seller, "status": "forwarded"}
    actions = AuditEvent.objects.filter(action__in=["signerForwarded", "signerAssigned"])
    assert actions.count() == 4


TYPED_OPTIONS = """mutation($name: String, $files: [EtchFile!], $signers: [JSON!], $isTest: Boolean,
  $expiresInDays: Int, $expiresAt: DateTime, $allowForward: Boolean) {
  createEtchPacket(name: $name, files: $files, signers: $signers, isTest: $isTest,
    expiresInDays: $expiresInDays, expiresAt: $expiresAt, allowForward: $allowForward) {
    eid expiresAt allowForward
  }
}"""


@pytest.mark.django_db(transaction=True)
def test_python_anvil_sends_the_typed_extension_options_as_a_raw_mutation(
    python_anvil, live_server, settings
) -> None:
    # create_etch_packet refuses keywords it does not know (expiresInDays...): the client's own
    # query call sends the mutation with them, typed Int, DateTime and Boolean (docs/esign.md).
    settings.PUBLIC_BASE_URL = live_server.url
    variables = {k: payload()[k] for k in ("name", "files", "signers", "isTest")}

    by_days = python_anvil(
        "query",
        query=TYPED_OPTIONS,
        variables={**variables, "expiresInDays": 7, "allowForward": True},
    )
    when = (datetime.now(UTC) + timedelta(days=100)).strftime("%Y-%m-%dT17:00:00")
    by_date = python_anvil(
        "query", query=TYPED_OPTIONS, variables={**variables, "expiresAt": when + "Z"}
    )
    wrong = python_anvil(
        "query", query=TYPED_OPTIONS, variables={**variables, "expiresInDays": "7"}
    )

    assert "error" not in by_days, by_days
    assert by_days["result"]["createEtchPacket"]["allowForward"] is True
    assert by_days["result"]["createEtchPacket"]["expiresAt"]
    assert by_date["result"]["createEtchPacket"]["expiresAt"] == when + ".000Z"
    assert "$expiresInDays" in wrong["error"], wrong
