"""Approvers and viewers (``role: "approver"`` / ``"viewer"`` in the signer JSON, issue 51 item 2):
bad values are the wire's ValidationError with nothing stored; an approver approves (finishes
with nothing to stamp) or rejects with a reason (which declines the packet); a viewer is sent a
link to read at their routing order (or at the end), is never waited for, and has finished once
the packet completes; the audit trail, its PDF, the emails and the webhook events say so."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko_certvalidator import ValidationContext

from esign.links.tokens import signer_token_issue
from esign.models import AuditEvent, Packet, Signer, SignerEmail
from esign.sealing.config import trust_roots
from esign.sealing.seal import packet_seal
from tests.esign.conftest import CREATE, send_queued_emails, sign, two_signer_packet
from tests.pdfcheck import render, words
from tests.templates_app.conftest import ARTIFACTS
from webhooks.models import WebhookEvent

pytestmark = pytest.mark.django_db

SHOTS = ARTIFACTS / "esign"

SIGNERS = """
query Packet($eid: String!) {
  etchPacket(eid: $eid) { status numberRemainingSigners documentGroup { signers {
    aliasId status role routingOrder } } }
}
"""


def roles_packet(**overrides: Any) -> dict[str, Any]:
    """Ada signs (1); Grace Hopper approves (2) while Alan Turing reads (a viewer at 2);
    Charles Babbage signs (3); Mary Somerville gets the documents at the end (a viewer given no
    routing order). Email signers but Ada and Charles, who are embedded."""
    variables = two_signer_packet()
    client, provider = variables["signers"]
    provider["routingOrder"] = 3
    approver = {
        "id": "manager",
        "name": "Grace Hopper",
        "email": "grace@example.com",
        "routingOrder": 2,
        "role": "approver",
        "fields": [],
    }
    reader = {
        "id": "auditor",
        "name": "Alan Turing",
        "email": "alan@example.com",
        "routingOrder": 2,
        "role": "viewer",
        "fields": [],
    }
    copy = {"id": "cc", "name": "Mary Somerville", "email": "mary@example.com", "role": "viewer"}
    variables["signers"] = [client, approver, reader, provider, copy]
    variables.update(overrides)
    return variables


def assert_seals_valid(archive: zipfile.ZipFile) -> None:
    """Every PDF of the sealed zip carries the service's seal, which pyHanko validates (intact,
    valid, trusted, over the whole file)."""
    for name in archive.namelist():
        seal = PdfFileReader(io.BytesIO(archive.read(name))).embedded_regular_signatures[0]
        status = validate_pdf_signature(seal, ValidationContext(trust_roots=trust_roots()))
        assert (status.intact, status.valid, status.trusted) == (True, True, True), name
        assert status.coverage.name == "ENTIRE_FILE", name


def sealed_b_b_archive(api_client: Client, packet: dict[str, Any]) -> zipfile.ZipFile:
    """Seal the created ``packet`` (PAdES-B-B: no TSA) and download its zip, every seal in it
    valid."""
    assert packet_seal(packet_id=Packet.objects.get(eid=packet["eid"]).pk) == "sealed (PAdES-B-B)"
    response = api_client.get(
        packet["documentGroup"]["downloadZipURL"].replace("http://127.0.0.1:8000", "")
    )
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert_seals_valid(archive)
    return archive


def created(graphql, variables: dict[str, Any]) -> dict[str, Any]:
    result = graphql(CREATE, variables)
    assert "errors" not in result, result
    return result["data"]["createEtchPacket"]


def acts(alias: str, path: str = "complete", **body: Any) -> Any:
    """``alias`` posts ``body`` to the signing API's ``path`` with a new link of theirs."""
    person = Signer.objects.get(alias_id=alias)
    token = signer_token_issue(signer=person)
    if path == "complete":
        return sign(Client(), person.eid, token, body)
    return Client().post(
        f"/api/etch/sign/{person.eid}/{path}",
        data=json.dumps(body),
        content_type="application/json",
        HTTP_X_SIGNING_TOKEN=token,
    )


def statuses(eid: str) -> dict[str, str]:
    return dict(Packet.objects.get(eid=eid).signers.values_list("alias_id", "status"))


def client_signs() -> None:
    done = acts(
        "client", signature={"typed": "Ada Lovelace"}, values={"agreement/title1": "Analyst"}
    )
    assert done.status_code == 200, done.content


def properties(result: dict[str, Any]) -> list[str]:
    assert result["errors"][0]["extensions"]["code"] == "ValidationError", result
    return [f["property"] for f in result["errors"][0]["extensions"]["fields"]]


