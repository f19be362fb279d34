"""A forwarded turn afterwards: the trail PDF says who handed the turn to whom and by whom, and a
sealed packet with a forwarded signer validates."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.core import mail
from django.test import Client

from esign.models import Packet, Signer
from esign.sealing.certificate import audit_trail_pdf
from tests.esign.conftest import DRAWN, send_queued_emails, sign, token_of
from tests.esign.test_forward import REASSIGN, forward, link_of
from tests.esign.test_forward import forwarding as forwarding  # noqa: F401 - the fixture
from tests.pdfcheck import joined_words

pytestmark = pytest.mark.django_db


# --- the audit trail and the seal ---------------------------------------------------------------


def test_the_trail_pdf_says_who_handed_the_turn_to_whom_and_by_whom(graphql, forwarding) -> None:
    created, link = forwarding()
    ada = Signer.objects.get(alias_id="client")
    forward(
        Client(), ada.eid, token_of(link), {"name": "Grace Hopper", "email": "grace@example.com"}
    )
    graphql(
        REASSIGN,
        {
            "s": created["documentGroup"]["signers"][1]["eid"],
            "name": "Mary",
            "email": "mary@example.com",
        },
    )
    packet = Packet.objects.get(eid=created["eid"])

    pdf = audit_trail_pdf(packet, credentials=SimpleNamespace(subject="Test seal"))  # type: ignore[arg-type]
    text = joined_words(pdf)
    for label in (
        "Request handed to another person",
        "to Grace Hopper <grace@example.com>, by the signer",
        "Asked to sign in another signer's place",
        "in place of Ada Lovelace <ada@example.com>, by the signer",
        "to Mary <mary@example.com>, by the sender (API key",
        "forwarded",
    ):
        assert label in text, label

    packet.language = "es"
    packet.save(update_fields=["language"])
    spanish = audit_trail_pdf(packet, credentials=SimpleNamespace(subject="Test seal"))  # type: ignore[arg-type]
    text = joined_words(spanish)
    assert "Solicitud entregada a otra persona" in text
    assert "a Grace Hopper <grace@example.com>, por el firmante" in text


def test_a_sealed_packet_with_a_forwarded_signer_validates(
    graphql, forwarding, api_client, django_capture_on_commit_callbacks
) -> None:

    from esign.sealing.seal import packet_seal
    from tests.esign.test_seal_packets import trusted_archive

    created, link = forwarding()
    ada = Signer.objects.get(alias_id="client")
    forward(
        Client(), ada.eid, token_of(link), {"name": "Grace Hopper", "email": "grace@example.com"}
    )
    send_queued_emails()
    grace = Signer.objects.get(alias_id="client-2")
    grace_link = link_of(mail.outbox[-1])
    sign(
        Client(),
        grace.eid,
        token_of(grace_link),
        {"signature": {"typed": "Grace Hopper"}, "values": {"agreement/title1": "Rear Admiral"}},
    )
    send_queued_emails()
    charles_link = link_of(mail.outbox[-1])
    charles = Signer.objects.get(alias_id="provider")
    with django_capture_on_commit_callbacks(execute=True):
        done = sign(Client(), charles.eid, token_of(charles_link), {"signature": {"drawn": DRAWN}})
    assert done.json()["event"]["documentGroupStatus"] == "completed"
    packet = Packet.objects.get(eid=created["eid"])
    assert packet_seal(packet_id=packet.pk).startswith("sealed")

    archive = trusted_archive(api_client, created)
    document = joined_words(archive.read("agreement.pdf"))
    assert "Grace Hopper" in document
    assert "Rear Admiral" in document
    trail = joined_words(archive.read("audit-trail.pdf"))
    assert "to Grace Hopper <grace@example.com>, by the signer" in trail
    assert "Ada Lovelace" in trail
