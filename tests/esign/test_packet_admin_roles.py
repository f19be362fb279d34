"""A packet's admin page by role (issue 32, item 4): a member of its organization sees the
packet without its Void and Email a new link buttons, and reaching them anyway is a 403 that
changes nothing; an admin of it gets the buttons and their pages."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import Organization
from esign.models import Packet, SignerEmail
from tests.esign.conftest import esign_staff_client, send_queued_emails, two_signer_packet

pytestmark = pytest.mark.django_db


def staff(organization: Organization, role: str) -> Client:
    return esign_staff_client(organization, role=role, username=f"acme-{role}")


@pytest.fixture
def packet(create_packet: Any) -> Packet:
    variables = two_signer_packet()
    for signer in variables["signers"]:
        signer["signerType"] = "email"
    packet = Packet.objects.get(eid=create_packet(signers=variables["signers"])["eid"])
    send_queued_emails()
    packet.refresh_from_db()
    return packet


def test_a_member_sees_the_packet_and_cannot_act_on_it(
    packet: Packet, organization: Organization
) -> None:
    member = staff(organization, "member")
    emails = SignerEmail.objects.count()
    status = packet.status

    page = member.get(reverse("admin:esign_packet_change", args=[packet.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert packet.name in html
    assert reverse("admin:esign_packet_void", args=[packet.pk]) not in html
    assert reverse("admin:esign_packet_resend", args=[packet.pk]) not in html
    listing = member.get(reverse("admin:esign_packet_changelist"))
    offered = {name for name, _ in listing.context["action_form"].fields["action"].choices}
    assert not offered & {"void", "resend_signing_emails", "seal_again"}

    assert member.get(reverse("admin:esign_packet_void", args=[packet.pk])).status_code == 403
    assert member.post(reverse("admin:esign_packet_void", args=[packet.pk])).status_code == 403
    assert member.post(reverse("admin:esign_packet_resend", args=[packet.pk])).status_code == 403
    packet.refresh_from_db()
    assert packet.status == status
    assert SignerEmail.objects.count() == emails


def test_an_admin_gets_the_buttons(packet: Packet, organization: Organization) -> None:
    admin = staff(organization, "admin")

    html = admin.get(reverse("admin:esign_packet_change", args=[packet.pk])).content.decode()

    assert reverse("admin:esign_packet_void", args=[packet.pk]) in html
    assert reverse("admin:esign_packet_resend", args=[packet.pk]) in html
    assert admin.post(reverse("admin:esign_packet_void", args=[packet.pk])).status_code == 302
    packet.refresh_from_db()
    assert packet.status == Packet.Status.VOIDED
