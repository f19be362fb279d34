"""Forwarding a signer's turn (an extension, esign.signing.forwarding): createEtchPacket's allowForward
(and the signer JSON's), the signing page's forward, the sender's reassignEtchSigner and the
admin's form. A new signer takes the original's fields and routing order, the original becomes
``forwarded`` and their links end, the new signer is emailed; the trail and the signerForwarded
event say who handed it to whom and by whom. Every refusal is in the wire's shape and writes
nothing.

This module: allowForward, the signer's forward and its refusals, a turn coming back, the new
signer's code, the GraphQL reference, and the helpers the others import. The sender's and the
admin's reassignment are in test_forward_reassign.py, the trail and the seal in
test_forward_trail.py."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from esign.links.tokens import signer_token_issue
from esign.models import AuditEvent, Packet, Signer, SignerEmail, SignerToken
from tests.esign.conftest import CREATE, send_queued_emails, sign, signing_post, token_of
from tests.esign.conftest import two_signer_packet as base_packet
from webhooks.models import WebhookEvent

pytestmark = pytest.mark.django_db

CREATE_FORWARD = (
    CREATE.replace("$mergePDFs: Boolean)", "$mergePDFs: Boolean, $allowForward: Boolean)")
    .replace("mergePDFs: $mergePDFs)", "mergePDFs: $mergePDFs, allowForward: $allowForward)")
    .replace("signers { eid aliasId", "signers { eid allowForward aliasId")
)
REASSIGN = """mutation($s: String!, $name: String, $email: String) {
  reassignEtchSigner(signerEid: $s, name: $name, email: $email) {
    eid aliasId name email status routingOrder signActionType allowForward
    forwardedFrom { eid status forwardedTo { eid } }
  }
}"""
PACKET = """query($eid: String!) { etchPacket(eid: $eid) { status allowForward
  documentGroup { signers { eid aliasId name status forwardedFrom { eid } forwardedTo { eid } } } } }"""


# What the first signer (or whoever has their turn) posts to sign: their typed field is required.
FIRST_BODY = {"signature": {"typed": "Ada"}, "values": {"agreement/title1": "Analyst"}}


def email_packet(**overrides: Any) -> dict[str, Any]:
    """The two-signer packet with email signers (they get the signing emails)."""
    variables = base_packet(**overrides)
    for signer in variables["signers"]:
        signer["signerType"] = "email"
    return variables


def fields_of(result: dict[str, Any]) -> list[dict[str, str]]:
    return result["errors"][0]["extensions"]["fields"]


def link_of(message: Any) -> str:
    line = next(line for line in message.body.splitlines() if "/api/etch/verify/" in line)
    return line.replace("http://127.0.0.1:8000", "")


def forward(client: Client, signer_eid: str, token: str, body: Any) -> Any:
    return signing_post(client, signer_eid, token, "forward", body)


def written() -> tuple[int, ...]:
    """What a refusal must leave as it was: signers, trail entries, events, emails, links."""
    return (
        Signer.objects.count(),
        AuditEvent.objects.count(),
        WebhookEvent.objects.count(),
        SignerEmail.objects.count(),
        SignerToken.objects.filter(revoked_at__isnull=False).count(),
    )


@pytest.fixture
def forwarding(graphql) -> Callable[..., tuple[dict[str, Any], str]]:
    """An email packet with allowForward whose first signer's email went out: the packet as
    created, and the path of the link in that email."""

    def make(**overrides: Any) -> tuple[dict[str, Any], str]:
        created = graphql(CREATE_FORWARD, email_packet(allowForward=True, **overrides))
        assert "errors" not in created, created
        assert send_queued_emails() == ["sent"]
        return created["data"]["createEtchPacket"], link_of(mail.outbox[-1])

    return make


# --- createEtchPacket ---------------------------------------------------------------------------


def test_allow_forward_is_stored_per_signer_and_shown(graphql) -> None:
    variables = email_packet(allowForward=True)
    variables["signers"][1]["allowForward"] = False
    created = graphql(CREATE_FORWARD, variables)["data"]["createEtchPacket"]
    assert [s["allowForward"] for s in created["documentGroup"]["signers"]] == [True, False]
    shown = graphql(PACKET, {"eid": created["eid"]})["data"]["etchPacket"]
    assert shown["allowForward"] is True

    # Without it nobody forwards; a signer's own true is enough; embedded signers never do.
    variables = base_packet()
    variables["signers"][1]["signerType"] = "email"
    variables["signers"][1]["allowForward"] = True
    created = graphql(CREATE_FORWARD, variables)["data"]["createEtchPacket"]
    assert [s["allowForward"] for s in created["documentGroup"]["signers"]] == [False, True]
    created = graphql(CREATE_FORWARD, base_packet(allowForward=True))["data"]["createEtchPacket"]
    assert [s["allowForward"] for s in created["documentGroup"]["signers"]] == [False, False]


@pytest.mark.parametrize(
    ("change", "property_"),
    [
        ({"allowForward": "yes"}, "$allowForward"),
        ({"allowForward": 1}, "$allowForward"),
        ({"signer": {"allowForward": "true"}}, "signers.0.allowForward"),
        ({"signer": {"allowForward": True, "signerType": "embedded"}}, "signers.0.allowForward"),
    ],
)
def test_a_bad_allow_forward_is_a_validation_error_and_nothing_is_stored(
    graphql, change: dict[str, Any], property_: str
) -> None:
    variables = email_packet()
    variables["signers"][0].update(change.pop("signer", {}))
    variables.update(change)
    result = graphql(CREATE_FORWARD, variables)
    assert Packet.objects.count() == 0
    if property_ == "$allowForward":
        # The packet's allowForward is a Boolean (issue 49, item 12): GraphQL refuses another
        # type before the mutation runs, naming the variable. A signer's is inside JSON.
        assert result.get("data") is None, result
        assert property_ in result["errors"][0]["message"]
        return
    assert result["data"]["createEtchPacket"] is None
    assert result["errors"][0]["extensions"]["code"] == "ValidationError"
    assert [f["property"] for f in fields_of(result)] == [property_]


# --- the signer's forward -----------------------------------------------------------------------


def test_a_signer_forwards_their_turn_and_the_new_signer_signs(graphql, forwarding) -> None:
    created, link = forwarding()
    ada = Signer.objects.get(packet__eid=created["eid"], alias_id="client")
    browser = Client(REMOTE_ADDR="203.0.113.9", HTTP_USER_AGENT="ForwardTest/1.0")
    page = browser.get(link)
    assert page.status_code == 200
    assert page.context["config"]["canForward"] is True
    assert 'id="sg-forward-open"' in page.content.decode()

    answer = forward(
        browser, ada.eid, token_of(link), {"name": "Grace Hopper", "email": "grace@example.com"}
    )
    assert answer.status_code == 200, answer.content
    assert answer.json() == {
        "signerEid": ada.eid,
        "signerStatus": "forwarded",
        "forwardedTo": {"name": "Grace Hopper", "email": "grace@example.com"},
    }
    ada.refresh_from_db()
    grace = Signer.objects.get(forwarded_from=ada)
    assert ada.status == "forwarded"
    assert (grace.alias_id, grace.status, grace.routing_order) == ("client-2", "sent", 1)
    assert grace.fields == ada.fields
    assert (grace.signature_mode, grace.allow_forward) == (ada.signature_mode, False)

    # Ada's link has ended and says why; Grace is emailed her own link, naming whose place.
    refused = Client().get(link)
    assert refused.status_code == 403
    html = refused.content.decode()
    assert "This signature request was handed to someone else to sign." in html
    assert 'data-reason="signerForwarded"' in html
    assert send_queued_emails() == ["sent"]
    message = mail.outbox[-1]
    assert message.to == ["grace@example.com"]
    assert "in place of Ada Lovelace" in message.body
    grace_link = link_of(message)
    assert Client().get(grace_link).status_code == 200
    signed = sign(Client(), grace.eid, token_of(grace_link), FIRST_BODY)
    assert signed.status_code == 200, signed.content
    assert signed.json()["event"]["nextSignerEid"] == created["documentGroup"]["signers"][1]["eid"]

    # The trail: who handed it to whom, by whom, from where.
    entry = AuditEvent.objects.get(signer=ada, action="signerForwarded")
    assert entry.detail["to"] == {"name": "Grace Hopper", "email": "grace@example.com"}
    assert (entry.detail["by"], entry.detail["newSigner"]) == ("signer", grace.eid)
    assert (entry.ip, entry.user_agent) == ("203.0.113.9", "ForwardTest/1.0")
    taken = AuditEvent.objects.get(signer=grace, action="signerAssigned")
    assert taken.detail["from"] == {"name": "Ada Lovelace", "email": "ada@example.com"}
    # The events: Ada's status, and the forward with both signers.
    event = WebhookEvent.objects.get(action="signerForwarded")
    assert event.data["signer"]["eid"] == ada.eid
    assert event.data["signer"]["status"] == "forwarded"
    assert event.data["newSigner"]["eid"] == grace.eid
    assert event.data["forwardedBy"] == "signer"
    statuses = [
        e.data["signer"]["status"] for e in WebhookEvent.objects.filter(action="signerUpdateStatus")
    ]
    assert "forwarded" in statuses
    shown = graphql(PACKET, {"eid": created["eid"]})["data"]["etchPacket"]
    rows = {s["aliasId"]: s for s in shown["documentGroup"]["signers"]}
    assert rows["client"]["forwardedTo"] == {"eid": grace.eid}
    assert rows["client-2"]["forwardedFrom"] == {"eid": ada.eid}


@pytest.mark.parametrize(
    ("body", "property_"),
    [
        ({"name": "Grace Hopper", "email": "not an address"}, "email"),
        ({"name": "Grace Hopper"}, "email"),
        ({"name": "", "email": "grace@example.com"}, "name"),
        ({"name": "Grace\nBcc: x@example.com", "email": "grace@example.com"}, "name"),
        ({"name": "Charles", "email": "CHARLES@example.com"}, "email"),  # already a signer
        ({"name": "Ada again", "email": "ada@example.com"}, "email"),  # themselves
    ],
)
def test_a_bad_forward_is_a_validation_error_and_writes_nothing(
    forwarding, body: dict[str, Any], property_: str
) -> None:
    created, link = forwarding()
    ada = Signer.objects.get(packet__eid=created["eid"], alias_id="client")
    Client().get(link)
    before = written()
    answer = forward(Client(), ada.eid, token_of(link), body)
    assert answer.status_code == 400
    assert answer.json()["name"] == "ValidationError"
    assert [f["property"] for f in answer.json()["fields"]] == [property_]
    assert written() == before
    ada.refresh_from_db()
    assert ada.status == "viewed"


def test_the_forms_problems_are_in_the_signers_language(forwarding) -> None:
    signers = email_packet()["signers"]
    signers[0]["language"] = "es"
    created, link = forwarding(signers=signers)
    ada = Signer.objects.get(packet__eid=created["eid"], alias_id="client")
    taken = forward(
        Client(), ada.eid, token_of(link), {"name": "C", "email": "charles@example.com"}
    )
    assert (
        taken.json()["fields"][0]["message"] == "Esta persona ya es firmante de estos documentos."
    )
    bad = forward(Client(), ada.eid, token_of(link), {"name": "C", "email": "c@"})
    assert bad.json()["fields"][0]["message"].startswith("Introduzca el correo electrónico")


def test_a_signer_the_packet_does_not_let_forward_is_refused(graphql) -> None:
    graphql(CREATE, email_packet())
    send_queued_emails()
    link = link_of(mail.outbox[-1])
    ada = Signer.objects.get(alias_id="client")
    page = Client().get(link)
    assert page.context["config"]["canForward"] is False
    assert 'id="sg-forward-open"' not in page.content.decode()
    before = written()
    answer = forward(Client(), ada.eid, token_of(link), {"name": "G", "email": "g@example.com"})
    assert (answer.status_code, answer.json()["name"]) == (409, "ConflictError")
    assert written() == before


def test_a_forwarded_signer_cannot_forward_again_nor_before_their_turn(forwarding) -> None:
    created, link = forwarding()
    ada = Signer.objects.get(packet__eid=created["eid"], alias_id="client")
    forward(Client(), ada.eid, token_of(link), {"name": "Grace", "email": "grace@example.com"})
    send_queued_emails()
    grace_link = link_of(mail.outbox[-1])
    grace = Signer.objects.get(alias_id="client-2")
    assert Client().get(grace_link).context["config"]["canForward"] is False
    before = written()
    again = forward(Client(), grace.eid, token_of(grace_link), {"name": "H", "email": "h@x.org"})
    assert again.status_code == 409
    # Ada's ended link cannot forward a second time either.
    twice = forward(Client(), ada.eid, token_of(link), {"name": "H", "email": "h@x.org"})
    assert (twice.status_code, twice.json()["reason"]) == (403, "signerForwarded")
    # Charles may forward, but only in his turn.
    charles = Signer.objects.get(alias_id="provider")
    early = forward(
        Client(), charles.eid, signer_token_issue(signer=charles), {"name": "H", "email": "h@x.org"}
    )
    assert (early.status_code, early.json()["name"]) == (409, "ConflictError")
    assert written()[:4] == before[:4]


def test_an_expired_packet_cannot_be_forwarded(graphql, forwarding, monkeypatch) -> None:
    created, link = forwarding()
    ada = Signer.objects.get(packet__eid=created["eid"], alias_id="client")
    packet = Packet.objects.get(eid=created["eid"])
    packet.expires_at = timezone.now() + timedelta(hours=1)
    packet.save(update_fields=["expires_at"])
    later = timezone.now() + timedelta(hours=2)
    monkeypatch.setattr(timezone, "now", lambda: later)
    before = written()
    answer = forward(Client(), ada.eid, token_of(link), {"name": "G", "email": "g@example.com"})
    assert answer.status_code == 403  # the link itself is refused first
    refused = graphql(REASSIGN, {"s": ada.eid, "name": "G", "email": "g@example.com"})
    assert refused["errors"][0]["extensions"]["code"] == "ConflictError"
    assert "expired" in refused["errors"][0]["message"]
    assert written() == before


def test_the_graphql_reference_describes_forwarding() -> None:
    sdl = Client().get("/graphql/schema.graphql").content.decode()
    assert "reassignEtchSigner(" in sdl
    assert '"allowForward": true' in sdl  # the signer JSON's shape
    assert "The sender hands a signer's turn to someone else" in sdl
    reference = Client().get("/api/openapi.json").json()["info"]["description"]
    assert "### mutation `reassignEtchSigner` → `Signer`" in reference


def test_a_turn_may_come_back_to_a_signer_who_handed_it_on(graphql, forwarding) -> None:
    created, link = forwarding()
    ada = Signer.objects.get(alias_id="client")
    forward(Client(), ada.eid, token_of(link), {"name": "Grace", "email": "grace@example.com"})
    grace = Signer.objects.get(forwarded_from=ada)
    back = graphql(REASSIGN, {"s": grace.eid, "name": "Ada Lovelace", "email": "ada@example.com"})
    assert "errors" not in back, back
    assert back["data"]["reassignEtchSigner"]["aliasId"] == "client-3"
    assert back["data"]["reassignEtchSigner"]["status"] == "sent"


@pytest.mark.parametrize(
    "verify", [{"method": "email"}, {"method": "sms", "phone": "+44 20 7946 0958"}]
)
def test_the_new_signer_enters_a_code_sent_to_their_own_address(
    graphql, forwarding, verify: dict[str, str]
) -> None:
    signers = email_packet()["signers"]
    signers[0]["verify"] = verify
    created, _ = forwarding(signers=signers)
    ada_eid = created["documentGroup"]["signers"][0]["eid"]
    result = graphql(REASSIGN, {"s": ada_eid, "name": "Grace", "email": "grace@example.com"})
    grace = Signer.objects.get(eid=result["data"]["reassignEtchSigner"]["eid"])
    assert (grace.verify_method, grace.verify_phone) == ("email", "")
    send_queued_emails()
    opened = Client().get(link_of(mail.outbox[-1]))
    assert opened.status_code == 302
    assert f"/api/etch/sign/{grace.eid}/code" in opened["Location"]
