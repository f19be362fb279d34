"""A packet's expiry (an extension): createEtchPacket's expiresAt / expiresInDays, the signing
link refused at once when it passed, the sweep that expires the packet and its signers whose
turn it was (etchPacketExpired), and extendEtchPacket, which re-opens it with new links. Time
moves by patching the clock the code reads."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from core.sweeps import sweeps_run
from esign.links.emails import signer_reminders_queue
from esign.links.limits import new_link_count
from esign.models import AuditEvent, Packet, Signer, SignerEmail
from esign.sealing.certificate import audit_trail_pdf
from esign.sending.expiry import packets_expire
from tests.esign.conftest import CREATE, send_queued_emails, sign, token_of, two_signer_packet
from tests.pdfcheck import words
from webhooks.models import WebhookEvent

pytestmark = pytest.mark.django_db

CREATE_EXPIRING = CREATE.replace(
    "$mergePDFs: Boolean)",
    "$mergePDFs: Boolean, $expiresAt: DateTime, $expiresInDays: Int, $reminderDays: Int)",
).replace(
    "mergePDFs: $mergePDFs)",
    "mergePDFs: $mergePDFs, expiresAt: $expiresAt, expiresInDays: $expiresInDays, "
    "reminderDays: $reminderDays)",
)
EXTEND = """mutation($eid: String!, $at: String!) {
  extendEtchPacket(eid: $eid, expiresAt: $at) { eid status expiresAt
    documentGroup { signers { aliasId status } } }
}"""
PACKET = "query($eid: String!) { etchPacket(eid: $eid) { status expiresAt } }"


def create(graphql, **overrides: Any) -> dict[str, Any]:
    return graphql(CREATE_EXPIRING, two_signer_packet(**overrides))


def email_signers() -> list[dict[str, Any]]:
    signers = two_signer_packet()["signers"]
    for signer in signers:
        signer["signerType"] = "email"
    return signers


def move_clock(monkeypatch, to: datetime) -> None:
    monkeypatch.setattr(timezone, "now", lambda: to)


def fields_of(result: dict[str, Any]) -> list[dict[str, str]]:
    return result["errors"][0]["extensions"]["fields"]


def link_path(message: Any) -> str:
    line = next(line for line in message.body.splitlines() if "/api/etch/verify/" in line)
    return line.replace("http://127.0.0.1:8000", "")


@pytest.mark.parametrize(
    ("arguments", "property_"),
    [
        ({"expiresAt": "2001-01-01T00:00:00Z"}, "expiresAt"),
        ({"expiresAt": "next tuesday"}, "expiresAt"),
        ({"expiresAt": "2999-01-01T00:00:00Z"}, "expiresAt"),
        ({"expiresAt": "2027-06-01T00:00:00Z", "expiresInDays": 3}, "expiresInDays"),
        ({"expiresInDays": -1}, "expiresInDays"),
        ({"expiresInDays": 0}, "expiresInDays"),
        ({"expiresInDays": 365 * 5 + 1}, "expiresInDays"),
    ],
)
def test_a_bad_expiry_is_a_validation_error_and_nothing_is_stored(
    graphql, arguments: dict[str, Any], property_: str
) -> None:
    result = create(graphql, **arguments)
    assert result["data"]["createEtchPacket"] is None
    assert result["errors"][0]["extensions"]["code"] == "ValidationError"
    assert [f["property"] for f in fields_of(result)] == [property_]
    assert Packet.objects.count() == 0


@pytest.mark.parametrize(
    ("arguments", "variable"),
    [
        ({"expiresInDays": 2.5}, "$expiresInDays"),
        ({"expiresInDays": "3"}, "$expiresInDays"),
        ({"expiresInDays": True}, "$expiresInDays"),
        ({"expiresAt": 20300101}, "$expiresAt"),
    ],
)
def test_a_value_not_of_the_arguments_type_is_refused_naming_it(
    graphql, arguments: dict[str, Any], variable: str
) -> None:
    # expiresInDays is an Int and expiresAt a DateTime (issue 49, item 12): GraphQL refuses
    # another type before the mutation runs, naming the variable.
    result = create(graphql, **arguments)
    assert result.get("data") is None, result
    assert variable in result["errors"][0]["message"], result
    assert Packet.objects.count() == 0


def test_expires_in_days_and_at_are_stored_and_shown(graphql) -> None:
    before = timezone.now()
    created = create(graphql, expiresInDays=3)["data"]["createEtchPacket"]
    packet = Packet.objects.get(eid=created["eid"])
    assert packet.expires_at is not None
    assert timedelta(days=3) <= packet.expires_at - before < timedelta(days=3, minutes=1)
    shown = graphql(PACKET, {"eid": packet.eid})["data"]["etchPacket"]
    assert shown["status"] == "sent"
    assert shown["expiresAt"].startswith(packet.expires_at.strftime("%Y-%m-%dT%H:%M"))

    # Without an offset, the time is UTC.
    when = (timezone.now() + timedelta(days=30)).replace(microsecond=0)
    naive = when.astimezone(UTC).replace(tzinfo=None).isoformat()
    at = create(graphql, expiresAt=naive)["data"]["createEtchPacket"]
    assert Packet.objects.get(eid=at["eid"]).expires_at == when


def test_the_link_is_refused_at_once_in_the_signers_language(
    graphql, sign_url, monkeypatch
) -> None:
    signers = two_signer_packet()["signers"]
    signers[0]["language"] = "es"
    created = create(graphql, expiresInDays=1, signers=signers)
    assert "errors" not in created, created
    created = created["data"]["createEtchPacket"]
    first = created["documentGroup"]["signers"][0]["eid"]
    link = sign_url(first).replace("http://127.0.0.1:8000", "")
    assert Client().get(link).status_code == 200

    move_clock(monkeypatch, timezone.now() + timedelta(days=1, seconds=1))
    page = Client().get(link)  # no sweep has run: the page refuses it itself
    assert page.status_code == 410
    html = page.content.decode()
    assert "Esta solicitud de firma ya venció." in html
    assert 'data-reason="packetExpired"' in html
    assert "Email me a new link" not in html
    assert "Enviarme un nuevo enlace" not in html
    signed = sign(Client(), first, token_of(link), {"signature": {"text": "Ada"}})
    assert (signed.status_code, signed.json()["name"]) == (403, "tokenExpired")
    assert Signer.objects.get(eid=first).status == "viewed"  # opened before, never signed
    # No new embedded link either.
    refused = graphql(
        'mutation($s: String!) { generateEtchSignURL(signerEid: $s, clientUserId: "u") }',
        {"s": first},
    )
    assert refused["errors"][0]["extensions"]["code"] == "ConflictError"
    assert "expired" in refused["errors"][0]["message"]


def test_the_sweep_expires_the_packet_and_its_waiting_signers(graphql, monkeypatch) -> None:
    created = create(graphql, expiresInDays=2, signers=email_signers(), reminderDays=1)
    packet = Packet.objects.get(eid=created["data"]["createEtchPacket"]["eid"])
    assert send_queued_emails() == ["sent"]
    link = link_path(mail.outbox[-1])

    # Reminders stop at the expiry, even before the sweep moved the packet.
    move_clock(monkeypatch, packet.expires_at + timedelta(seconds=1))
    assert signer_reminders_queue() == 0

    done = sweeps_run()
    assert done["esign.expiry"] == 1
    packet.refresh_from_db()
    statuses = dict(packet.signers.values_list("alias_id", "status"))
    assert (packet.status, statuses) == ("expired", {"client": "expired", "provider": "created"})
    assert packet.document_group.status == "expired"
    event = WebhookEvent.objects.get(action="etchPacketExpired")
    assert event.data["etchPacket"]["status"] == "expired"
    assert [s["status"] for s in event.data["signers"]] == ["expired", "created"]
    actions = list(AuditEvent.objects.filter(packet=packet).values_list("action", flat=True))
    assert actions[-2:] == ["signerExpired", "packetExpired"]
    page = Client().get(link)
    assert page.status_code == 410
    assert 'data-reason="packetExpired"' in page.content.decode()
    assert sweeps_run()["esign.expiry"] == 0  # nothing left to do
    assert graphql(PACKET, {"eid": packet.eid})["data"]["etchPacket"]["status"] == "expired"


def test_extending_before_the_expiry_moves_the_date(graphql, monkeypatch) -> None:
    created = create(graphql, expiresInDays=1)["data"]["createEtchPacket"]
    later = (timezone.now() + timedelta(days=10)).replace(microsecond=0)
    extended = graphql(EXTEND, {"eid": created["eid"], "at": later.isoformat()})
    assert extended["data"]["extendEtchPacket"]["status"] == "sent"
    move_clock(monkeypatch, timezone.now() + timedelta(days=2))
    assert packets_expire(now=timezone.now()) == 0
    packet = Packet.objects.get(eid=created["eid"])
    assert (packet.status, packet.expires_at) == ("sent", later)
    entry = AuditEvent.objects.get(packet=packet, action="packetExtended")
    assert entry.detail["expiresAt"] == later.isoformat()


def test_extending_after_the_expiry_reopens_it_with_a_new_link(graphql, monkeypatch) -> None:
    created = create(graphql, expiresInDays=1, signers=email_signers())["data"]["createEtchPacket"]
    send_queued_emails()
    old_link = link_path(mail.outbox[-1])
    move_clock(monkeypatch, timezone.now() + timedelta(days=2))
    packets_expire(now=timezone.now())

    later = (timezone.now() + timedelta(days=7)).isoformat()
    extended = graphql(EXTEND, {"eid": created["eid"], "at": later})["data"]["extendEtchPacket"]
    assert extended["status"] == "sent"
    assert [s["status"] for s in extended["documentGroup"]["signers"]] == ["sent", "created"]
    assert send_queued_emails() == ["sent"]
    first = Signer.objects.get(packet__eid=created["eid"], alias_id="client")
    assert mail.outbox[-1].to == [first.email]
    assert Client().get(link_path(mail.outbox[-1])).status_code == 200
    assert Client().get(old_link).status_code == 410  # its links ended at the expiry
    packet = Packet.objects.get(eid=created["eid"])
    actions = list(AuditEvent.objects.filter(packet=packet).values_list("action", flat=True))
    assert [
        a
        for a in actions
        if a in {"packetExtended", "packetReopened", "signerReopened", "signerEmailRequested"}
    ] == ["packetExtended", "packetReopened", "signerReopened", "signerEmailRequested"]


def test_extending_respects_the_cap_on_new_links_and_stores_nothing(
    graphql, monkeypatch, settings
) -> None:
    settings.RATE_LIMIT_ENABLED = True
    created = create(graphql, expiresInDays=1, signers=email_signers())["data"]["createEtchPacket"]
    first = Signer.objects.get(packet__eid=created["eid"], alias_id="client")
    move_clock(monkeypatch, timezone.now() + timedelta(days=2))
    packets_expire(now=timezone.now())
    for _ in range(settings.ESIGN_RESEND_PER_SIGNER):  # the sender's new links this hour
        new_link_count(signer=first)
    emails = SignerEmail.objects.count()

    later = (timezone.now() + timedelta(days=7)).isoformat()
    refused = graphql(EXTEND, {"eid": created["eid"], "at": later})
    assert refused["errors"][0]["extensions"]["code"] == "RateLimitError"
    packet = Packet.objects.get(eid=created["eid"])
    assert packet.status == "expired"
    assert packet.expires_at < timezone.now()
    assert SignerEmail.objects.count() == emails
    assert not AuditEvent.objects.filter(packet=packet, action="packetExtended").exists()


@pytest.mark.parametrize("value", ["2001-01-01T00:00:00Z", "soon", "2999-01-01T00:00:00Z"])
def test_a_bad_extension_is_a_validation_error(graphql, value: str) -> None:
    created = create(graphql, expiresInDays=1)["data"]["createEtchPacket"]
    refused = graphql(EXTEND, {"eid": created["eid"], "at": value})
    assert [f["property"] for f in fields_of(refused)] == ["expiresAt"]
    packet = Packet.objects.get(eid=created["eid"])
    assert not AuditEvent.objects.filter(packet=packet, action="packetExtended").exists()


def test_a_voided_packet_cannot_be_extended(graphql) -> None:
    created = create(graphql, expiresInDays=1)["data"]["createEtchPacket"]
    graphql(
        "mutation($eid: String!) { voidDocumentGroup(eid: $eid) { eid } }",
        {"eid": created["documentGroup"]["eid"]},
    )
    later = (timezone.now() + timedelta(days=7)).isoformat()
    refused = graphql(EXTEND, {"eid": created["eid"], "at": later})
    assert refused["errors"][0]["extensions"]["code"] == "ConflictError"


def test_the_trail_pdf_draws_the_expiry_and_the_extension(graphql, monkeypatch) -> None:
    created = create(graphql, expiresInDays=1)["data"]["createEtchPacket"]
    move_clock(monkeypatch, timezone.now() + timedelta(days=2))
    packets_expire(now=timezone.now())
    later = (timezone.now() + timedelta(days=7)).replace(microsecond=0)
    graphql(EXTEND, {"eid": created["eid"], "at": later.isoformat()})
    packet = Packet.objects.get(eid=created["eid"])

    pdf = audit_trail_pdf(packet, credentials=SimpleNamespace(subject="Test seal"))  # type: ignore[arg-type]
    text = " ".join(w.text for page in words(pdf) for w in page)
    for label in (
        "Packet expired before everyone signed",
        "Request expired",
        "Expiry date changed by the sender",
        "Packet re-opened after its expiry",
        "Asked to sign again after the expiry",
        "expires at " + later.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
    ):
        assert label in text, label
