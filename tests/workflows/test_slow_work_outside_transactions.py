"""No slow work under a lock or inside a transaction: filling a workflow's signing documents,
stamping a signature and storing a packet's PDFs all run before the transaction that records
them (on SQLite, IMMEDIATE transactions would otherwise block every writer meanwhile)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from django.test import Client

import esign.sending.packets
import esign.signing.turns
from accounts.models import Organization
from templates_app.models import PdfTemplate
from tests.esign.conftest import CREATE, SIGN_URL, sign, token_of, two_signer_packet
from tests.workflows.test_signing_step import nda, submit_nda

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def in_transaction(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[bool]]:
    """For each slow step, whether it ran inside a transaction, call by call."""
    seen: dict[str, list[bool]] = {}

    def watch(module: Any, name: str) -> None:
        original = getattr(module, name)

        def watched(*args: Any, **kwargs: Any) -> Any:
            seen.setdefault(name, []).append(connection.in_atomic_block)
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, watched)

    watch(esign.sending.packets, "fill_source")
    watch(esign.sending.packets, "blob_save")
    watch(esign.signing.turns, "stamp_pdf")
    return seen


def test_a_workflows_signing_documents_are_filled_before_its_transaction(
    organization: Organization, demo_template: PdfTemplate, in_transaction
) -> None:
    workflow = nda(organization, demo_template)
    done = submit_nda(Client(), workflow)

    assert done.status_code == 200
    assert in_transaction["fill_source"] == [False]
    assert in_transaction["blob_save"] == [False]


def test_a_signature_is_stamped_before_the_packets_lock(api_client, in_transaction) -> None:
    def gql(query: str, variables: dict[str, Any]) -> dict[str, Any]:
        body = json.dumps({"query": query, "variables": variables})
        return api_client.post("/graphql", data=body, content_type="application/json").json()

    packet = gql(CREATE, two_signer_packet())["data"]["createEtchPacket"]
    assert set(in_transaction["blob_save"]) == {False}
    signer = packet["documentGroup"]["signers"][0]["eid"]
    url = gql(SIGN_URL, {"signerEid": signer, "clientUserId": "u"})["data"]
    body = {"signature": {"typed": "Ada"}, "values": {"agreement/title1": "CTO"}}

    answer = sign(Client(), signer, token_of(url["generateEtchSignURL"]), body)

    assert answer.status_code == 200, answer.content
    assert in_transaction["stamp_pdf"] == [False]
