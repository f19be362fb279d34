"""Reassigning a signer's turn: the sender's reassignEtchSigner (an embedded signer, one whose turn
has not come, the refusals and conflicts, the bounded number of hand-ons) and the admin's form
on the packet's page."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.models import Organization
from esign.models import AuditEvent, Packet, Signer, SignerEmail
from esign.signing.forwarding import MAX_FORWARDS_PER_PACKET
from tests.esign.conftest import SIGN_URL, send_queued_emails, sign, token_of
from tests.esign.test_forward import FIRST_BODY, REASSIGN, fields_of, written
from tests.esign.test_forward import forwarding as forwarding  # noqa: F401 - the fixture
from tests.esign.test_packet_admin_roles import staff
from webhooks.models import WebhookEvent

pytestmark = pytest.mark.django_db


# --- the sender's reassignment ------------------------------------------------------------------


def test_the_sender_reassigns_an_embedded_signer(graphql, create_packet, sign_url) -> None:
    created = create_packet()
    ada_eid = created["documentGroup"]["signers"][0]["eid"]
    old_link = sign_url(ada_eid).replace("http://127.0.0.1:8000", "")
    result = graphql(REASSIGN, {"s": ada_eid, "name": "Grace Hopper", "email": ""})
    assert "errors" not in result, result
    grace = result["data"]["reassignEtchSigner"]
    assert grace["name"] == "Grace Hopper"
    assert (grace["status"], grace["routingOrder"], grace["signActionType"]) == (
        "sent",
        1,
        "embedded",
    )
    assert grace["forwardedFrom"] == {
        "eid": ada_eid,
        "status": "forwarded",
        "forwardedTo": {"eid": grace["eid"]},
    }
    assert SignerEmail.objects.count() == 0  # embedded: the integrator makes the link
    refused = Client().get(old_link)
    assert refused.status_code == 403
    assert 'data-reason="signerForwarded"' in refused.content.decode()
    no_link = graphql(SIGN_URL, {"signerEid": ada_eid, "clientUserId": "u"})
    assert no_link["errors"][0]["extensions"]["code"] == "ConflictError"
    new_link = sign_url(grace["eid"]).replace("http://127.0.0.1:8000", "")
    assert Client().get(new_link).status_code == 200
    entry = AuditEvent.objects.get(signer__eid=ada_eid, action="signerForwarded")
    assert entry.detail["by"] == "sender"
    assert entry.detail["requestedBy"].startswith("API key ")
    assert WebhookEvent.objects.get(action="signerForwarded").data["forwardedBy"] == "sender"


def test_a_signer_whose_turn_has_not_come_is_reassigned_for_later(graphql, forwarding) -> None:
    created, link = forwarding()
    charles_eid = created["documentGroup"]["signers"][1]["eid"]
    result = graphql(REASSIGN, {"s": charles_eid, "name": "Mary", "email": "mary@example.com"})
    mary = result["data"]["reassignEtchSigner"]
    assert (mary["status"], mary["routingOrder"]) == ("created", 2)
    assert send_queued_emails() == []  # not her turn yet
    ada = Signer.objects.get(alias_id="client")
    signed = sign(Client(), ada.eid, token_of(link), FIRST_BODY)
    assert signed.json()["event"]["nextSignerEid"] == mary["eid"]
    assert send_queued_emails() == ["sent"]
    assert mail.outbox[-1].to == ["mary@example.com"]


@pytest.mark.parametrize(
    ("variables", "code", "property_"),
    [
        ({"name": None, "email": "g@example.com"}, "ValidationError", "name"),
        ({"name": "Grace", "email": None}, "ValidationError", "email"),
        ({"name": "Grace", "email": "grace@"}, "ValidationError", "email"),
        ({"name": "Grace", "email": "Charles@Example.com"}, "ValidationError", "email"),
        ({"name": "x" * 256, "email": "g@example.com"}, "ValidationError", "name"),
    ],
)
def test_a_bad_reassignment_is_refused_and_writes_nothing(
    graphql, forwarding, variables: dict[str, Any], code: str, property_: str
) -> None:
    created, _ = forwarding()
    before = written()
    result = graphql(REASSIGN, {"s": created["documentGroup"]["signers"][0]["eid"], **variables})
    assert result["data"]["reassignEtchSigner"] is None
    assert result["errors"][0]["extensions"]["code"] == code
    assert [f["property"] for f in fields_of(result)] == [property_]
    assert written() == before


def test_reassigning_an_ended_signer_or_packet_is_a_conflict(
    graphql, forwarding, client_for, other_api_key
) -> None:
    created, link = forwarding()
    ada = Signer.objects.get(alias_id="client")
    sign(Client(), ada.eid, token_of(link), FIRST_BODY)
    before = written()
    done = graphql(REASSIGN, {"s": ada.eid, "name": "G", "email": "g@example.com"})
    assert done["errors"][0]["extensions"]["code"] == "ConflictError"
    assert "completed" in done["errors"][0]["message"]
    # Another organization's key finds no such signer.
    outsider = graphql(
        REASSIGN, {"s": ada.eid, "name": "G", "email": "g@example.com"}, client_for(other_api_key)
    )
    assert outsider["errors"][0]["extensions"]["code"] == "NotFoundError"
    graphql(
        "mutation($eid: String!) { voidDocumentGroup(eid: $eid) { eid } }",
        {"eid": created["documentGroup"]["eid"]},
    )
    before = written()
    voided = graphql(
        REASSIGN,
        {"s": created["documentGroup"]["signers"][1]["eid"], "name": "G", "email": "g@x.org"},
    )
    assert voided["errors"][0]["extensions"]["code"] == "ConflictError"
    assert "voided" in voided["errors"][0]["message"]
    assert written() == before


def test_a_packet_hands_on_turns_a_bounded_number_of_times(graphql, forwarding) -> None:
    created, _ = forwarding()
    eid = created["documentGroup"]["signers"][0]["eid"]
    for number in range(MAX_FORWARDS_PER_PACKET):
        result = graphql(REASSIGN, {"s": eid, "name": f"N{number}", "email": f"n{number}@x.org"})
        eid = result["data"]["reassignEtchSigner"]["eid"]
    before = written()
    over = graphql(REASSIGN, {"s": eid, "name": "Last", "email": "last@x.org"})
    assert over["errors"][0]["extensions"]["code"] == "ConflictError"
    assert written() == before
    aliases = set(Signer.objects.values_list("alias_id", flat=True))
    assert {"client-2", "client-3", f"client-{MAX_FORWARDS_PER_PACKET + 1}"} <= aliases


# --- the admin ----------------------------------------------------------------------------------


def test_an_admin_reassigns_from_the_packets_page(forwarding, organization: Organization) -> None:
    created, _ = forwarding()
    packet = Packet.objects.get(eid=created["eid"])
    ada = packet.signers.get(alias_id="client")
    url = reverse("admin:esign_packet_reassign", args=[packet.pk])
    member = staff(organization, "member")
    assert (
        url
        not in member.get(reverse("admin:esign_packet_change", args=[packet.pk])).content.decode()
    )
    assert member.post(url, {"signer": ada.pk, "name": "G", "email": "g@x.org"}).status_code == 403

    admin = staff(organization, "admin")
    assert url in admin.get(reverse("admin:esign_packet_change", args=[packet.pk])).content.decode()
    form = admin.get(url)
    assert form.status_code == 200
    assert "Ada Lovelace" in form.content.decode()
    before = written()
    bad = admin.post(url, {"signer": ada.pk, "name": "Grace", "email": "charles@example.com"})
    assert bad.status_code == 400
    assert "already a signer" in bad.content.decode()
    assert written() == before

    done = admin.post(url, {"signer": ada.pk, "name": "Grace", "email": "grace@example.com"})
    assert done.status_code == 302
    ada.refresh_from_db()
    assert ada.status == "forwarded"
    entry = AuditEvent.objects.get(signer=ada, action="signerForwarded")
    assert (entry.detail["by"], entry.detail["requestedBy"]) == ("sender", "acme-admin (admin)")
    page = admin.get(reverse("admin:esign_packet_change", args=[packet.pk])).content.decode()
    assert "to Grace" in page
    assert "in place of Ada Lovelace" in page
    assert "to: Grace &lt;grace@example.com&gt;; newSigner:" in page
