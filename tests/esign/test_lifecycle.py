"""The life of a packet and its signers (esign.packets.lifecycle): every status reachable, each move
audited and announced, moves the tables forbid refused with nothing written, emails sent by a
retried task, removal that leaves nothing behind."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.test import Client
from django_tasks_db.models import DBTaskResult

from esign.links.emails import signer_email_send, signer_emails_recover
from esign.models import AuditEvent, Packet, Signer, SignerEmail
from esign.packets import lifecycle
from tests.conftest import graphql_answer as gql
from tests.esign.conftest import send_queued_emails, sign, signing_post, token_of, two_signer_packet
from webhooks.models import WebhookEvent

pytestmark = pytest.mark.django_db


VOID = "mutation($eid: String!) { voidDocumentGroup(eid: $eid) { eid status } }"
REMOVE = "mutation($eid: String!) { removeEtchPacket(eid: $eid) }"


def actions(packet: Packet) -> list[str]:
    return list(AuditEvent.objects.filter(packet=packet).values_list("action", flat=True))


def statuses(packet: Packet) -> dict[str, str]:
    return dict(Signer.objects.filter(packet=packet).values_list("alias_id", "status"))


def test_every_status_is_reachable_in_the_tables() -> None:
    for moves, values, start in (
        (lifecycle.PACKET_MOVES, Packet.Status.values, Packet.Status.DRAFT),
        (lifecycle.SIGNER_MOVES, Signer.Status.values, Signer.Status.CREATED),
    ):
        assert set(moves) == set(values)
        reached = {start}
        frontier = [start]
        while frontier:
            for target in moves[frontier.pop()]:
                if target not in reached:
                    reached.add(target)
                    frontier.append(target)
        assert reached == set(values)


def test_a_status_outside_the_tables_is_refused_by_the_database(create_packet) -> None:
    eid = create_packet()["eid"]
    for model, filters in ((Packet, {"eid": eid}), (Signer, {"packet__eid": eid})):
        with pytest.raises(IntegrityError), transaction.atomic():
            model.objects.filter(**filters).update(status="archived")


def test_a_packet_is_sent_delivered_partial_then_completed(
    create_packet, sign_url, client: Client
) -> None:
    created = create_packet()
    packet = Packet.objects.get(eid=created["eid"])
    signers = {s["aliasId"]: s["eid"] for s in created["documentGroup"]["signers"]}
    assert (packet.status, statuses(packet)) == ("sent", {"client": "sent", "provider": "created"})

    first_token = token_of(sign_url(signers["client"]))
    # The second signer opening their link early changes nothing of their status.
    client.get(
        f"/api/etch/verify/{signers['provider']}?token={token_of(sign_url(signers['provider']))}"
    )
    assert statuses(packet)["provider"] == "created"
    client.get(f"/api/etch/verify/{signers['client']}?token={first_token}")
    packet.refresh_from_db()
    assert (packet.status, statuses(packet)["client"]) == ("delivered", "viewed")

    body = {"signature": {"typed": "Ada Lovelace"}, "values": {"agreement/title1": "CTO"}}
    assert sign(client, signers["client"], first_token, body).status_code == 200
    packet.refresh_from_db()
    assert (packet.status, statuses(packet)) == (
        "partial",
        {"client": "completed", "provider": "sent"},
    )
    second = token_of(sign_url(signers["provider"]))
    done = sign(client, signers["provider"], second, {"signature": {"typed": "Charles"}})
    assert done.status_code == 200
    packet.refresh_from_db()
    assert packet.status == "completed"
    assert packet.document_group.status == "completed"
    assert [a for a in actions(packet) if a.startswith("packet")] == [
        "packetCreated",
        "packetSent",
        "packetDelivered",
        "packetPartiallySigned",
        "packetCompleted",
    ]


def test_a_callback_is_told_only_of_the_moves_it_sees(
    create_packet, sign_url, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``seen_as``: an app above (workflows) that sees sent and delivered as one state is not
    called for the move between them; a callback without it hears of every move."""
    monkeypatch.setattr(lifecycle, "_callbacks", [])
    heard: dict[str, list[str]] = {"every": [], "seen": []}
    lifecycle.on_packet_status_change(lambda packet: heard["every"].append(packet.status))
    lifecycle.on_packet_status_change(
        lambda packet: heard["seen"].append(packet.status),
        seen_as={"sent": "open", "delivered": "open", "partial": "half", "completed": "done"},
    )
    created = create_packet()
    signers = {s["aliasId"]: s["eid"] for s in created["documentGroup"]["signers"]}
    first = token_of(sign_url(signers["client"]))
    client.get(f"/api/etch/verify/{signers['client']}?token={first}")
    body = {"signature": {"typed": "Ada Lovelace"}, "values": {"agreement/title1": "CTO"}}
    assert sign(client, signers["client"], first, body).status_code == 200
    second = token_of(sign_url(signers["provider"]))
    done = sign(client, signers["provider"], second, {"signature": {"typed": "Charles"}})
    assert done.status_code == 200

    assert heard["every"] == ["sent", "delivered", "partial", "completed"]
    assert heard["seen"] == ["sent", "partial", "completed"]  # draft is nothing to it: told