def _with(change: Any) -> dict[str, Any]:
    variables = roles_packet()
    change(variables["signers"])
    return variables


@pytest.mark.parametrize(
    ("change", "property_"),
    [
        (lambda s: s[1].update(role="boss"), "signers.1.role"),
        (lambda s: s[1].update(role=["approver"]), "signers.1.role"),
        (
            lambda s: s[1].update(fields=[{"fileId": "agreement", "fieldId": "title1"}]),
            "signers.1.fields",
        ),
        (lambda s: s[2].update(group={"id": "readers"}), "signers.2.group"),
        (lambda s: s[2].update(witnessFor="client"), "signers.2.witnessFor"),
        (lambda s: s[4].update(attachments=[{"id": "id"}]), "signers.4.attachments"),
        (
            lambda s: s.append(
                {
                    "id": "w",
                    "name": "Witness",
                    "email": "w@example.com",
                    "routingOrder": 4,
                    "role": "witness",
                    "witnessFor": "manager",
                    "fields": [],
                }
            ),
            "signers.5.witnessFor",
        ),
        (lambda s: [each.update(role="viewer", fields=[]) for each in s], "signers"),
    ],
)
def test_a_bad_role_is_refused_with_nothing_stored(graphql, change, property_) -> None:
    result = graphql(CREATE, _with(change))

    assert property_ in properties(result)
    assert Packet.objects.count() == 0
    assert Signer.objects.count() == 0


def test_an_approver_and_viewers_take_their_turns(graphql) -> None:
    packet = created(graphql, roles_packet())
    eid = packet["eid"]
    orders = {s["aliasId"]: s["routingOrder"] for s in packet["documentGroup"]["signers"]}
    # The viewer given no routing order reads at the end: after everyone else's.
    assert orders == {"client": 1, "manager": 2, "auditor": 2, "provider": 3, "cc": 4}
    assert statuses(eid) == {
        "client": "sent",
        "manager": "created",
        "auditor": "created",
        "provider": "created",
        "cc": "created",
    }
    # Nobody waits for the viewers: Ada, Grace and Charles remain.
    shown = graphql(SIGNERS, {"eid": eid})["data"]["etchPacket"]
    assert shown["numberRemainingSigners"] == 3
    roles = {s["aliasId"]: s["role"] for s in shown["documentGroup"]["signers"]}
    assert (roles["manager"], roles["auditor"], roles["client"]) == ("approver", "viewer", "signer")

    client_signs()
    assert statuses(eid) == {
        "client": "completed",
        "manager": "sent",
        "auditor": "sent",
        "provider": "created",
        "cc": "created",
    }
    sent = SignerEmail.objects.filter(kind="signing").order_by("pk")
    assert sorted(e.signer.alias_id for e in sent) == ["auditor", "manager"]
    send_queued_emails()
    subjects = {m.to[0]: m.subject for m in mail.outbox}
    assert subjects["grace@example.com"] == "Please approve: Services agreement"
    assert subjects["alan@example.com"] == "To read: Services agreement"
    body = next(m.body for m in mail.outbox if m.to == ["alan@example.com"])
    assert "shared with you to read; you have nothing to sign" in body

    # The viewer cannot finish anything; opening the link is their "viewed".
    assert acts("auditor").status_code == 409
    reader = Signer.objects.get(alias_id="auditor")
    page = Client().get(f"/api/etch/verify/{reader.eid}?token={signer_token_issue(signer=reader)}")
    assert page.status_code == 200
    assert b'id="sg-finish"' not in page.content
    assert b'id="sg-approve"' not in page.content
    assert statuses(eid)["auditor"] == "viewed"

    # The approver approves: no signature, nothing stamped.
    approver = Signer.objects.get(alias_id="manager")
    page = Client().get(
        f"/api/etch/verify/{approver.eid}?token={signer_token_issue(signer=approver)}"
    )
    assert b'id="sg-approve"' in page.content
    assert b'id="sg-finish"' not in page.content
    approved = acts("manager")
    assert approved.status_code == 200, approved.content
    assert approved.json()["event"]["signerStatus"] == "completed"
    entry = AuditEvent.objects.get(signer__alias_id="manager", action="signerApproved")
    assert entry.detail == {"decision": "approved"}
    assert statuses(eid)["provider"] == "sent"

    done = acts("provider", signature={"typed": "Charles Babbage"})
    assert done.status_code == 200, done.content
    assert Packet.objects.get(eid=eid).status == "completed"
    assert set(statuses(eid).values()) == {"completed"}
    copied = AuditEvent.objects.filter(signer__alias_id="cc").values_list("action", flat=True)
    assert list(copied) == ["viewerNotified", "viewerCompleted"]
    completions = WebhookEvent.objects.filter(action="signerComplete")
    roles_done = {e.data["signer"]["aliasId"]: e.data["signer"]["role"] for e in completions}
    assert roles_done == {
        "client": "signer",
        "manager": "approver",
        "provider": "signer",
        "auditor": "viewer",
        "cc": "viewer",
    }
    final = WebhookEvent.objects.get(action="etchPacketComplete").data
    assert {s["aliasId"]: s["status"] for s in final["signers"]}["cc"] == "completed"


