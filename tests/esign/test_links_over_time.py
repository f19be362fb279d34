"""Links over time: a new link by email (the API, the admin, the signer on the expired-link
page, rate-limited), reminders every N days, and one kept link instead of one per page view."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from esign.links.emails import signer_reminders_queue
from esign.links.limits import NEW_LINK_PER_HOUR
from esign.models import AuditEvent, Packet, Signer, SignerEmail, SignerToken
from tests.conftest import graphql_answer as gql
from tests.esign.conftest import CREATE, send_queued_emails, two_signer_packet
from tests.staff import admin_action, superuser_client

pytestmark = pytest.mark.django_db

RESEND = "mutation($s: String!) { resendEtchSignerEmail(signerEid: $s) }"
CREATE_WITH_REMINDERS = CREATE.replace(
    "$mergePDFs: Boolean)", "$mergePDFs: Boolean, $reminderDays: Int)"
).replace("mergePDFs: $mergePDFs)", "mergePDFs: $mergePDFs, reminderDays: $reminderDays)")


def email_packet(create_packet, **overrides: Any) -> tuple[Packet, Signer, Signer]:
    variables = two_signer_packet()
    for signer in variables["signers"]:
        signer["signerType"] = "email"
    created = create_packet(signers=variables["signers"], **overrides)
    packet = Packet.objects.get(eid=created["eid"])
    first, second = packet.signers.order_by("routing_order")
    return packet, first, second


def link_in(message: Any) -> str:
    return next(line for line in message.body.splitlines() if "/api/etch/verify/" in line)


def test_the_sender_emails_a_new_link_to_the_signer_whose_turn_it_is(
    create_packet, api_client
) -> None:
    packet, first, second = email_packet(create_packet)
    assert send_queued_emails() == ["sent"]

    assert gql(api_client, RESEND, {"s": first.eid})["data"]["resendEtchSignerEmail"] is True
    assert gql(api_client, RESEND, {"s": first.eid})["data"]["resendEtchSignerEmail"] is False
    assert gql(api_client, RESEND, {"s": second.eid})["data"]["resendEtchSignerEmail"] is False
    assert send_queued_emails() == ["sent"]

    assert [m.to for m in mail.outbox] == [[first.email], [first.email]]
    assert "Here is a new link to sign" in mail.outbox[1].body
    assert link_in(mail.outbox[0]) != link_in(mail.outbox[1])
    requested = AuditEvent.objects.get(packet=packet, action="signerEmailRequested")
    assert requested.detail["requestedBy"].startswith("API key ")


def test_an_embedded_signer_gets_no_email(create_packet, api_client) -> None:
    created = create_packet()
    signer = created["documentGroup"]["signers"][0]["eid"]
    assert gql(api_client, RESEND, {"s": signer})["data"]["resendEtchSignerEmail"] is False
    assert SignerEmail.objects.count() == 0


def test_the_admin_emails_a_new_link(create_packet) -> None:
    packet, first, _ = email_packet(create_packet)
    send_queued_emails()
    browser = superuser_client()

    done = admin_action(browser, "/admin/esign/packet/", "resend_signing_emails", packet.pk)

    assert "A new link is on its way to 1 signer(s)." in done.content.decode()
    assert send_queued_emails() == ["sent"]
    assert mail.outbox[-1].to == [first.email]


def _expire(signer: Signer) -> str:
    """Send the signer's email, then let its link expire; returns the link's path."""
    send_queued_emails()
    link = link_in(mail.outbox[-1]).replace("http://127.0.0.1:8000", "")
    SignerToken.objects.filter(signer=signer).update(expires_at=timezone.now() - timedelta(1))
    return link


def test_an_expired_link_offers_a_new_one_by_email(create_packet) -> None:
    _, first, _ = email_packet(create_packet)
    link = _expire(first)
    browser = Client()

    page = browser.get(link)
    assert page.status_code == 410
    html = page.content.decode()
    assert "Email me a new link" in html
    token = link.split("token=")[1]

    asked = browser.post(f"/api/etch/sign/{first.eid}/new-link", {"token": token})
    assert asked.status_code == 200
    assert "a***@example.com" in asked.content.decode()
    assert send_queued_emails() == ["sent"]
    assert mail.outbox[-1].to == [first.email]
    fresh = link_in(mail.outbox[-1]).replace("http://127.0.0.1:8000", "")
    assert browser.get(fresh).status_code == 200

    # Asking again and again is bounded; a forged token gets nothing.
    refused = browser.post(f"/api/etch/sign/{first.eid}/new-link", {"token": "forged"})
    assert refused.status_code == 404


def test_new_links_are_rate_limited(create_packet, settings) -> None:
    settings.RATE_LIMIT_ENABLED = True
    _, first, _ = email_packet(create_packet)
    token = _expire(first).split("token=")[1]
    answers = []
    for _ in range(NEW_LINK_PER_HOUR + 1):
        answers.append(
            Client().post(f"/api/etch/sign/{first.eid}/new-link", {"token": token}).status_code
        )
        send_queued_emails()
    assert answers == [200] * NEW_LINK_PER_HOUR + [429]


def _sent_to(signer: Signer) -> int:
    return SignerEmail.objects.filter(signer=signer).count()


def test_the_sender_is_capped_in_new_links_per_signer(
    create_packet, api_client, settings, monkeypatch
) -> None:
    settings.ESIGN_RESEND_PER_SIGNER = 2
    settings.ESIGN_RESEND_WINDOW_SECONDS = 3600
    _, first, _ = email_packet(create_packet)
    send_queued_emails()
    for _ in range(2):
        assert gql(api_client, RESEND, {"s": first.eid})["data"]["resendEtchSignerEmail"] is True
        send_queued_emails()
    emails = _sent_to(first)

    answer = api_client.post(
        "/graphql",
        data=json.dumps({"query": RESEND, "variables": {"s": first.eid}}),
        content_type="application/json",
    )

    (error,) = answer.json()["errors"]
    assert error["extensions"]["code"] == "RateLimitError"
    assert error["extensions"]["status"] == 429
    wait = error["extensions"]["retryAfter"]
    assert isinstance(wait, int)
    assert 0 < wait <= 3600
    assert answer["Retry-After"] == str(wait)
    assert "new links" in error["message"]
    assert _sent_to(first) == emails, "an email was queued past the cap"
    assert send_queued_emails() == []

    # The admin's button counts against the same cap: a message, nothing sent.
    browser = superuser_client()
    pressed = browser.post(f"/admin/esign/packet/{first.packet_id}/resend/", follow=True)
    assert "No new link for Ada" in pressed.content.decode()
    assert _sent_to(first) == emails

    # An hour on, the sender may ask again.
    later = timezone.now() + timedelta(seconds=3600)
    monkeypatch.setattr(timezone, "now", lambda: later)
    assert gql(api_client, RESEND, {"s": first.eid})["data"]["resendEtchSignerEmail"] is True
    assert _sent_to(first) == emails + 1


def test_the_admin_button_is_capped_too(create_packet, settings) -> None:
    settings.ESIGN_RESEND_PER_SIGNER = 3
    packet, first, _ = email_packet(create_packet)
    send_queued_emails()
    browser = superuser_client()

    pages = []
    for _ in range(10):
        pages.append(browser.post(f"/admin/esign/packet/{packet.pk}/resend/", follow=True))
        send_queued_emails()

    resent = SignerEmail.objects.filter(signer=first, kind=SignerEmail.Kind.RESEND).count()
    assert resent == 3
    assert "A new signing link is on its way to Ada" in pages[2].content.decode()
    refusal = pages[3].content.decode()
    assert "No new link for Ada" in refusal
    assert "3 new links in the last hour" in refusal


def test_a_link_expired_by_the_sender_offers_nothing(create_packet, api_client) -> None:
    _, first, _ = email_packet(create_packet)
    send_queued_emails()
    link = link_in(mail.outbox[-1]).replace("http://127.0.0.1:8000", "")
    gql(api_client, "mutation($s: String!) { expireSignerTokens(signerEid: $s) }", {"s": first.eid})

    page = Client().get(link)
    assert page.status_code == 410
    assert "Email me a new link" not in page.content.decode()
    token = link.split("token=")[1]
    assert (
        Client().post(f"/api/etch/sign/{first.eid}/new-link", {"token": token}).status_code == 404
    )


def test_reminders_every_n_days_until_signed(graphql) -> None:
    variables = two_signer_packet(reminderDays=2)
    for signer in variables["signers"]:
        signer["signerType"] = "email"
    created = graphql(CREATE_WITH_REMINDERS, variables)["data"]["createEtchPacket"]
    packet = Packet.objects.get(eid=created["eid"])
    first = packet.signers.get(routing_order=1)
    assert packet.reminder_days == 2
    send_queued_emails()
    assert signer_reminders_queue() == 0  # the first email is fresh

    SignerEmail.objects.update(sent_at=timezone.now() - timedelta(days=3))
    assert signer_reminders_queue() == 1
    assert signer_reminders_queue() == 0  # one on its way already
    assert send_queued_emails() == ["sent"]
    assert mail.outbox[-1].subject.startswith("Reminder: ")
    assert "A reminder: you are still asked to sign" in mail.outbox[-1].body

    Signer.objects.filter(pk=first.pk).update(status="completed")
    SignerEmail.objects.update(sent_at=timezone.now() - timedelta(days=3))
    assert signer_reminders_queue() == 0  # they signed


@pytest.mark.parametrize("days", [0, -1, 366])
def test_reminder_days_must_be_a_sensible_whole_number(graphql, days) -> None:
    result = graphql(CREATE_WITH_REMINDERS, {**two_signer_packet(), "reminderDays": days})

    assert result["data"]["createEtchPacket"] is None
    [field] = result["errors"][0]["extensions"]["fields"]
    assert field == {"property": "reminderDays", "message": "Must be a whole number from 1 to 365."}
    assert Packet.objects.count() == 0
