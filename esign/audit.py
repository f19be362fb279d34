"""The audit trail's entries: what happened to a packet, who did it, from where.

Every action has a name (stored, and shown to API clients) and a label for people (the admin
and the certificate of completion). Entries are append-only (esign.models.AuditEvent).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import models

from esign.models import AuditEvent, Packet, Signer


class AuditAction(models.TextChoices):
    PACKET_CREATED = "packetCreated", "Packet created"
    PACKET_SENT = "packetSent", "Packet sent"
    PACKET_DELIVERED = "packetDelivered", "A signer received the request"
    PACKET_PARTIALLY_SIGNED = "packetPartiallySigned", "Signed by some signers"
    PACKET_COMPLETED = "packetCompleted", "Every signer signed"
    PACKET_DECLINED = "packetDeclined", "Packet declined"
    PACKET_VOIDED = "packetVoided", "Packet voided"
    PACKET_SEAL_FAILED = "packetSealFailed", "Sealing postponed"
    PACKET_SEALED = "packetSealed", "Documents sealed"
    SIGNER_NOTIFIED = "signerNotified", "Asked to sign"
    SIGNER_EMAIL_REQUESTED = "signerEmailRequested", "A new signing link was asked for"
    SIGNER_EMAIL_SENT = "signerEmailSent", "Signing email sent"
    SIGNER_EMAIL_FAILED = "signerEmailFailed", "Signing email could not be sent"
    SIGNER_EMAIL_DELIVERED = "signerEmailDelivered", "Signing email handed to the mail server"
    SIGNING_URL_CREATED = "signingUrlCreated", "Signing link created"
    SIGNER_VIEWED = "signerViewed", "Opened the signing link"
    SIGNER_COMPLETED = "signerCompleted", "Signed"
    SIGNER_DECLINED = "signerDeclined", "Declined"
    SIGNER_SKIPPED = "signerSkipped", "No longer asked to sign"
    SIGNER_VOIDED = "signerVoided", "Request cancelled"
    TOKENS_EXPIRED = "tokensExpired", "Signing links expired"


def action_label(action: str) -> str:
    """The label of ``action`` for people; an unknown (older) action as it is."""
    try:
        return str(AuditAction(action).label)
    except ValueError:
        return action


@dataclass(frozen=True)
class Client:
    """Where a signer's request came from, for the audit trail."""

    ip: str | None = None
    user_agent: str = ""


def audit(
    *,
    packet: Packet,
    action: str,
    signer: Signer | None = None,
    client: Client | None = None,
    detail: dict[str, Any] | None = None,
) -> AuditEvent:
    """Append an entry to ``packet``'s trail (in the caller's transaction)."""
    client = client or Client()
    return AuditEvent.objects.create(
        packet=packet,
        signer=signer,
        action=AuditAction(action).value,
        ip=client.ip,
        user_agent=client.user_agent[:500],
        detail=detail or {},
    )