def test_an_email_signer_is_delivered_when_the_mail_server_takes_the_email(
    create_packet,
) -> None:
    variables = two_signer_packet()
    variables["signers"][0]["signerType"] = "email"
    packet = Packet.objects.get(eid=create_packet(signers=variables["signers"])["eid"])
    assert mail.outbox == []

    assert send_queued_emails() == ["sent"]

    packet.refresh_from_db()
    assert (packet.status, statuses(packet)["client"]) == ("delivered", "delivered")
    assert actions(packet)[-3:] == ["signerEmailSent", "signerEmailDelivered", "packetDelivered"]
    assert SignerEmail.objects.get().status == "sent"
    assert send_queued_emails() == []  # sent once


class RefusingBackend:
    """A mail server that is down."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def send_messages(self, messages: Any) -> int:
        raise ConnectionRefusedError("the mail server is down")


def test_a_refused_email_is_retried_then_recorded_as_failed(create_packet, settings) -> None:
    settings.EMAIL_BACKEND = f"{__name__}.RefusingBackend"
    settings.SIGNER_EMAIL_RETRY_DELAYS = [1.0]
    variables = two_signer_packet()
    variables["signers"][0]["signerType"] = "email"
    packet = Packet.objects.get(eid=create_packet(signers=variables["signers"])["eid"])
    email = SignerEmail.objects.get()

    first = signer_email_send(email_id=email.pk, attempt=1)
    assert first.startswith("retrying at ")
    email.refresh_from_db()
    assert (email.status, email.attempts) == ("pending", 1)
    assert "ConnectionRefusedError" in email.last_error
    queued = DBTaskResult.objects.filter(task_path="esign.tasks.signer_email_task")
    assert sorted(r.args_kwargs["kwargs"]["attempt"] for r in queued) == [1, 2]
    assert {r.args_kwargs["kwargs"]["email_id"] for r in queued} == {email.pk}

    assert signer_email_send(email_id=email.pk, attempt=2) == "failed"
    email.refresh_from_db()
    assert (email.status, email.attempts) == ("failed", 2)
    assert "signerEmailFailed" in actions(packet)
    packet.refresh_from_db()
    assert packet.status == "sent"  # nobody has the request


def test_the_sweep_sends_an_email_whose_task_was_lost(
    create_packet, django_capture_on_commit_callbacks
) -> None:
    variables = two_signer_packet()
    variables["signers"][0]["signerType"] = "email"
    create_packet(signers=variables["signers"])
    email = SignerEmail.objects.get()
    DBTaskResult.objects.filter(task_path="esign.tasks.signer_email_task").delete()  # lost
    assert signer_emails_recover() == 0  # not due for long enough yet

    SignerEmail.objects.filter(pk=email.pk).update(due_at=email.due_at - lifecycle_lease())
    with django_capture_on_commit_callbacks(execute=True):
        assert signer_emails_recover() == 1
    assert DBTaskResult.objects.filter(task_path="esign.tasks.signer_email_task").count() == 1
    assert send_queued_emails() == ["sent"]


def lifecycle_lease():
    from datetime import timedelta

    from django.conf import settings

    return timedelta(seconds=settings.SIGNER_EMAIL_LEASE_SECONDS + 1)


def test_voiding_ends_it_once_with_an_event_per_signer(create_packet, api_client) -> None:
    created = create_packet()
    group = created["documentGroup"]["eid"]
    before = WebhookEvent.objects.count()

    voided = gql(api_client, VOID, {"eid": group})
    assert voided["data"]["voidDocumentGroup"]["status"] == "voided"
    packet = Packet.objects.get(eid=created["eid"])
    assert statuses(packet) == {"client": "voided", "provider": "voided"}
    events = WebhookEvent.objects.order_by("pk")[before:]
    assert [(e.action, e.data["signer"]["status"]) for e in events] == [
        ("signerUpdateStatus", "voided"),
        ("signerUpdateStatus", "voided"),
    ]

    again = gql(api_client, VOID, {"eid": group})
    assert again["errors"][0]["extensions"]["code"] == "ConflictError"
    assert WebhookEvent.objects.count() == before + 2
    assert actions(packet).count("packetVoided") == 1


def test_a_declined_packet_cannot_be_voided_and_the_others_are_skipped(
    create_packet, sign_url, client: Client, api_client
) -> None:
    created = create_packet()
    signers = {s["aliasId"]: s["eid"] for s in created["documentGroup"]["signers"]}
    token = token_of(sign_url(signers["client"]))
    declined = signing_post(client, signers["client"], token, "decline", {"reason": "Wrong amount"})
    assert declined.status_code == 200, declined.content
    packet = Packet.objects.get(eid=created["eid"])
    assert (packet.status, statuses(packet)) == (
        "declined",
        {"client": "declined", "provider": "skipped"},
    )
    refused = gql(api_client, VOID, {"eid": created["documentGroup"]["eid"]})
    assert refused["errors"][0]["extensions"]["code"] == "ConflictError"


def test_a_signer_cannot_decline_before_their_turn(create_packet, sign_url, client) -> None:
    created = create_packet()
    second = created["documentGroup"]["signers"][1]["eid"]
    token = token_of(sign_url(second))

    early = signing_post(client, second, token, "decline", {"reason": "No"})

    assert early.status_code == 409
    packet = Packet.objects.get(eid=created["eid"])
    assert (packet.status, statuses(packet)) == ("sent", {"client": "sent", "provider": "created"})


def test_removing_voids_first_and_deletes_every_stored_file(
    create_packet, sign_url, client: Client, api_client, django_capture_on_commit_callbacks
) -> None:
    created = create_packet()
    signers = {s["aliasId"]: s["eid"] for s in created["documentGroup"]["signers"]}
    token = token_of(sign_url(signers["client"]))
    body = {"signature": {"typed": "Ada"}, "values": {"agreement/title1": "CTO"}}
    with_drawn = {**body, "signature": {"drawn": "data:image/png;base64," + _png()}}
    assert sign(client, signers["client"], token, with_drawn).status_code == 200
    packet = Packet.objects.select_related("organization").get(eid=created["eid"])
    folder = f"packets/{packet.organization.eid}/{packet.eid}"
    drawn = Signer.objects.get(eid=signers["client"]).signature_path
    assert drawn.startswith("signatures/")
    assert len(default_storage.listdir(folder)[1]) >= 2  # prepared, stamped
    assert default_storage.exists(drawn)
    before = WebhookEvent.objects.count()

    with django_capture_on_commit_callbacks() as on_commit:
        removed = gql(api_client, REMOVE, {"eid": created["eid"]})
    assert removed["data"]["removeEtchPacket"] is True
    assert default_storage.exists(drawn)  # the files go once the deletion is committed
    for callback in on_commit:
        callback()

    assert not Packet.objects.filter(eid=created["eid"]).exists()
    assert default_storage.listdir(folder)[1] == []
    assert not default_storage.exists(drawn)
    events = WebhookEvent.objects.order_by("pk")[before:]
    assert [(e.action, e.data["signer"]["status"]) for e in events] == [
        ("signerUpdateStatus", "voided")
    ]


def _png() -> str:
    import base64

    from tests.esign.conftest import drawn_signature_png

    return base64.b64encode(drawn_signature_png()).decode()


def test_a_completed_packet_is_kept(complete, api_client) -> None:
    created, packet = complete()
    refused = gql(api_client, REMOVE, {"eid": created["eid"]})
    assert refused["errors"][0]["extensions"]["code"] == "ConflictError"
    assert Packet.objects.filter(pk=packet.pk).exists()
