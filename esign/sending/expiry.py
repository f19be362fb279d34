"""A packet's expiry (an extension): createEtchPacket's ``expiresAt`` / ``expiresInDays`` and
extendEtchPacket.

Past its ``expires_at`` nobody may sign: the signing link is refused at once (esign.links.tokens),
and the sweep (esign.sweeps) moves the open packet to ``expired``, its signers whose turn it was to
``expired``, ends their links and emits ``etchPacketExpired``. Reminders and queued emails stop
with it (they are only for open packets). The sender may move the date, before or after: after,
the packet re-opens, its expired signers are asked again and those who get emails are sent a new
link, within the per-signer cap on new links (esign.links.limits).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.identity import ApiIdentity
from core.claims import claim_one
from core.engine.problems import Problem
from core.errors import Conflict, ValidationFailed
from esign.links.emails import WAITING_FOR_LINK, gets_emails, signer_email_queue
from esign.links.limits import new_link_count
from esign.links.tokens import signer_tokens_revoke
from esign.models import Packet, Signer, SignerEmail
from esign.packets import lifecycle
from esign.packets.audit import AuditAction
from esign.packets.inputs import expiry_at
from esign.packets.lifecycle import audit
from esign.packets.lookups import packet_get


def _due(now: datetime) -> Any:
    return Packet.objects.filter(
        status__in=lifecycle.OPEN_PACKET, expires_at__isnull=False, expires_at__lte=now
    )


def packets_expire(*, now: datetime, limit: int = 1000) -> int:
    """The sweep: expire every open packet past its ``expires_at``; returns how many."""
    expired = 0
    for packet_id in list(_due(now).order_by("pk").values_list("pk", flat=True)[:limit]):
        with claim_one(_due(now), packet_id) as packet:
            if packet is None:
                continue  # signed, voided or extended meanwhile, or another sweep has it
            for signer in packet.signers.filter(status__in=WAITING_FOR_LINK):
                signer.packet = packet
                signer_tokens_revoke(signer=signer)
                lifecycle.signer_move(signer, Signer.Status.EXPIRED)
            lifecycle.signer_emails_cancel(signer__packet=packet)
            lifecycle.packet_move(
                packet, Packet.Status.EXPIRED, detail={"expiresAt": packet.expires_at.isoformat()}
            )
            expired += 1
    return expired


def packet_extend(*, identity: ApiIdentity, eid: str, expires_at: Any) -> Packet:
    """extendEtchPacket: the packet expires at ``expires_at`` instead (a draft, open or expired
    packet). An expired one re-opens: its expired signers are asked again, and those who get
    emails are sent a new link (each counted against the per-signer cap first: past it,
    ``RateLimited`` and nothing changes)."""
    packet = packet_get(organization=identity.organization, eid=eid)
    problems: list[Problem] = []
    when = expiry_at(expires_at, "expiresAt", problems, now=timezone.now())
    if problems or when is None:
        raise ValidationFailed.from_problems(problems)
    if packet.status not in {Packet.Status.DRAFT, Packet.Status.EXPIRED, *lifecycle.OPEN_PACKET}:
        raise Conflict(f"The packet is {packet.status}; its expiry cannot change.")
    for signer in packet.signers.filter(status=Signer.Status.EXPIRED):
        if gets_emails(signer):
            new_link_count(signer=signer)
    requested_by = f"API key {identity.api_key.prefix}"
    with transaction.atomic():
        packet = Packet.objects.select_for_update().get(pk=packet.pk)
        previous = packet.expires_at
        packet.expires_at = when
        packet.save(update_fields=["expires_at", "updated_at"])
        detail = {
            "expiresAt": when.isoformat(),
            "previous": previous.isoformat() if previous else None,
            "requestedBy": requested_by,
        }
        audit(packet=packet, action=AuditAction.PACKET_EXTENDED, detail=detail)
        if packet.status == Packet.Status.EXPIRED:
            _reopen(packet, requested_by=requested_by)
    packet.refresh_from_db()
    return packet


def _reopen(packet: Packet, *, requested_by: str) -> None:
    """The expired (locked) packet is open again: as ``partial`` if someone signed, else
    ``sent``; the signers whose turn it was are ``sent`` again, emailed a new link."""
    signed = packet.signers.filter(status=Signer.Status.COMPLETED).exists()
    lifecycle.packet_move(packet, Packet.Status.PARTIAL if signed else Packet.Status.SENT)
    for signer in packet.signers.filter(status=Signer.Status.EXPIRED):
        signer.packet = packet
        lifecycle.signer_move(signer, Signer.Status.SENT)
        if signer_email_queue(signer=signer, kind=SignerEmail.Kind.RESEND) is not None:
            audit(
                packet=packet,
                signer=signer,
                action=AuditAction.SIGNER_EMAIL_REQUESTED,
                detail={"requestedBy": requested_by},
            )
