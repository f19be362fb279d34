"""Signing groups and witnesses when a turn is handed on (esign.signing.forwarding): a successor,
whether the member forwarded from the signing page or the sender reassigned them, stands where
the original stood: in their group (so the group's ``required`` counts them, and once it is
reached the others are skipped and refused), as a witness of the same signer. A witness of a
signer whose turn was handed on witnesses the successor: their page, their trail entry and the
trail PDF name who actually signed. GraphQL answers ``group`` and ``witnessFor`` as the
clients read them."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from django.test import Client

from esign.links.tokens import signer_token_issue
from esign.models import AuditEvent, Packet, Signer
from esign.packets.documents import document_pdf
from esign.sealing.certificate import audit_trail_pdf
from tests.esign.conftest import sign, signing_post
from tests.esign.test_signing_groups import (
    SIGNERS,
    created,
    group_packet,
    sign_up_to_the_group,
    signed,
    signer,
)
from tests.pdfcheck import words

pytestmark = pytest.mark.django_db

REASSIGN = """mutation($s: String!, $name: String, $email: String) {
  reassignEtchSigner(signerEid: $s, name: $name, email: $email) {
    eid aliasId name status role witnessFor group { id required signedBy { aliasId } }
  }
}"""


def reassigned(graphql: Any, signer_eid: str, name: str, email: str = "") -> dict[str, Any]:
    result = graphql(REASSIGN, {"s": signer_eid, "name": name, "email": email})
    assert "errors" not in result, result
    return result["data"]["reassignEtchSigner"]


def shown_signers(graphql: Any, packet_eid: str) -> dict[str, dict[str, Any]]:
    shown = graphql(SIGNERS, {"eid": packet_eid})["data"]["etchPacket"]
    return {s["aliasId"]: s for s in shown["documentGroup"]["signers"]}


def statuses(packet_eid: str) -> dict[str, str]:
    return dict(Packet.objects.get(eid=packet_eid).signers.values_list("alias_id", "status"))


def page_of(person: Signer) -> str:
    token = signer_token_issue(signer=person)
    page = Client().get(f"/api/etch/verify/{person.eid}?token={token}")
    assert page.status_code == 200, page.content
    return page.content.decode()


def refused_for_the_group(alias: str) -> None:
    """``alias`` signing now is refused as a skipped member is, and nothing of theirs written."""
    answer = signed(alias)
    assert answer.status_code == 403, answer.content
    assert answer.json()["reason"] == "groupSigned"
    person = Signer.objects.get(alias_id=alias)
    assert (person.status, person.signature_text, person.completed_at) == ("skipped", "", None)
    assert not AuditEvent.objects.filter(signer=person, action="signerCompleted").exists()


def document_text(packet_eid: str) -> str:
    pdf = document_pdf(Packet.objects.get(eid=packet_eid).documents.get())
    return " ".join(w.text for page in words(pdf) for w in page)


def test_a_member_who_forwards_from_the_page_hands_on_their_place_in_the_group(graphql) -> None:
    variables = group_packet(required=1)
    for member in variables["signers"][2:]:
        member["allowForward"] = True
    packet = created(graphql, variables)
    sign_up_to_the_group(packet["eid"])
    babbage = signer(packet["eid"], "babbage")

    answer = signing_post(
        Client(),
        babbage.eid,
        signer_token_issue(signer=babbage),
        "forward",
        {"name": "Ada Byron", "email": "byron@example.com"},
    )

    assert answer.status_code == 200, answer.content
    byron = Signer.objects.get(forwarded_from=babbage)
    assert (byron.signing_group, byron.signing_group_required) == ("directors", 1)
    assert (byron.role, byron.witness_for) == ("signer", "")
    # Her page: the group still has three members (Babbage's place is hers).
    assert "signatures needed, 1 of 3" in page_of(byron)

    assert signed(byron.alias_id).status_code == 200
    refused_for_the_group("somerville")
    assert statuses(packet["eid"]) == {
        "client": "completed",
        "witness": "completed",
        "babbage": "forwarded",
        "babbage-2": "completed",
        "somerville": "skipped",
        "turing": "skipped",
    }
    assert Packet.objects.get(eid=packet["eid"]).status == "completed"
    skip = AuditEvent.objects.get(action="signerSkipped", signer__alias_id="somerville")
    assert (skip.detail["signedBy"], skip.detail["signedByIds"]) == (["Ada Byron"], ["babbage-2"])
    text = document_text(packet["eid"])
    assert "Ada Byron" in text
    assert "Mary Somerville" not in text
    rows = shown_signers(graphql, packet["eid"])
    assert rows["babbage-2"]["group"] == {
        "id": "directors",
        "required": 1,
        "signedBy": [{"aliasId": "babbage-2", "name": "Ada Byron"}],
    }
    assert rows["babbage-2"]["role"] == "signer"


def test_the_sender_reassigns_a_member_and_the_successor_is_skipped_once_the_group_signed(
    graphql,
) -> None:
    packet = created(graphql, group_packet(required=1))
    sign_up_to_the_group(packet["eid"])
    babbage = signer(packet["eid"], "babbage")
    old_link = signer_token_issue(signer=babbage)

    byron = reassigned(graphql, babbage.eid, "Ada Byron", "byron@example.com")

    # The mutation's answer, as a client reads it: the successor is in the group.
    assert byron["aliasId"] == "babbage-2"
    assert byron["group"] == {"id": "directors", "required": 1, "signedBy": []}
    assert (byron["role"], byron["witnessFor"]) == ("signer", None)

    assert signed("somerville").status_code == 200
    refused_for_the_group("babbage-2")
    # Babbage's own link ended when his turn went to her.
    gone = sign(Client(), babbage.eid, old_link, {"signature": {"typed": "Charles Babbage"}})
    assert gone.status_code == 403
    assert gone.json()["reason"] == "signerForwarded"
    assert statuses(packet["eid"])["babbage"] == "forwarded"
    assert statuses(packet["eid"])["turing"] == "skipped"
    assert Packet.objects.get(eid=packet["eid"]).status == "completed"
    assert "Ada Byron" not in document_text(packet["eid"])
    assert shown_signers(graphql, packet["eid"])["babbage-2"]["group"]["signedBy"] == [
        {"aliasId": "somerville", "name": "Mary Somerville"}
    ]


def test_a_reassigned_witness_successor_is_a_witness_of_the_same_signer(graphql) -> None:
    packet = created(graphql, group_packet())
    witness = signer(packet["eid"], "witness")

    johnson = reassigned(graphql, witness.eid, "Katherine Johnson")

    assert (johnson["aliasId"], johnson["role"], johnson["witnessFor"]) == (
        "witness-2",
        "witness",
        "client",
    )
    assert johnson["group"] is None
    successor = Signer.objects.get(alias_id="witness-2")
    assert "As a witness to the signature of <strong><bdi>Ada Lovelace</bdi></strong>" in page_of(
        successor
    )
    assert signed("witness-2").status_code == 409  # Ada has not signed yet: still a witness's turn
    assert signed("client", values={"agreement/title1": "Chief Analyst"}).status_code == 200
    assert signed("witness-2").status_code == 200
    entry = AuditEvent.objects.get(signer=successor, action="signerCompleted")
    assert entry.detail == {"witnessFor": "client", "witnessed": "Ada Lovelace"}


def test_a_witness_of_a_reassigned_signer_witnesses_the_one_who_signs(graphql) -> None:
    packet = created(graphql, group_packet())
    ada = signer(packet["eid"], "client")
    witness = signer(packet["eid"], "witness")

    shelley = reassigned(graphql, ada.eid, "Mary Shelley")

    assert (shelley["aliasId"], shelley["role"], shelley["witnessFor"]) == (
        "client-2",
        "signer",
        None,
    )
    rows = shown_signers(graphql, packet["eid"])
    assert (rows["witness"]["role"], rows["witness"]["witnessFor"]) == ("witness", "client-2")
    assert "As a witness to the signature of <strong><bdi>Mary Shelley</bdi></strong>" in page_of(
        witness
    )
    assigned = AuditEvent.objects.get(signer__alias_id="client-2", action="signerAssigned")
    assert assigned.detail["witnessedBy"] == ["witness"]

    assert signed("client-2", values={"agreement/title1": "Chief Analyst"}).status_code == 200
    assert signed("witness").status_code == 200
    entry = AuditEvent.objects.get(signer=witness, action="signerCompleted")
    assert entry.detail == {"witnessFor": "client-2", "witnessed": "Mary Shelley"}
    row = Packet.objects.get(eid=packet["eid"])
    pdf = audit_trail_pdf(row, credentials=SimpleNamespace(subject="Test seal"))  # type: ignore[arg-type]
    trail = " ".join(w.text for page in words(pdf) for w in page)
    assert "witnessed the signature of Mary Shelley" in trail
    assert "witnessed the signature of Ada Lovelace" not in trail