def test_the_sealed_packet_and_its_trail_name_the_approval_and_the_copies(
    graphql, api_client: Client
) -> None:
    packet = created(graphql, roles_packet())
    client_signs()
    assert acts("manager").status_code == 200
    assert acts("provider", signature={"typed": "Charles Babbage"}).status_code == 200
    row = Packet.objects.get(eid=packet["eid"])
    mail.outbox.clear()
    SignerEmail.objects.all().delete()

    assert packet_seal(packet_id=row.pk) == "sealed (PAdES-B-B)"

    # Every email recipient who finished gets their copy: the approver and both viewers too.
    send_queued_emails()
    assert sorted(m.to[0] for m in mail.outbox) == [
        "alan@example.com",
        "grace@example.com",
        "mary@example.com",
    ]
    response = api_client.get(
        packet["documentGroup"]["downloadZipURL"].replace("http://127.0.0.1:8000", "")
    )
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert_seals_valid(archive)
    trail = " ".join(w.text for page in words(archive.read("audit-trail.pdf")) for w in page)
    SHOTS.mkdir(parents=True, exist_ok=True)  # to look at
    for number in range(2):
        picture = render(archive.read("audit-trail.pdf"), page=number, dpi=100)
        picture.save(SHOTS / f"roles-audit-trail-page-{number + 1}.png")
    assert "Approver: approves or rejects, signs nothing" in trail
    assert "Viewer: receives the documents, signs nothing" in trail
    assert "Approved" in trail
    assert "Asked to approve" in trail
    assert "Sent the documents to read" in trail
    assert "Has the completed documents" in trail
    # The signed document holds the signers' marks, and nothing of the approver's.
    document = [n for n in archive.namelist() if n != "audit-trail.pdf"][0]
    text = " ".join(w.text for page in words(archive.read(document)) for w in page)
    assert "Ada Lovelace" in text
    assert "Grace Hopper" not in text


def test_an_approver_rejects_with_a_reason_and_the_packet_is_declined(graphql) -> None:
    packet = created(graphql, roles_packet())
    client_signs()

    silent = acts("manager", path="decline", reason="  ")
    assert silent.status_code == 400
    assert silent.json()["fields"][0]["property"] == "reason"
    assert statuses(packet["eid"])["manager"] == "sent"

    rejected = acts("manager", path="decline", reason="The fee is wrong.")

    assert rejected.status_code == 200, rejected.content
    assert rejected.json()["event"]["signerStatus"] == "declined"
    assert Packet.objects.get(eid=packet["eid"]).status == "declined"
    assert statuses(packet["eid"]) == {
        "client": "completed",
        "manager": "declined",
        "auditor": "skipped",
        "provider": "skipped",
        "cc": "skipped",
    }
    entry = AuditEvent.objects.get(signer__alias_id="manager", action="signerRejected")
    assert entry.detail == {"reason": "The fee is wrong.", "decision": "rejected"}
    change = (
        WebhookEvent.objects.filter(action="signerUpdateStatus", data__signer__aliasId="manager")
        .order_by("pk")
        .last()
    )
    assert (change.data["signer"]["role"], change.data["signer"]["status"]) == (
        "approver",
        "declined",
    )


def test_the_approvers_page_and_email_are_in_their_language(graphql) -> None:
    variables = roles_packet()
    variables["signers"][1]["language"] = "es"
    created(graphql, variables)
    client_signs()

    approver = Signer.objects.get(alias_id="manager")
    page = (
        Client()
        .get(f"/api/etch/verify/{approver.eid}?token={signer_token_issue(signer=approver)}")
        .content.decode()
    )
    send_queued_emails()

    assert ">Aprobar</button>" in page
    assert ">Rechazar</button>" in page
    assert "Como aprobador: apruebe o rechace estos documentos." in page
    subjects = {m.to[0]: m.subject for m in mail.outbox}
    assert subjects["grace@example.com"] == "Apruebe, por favor: Services agreement"
