"""The life of a packet and its signers: which status may follow which, and the one way to
change one.

Every status change of a packet or a signer goes through :func:`packet_move` or
:func:`signer_move`, inside the transaction that makes it (the caller holds the packet's row
lock). Each checks the move against its table below (a move the table does not allow is a
Conflict, and nothing is written), stamps the time the status carries, keeps the document
group's status with the packet's, writes the audit entry, emits the webhook event and tells the
apps above (``esign.hooks``). The tables are the whole story; the database's CHECK constraints
keep the columns to these values.

The statuses (the compatible API's strings):

- packet: ``draft`` (made with isDraft, nobody told) → ``sent`` (the first routing group may
  sign) → ``delivered`` (a signer has the request: their email was handed to the mail server, or
  they opened their link) → ``partial`` (someone signed) → ``completed`` (everyone signed).
  ``declined`` (a signer refused) and ``voided`` (the sender cancelled) end it early.
  ``expired`` (an extension: its ``expires_at`` passed, esign.expiry) stops it until the sender
  extends it, which re-opens it as ``sent`` (nobody signed yet) or ``partial``.
- signer: ``created`` (not their turn yet) → ``sent`` (their turn: an email is on its way, or an
  embedded link may be made) → ``delivered`` (their email was handed to the mail server) →
  ``viewed`` (they opened the link) → ``completed``. ``declined`` (they refused), ``voided``
  (the packet was voided before they finished) and ``skipped`` (another signer declined, so
  their turn never comes, or enough members of their signing group signed for it:
  esign.signing_groups) end it. ``expired``: it was their turn when the packet expired; the
  packet's extension makes it their turn again (``sent``). ``forwarded`` (an extension,
  esign.forwarding): before they finished, they handed their turn to someone else (or the sender
  reassigned it); a new signer has their fields and routing order, and nobody waits for them.

The packet's seal and the signers' emails are work done by tasks (outbox rows, core.outbox): their
statuses move by the tables ``SEAL_MOVES`` and ``EMAIL_MOVES`` below, through ``SEALS`` and
``EMAILS``, which also keep their attempts, due times, leases and errors.

- seal (``Packet.seal_status``): blank until the packet is completed → ``pending`` (its task is
  queued) → ``sealed``; a failed attempt makes it ``retrying`` (retried at ``seal_retry_at``), and
  ``failed`` once the retries ran out or the error cannot go away by itself. An operator's retry
  (or the completion) makes it ``pending`` again from any status but ``sealed``; an attempt may
  fail or succeed whatever another attempt recorded, until one sealed it.
- signer email: ``pending`` → ``sent``, ``failed`` (every retry failed) or ``cancelled`` (no
  longer due). An attempt already sending when its email was cancelled still records what became
  of it (``sent`` or ``failed``): the signer may have it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.utils import timezone

from core.errors import Conflict
from core.outbox import Moves, Outbox
from esign import events, hooks
from esign.audit import AuditAction, Client, audit
from esign.models import DocumentGroup, Packet, Signer, SignerEmail

P, S = Packet.Status, Signer.Status

PACKET_MOVES: Mapping[str, frozenset[str]] = {
    P.DRAFT: frozenset({P.SENT, P.VOIDED}),
    P.SENT: frozenset({P.DELIVERED, P.PARTIAL, P.COMPLETED, P.DECLINED, P.VOIDED, P.EXPIRED}),
    P.DELIVERED: frozenset({P.PARTIAL, P.COMPLETED, P.DECLINED, P.VOIDED, P.EXPIRED}),
    P.PARTIAL: frozenset({P.COMPLETED, P.DECLINED, P.VOIDED, P.EXPIRED}),
    P.EXPIRED: frozenset({P.SENT, P.PARTIAL, P.VOIDED}),
    P.COMPLETED: frozenset(),
    P.DECLINED: frozenset(),
    P.VOIDED: frozenset(),
}
SIGNER_MOVES: Mapping[str, frozenset[str]] = {
    S.CREATED: frozenset({S.SENT, S.SKIPPED, S.VOIDED, S.FORWARDED}),
    S.SENT: frozenset(
        {S.DELIVERED, S.VIEWED, S.COMPLETED, S.DECLINED, S.SKIPPED, S.VOIDED, S.EXPIRED}
        | {S.FORWARDED}
    ),
    S.DELIVERED: frozenset(
        {S.VIEWED, S.COMPLETED, S.DECLINED, S.SKIPPED, S.VOIDED, S.EXPIRED, S.FORWARDED}
    ),
    S.VIEWED: frozenset({S.COMPLETED, S.DECLINED, S.SKIPPED, S.VOIDED, S.EXPIRED, S.FORWARDED}),
    S.EXPIRED: frozenset({S.SENT, S.VOIDED}),
    S.COMPLETED: frozenset(),
    S.DECLINED: frozenset(),
    S.SKIPPED: frozenset(),
    S.VOIDED: frozenset(),
    S.FORWARDED: frozenset(),
}
Seal, Email = Packet.SealStatus, SignerEmail.Status
SEAL_MOVES = Moves(
    "packet's seal",
    {
        "": frozenset({Seal.PENDING}),
        Seal.PENDING: frozenset({Seal.PENDING, Seal.SEALED, Seal.RETRYING, Seal.FAILED}),
        Seal.RETRYING: frozenset({Seal.PENDING, Seal.SEALED, Seal.RETRYING, Seal.FAILED}),
        Seal.FAILED: frozenset({Seal.PENDING, Seal.SEALED, Seal.RETRYING, Seal.FAILED}),
        Seal.SEALED: frozenset(),
    },
)
# A seal's lease is its task's (a seal task running longer than SEAL_LEASE_SECONDS was lost:
# esign.sweeps), so the packet counts failed attempts, not claims.
SEALS = Outbox(
    Packet,
    SEAL_MOVES,
    waiting=frozenset({Seal.PENDING, Seal.RETRYING}),
    failed=Seal.FAILED,
    retrying=Seal.RETRYING,
    status="seal_status",
    attempts="seal_attempts",
    due_at="seal_retry_at",
    leased_until=None,
    last_error="seal_error",
    count_attempts="failed",
)
EMAIL_MOVES = Moves(
    "signer's email",
    {
        Email.PENDING: frozenset({Email.SENT, Email.FAILED, Email.CANCELLED}),
        Email.CANCELLED: frozenset({Email.SENT, Email.FAILED}),
        Email.SENT: frozenset(),
        Email.FAILED: frozenset(),
    },
)
EMAILS = Outbox(
    SignerEmail,
    EMAIL_MOVES,
    waiting=frozenset({Email.PENDING}),
    failed=Email.FAILED,
    leased_until="claimed_until",
)

OPEN_PACKET = frozenset({P.SENT, P.DELIVERED, P.PARTIAL})
# Nobody waits for these any more: a forwarded signer's turn is their successor's.
FINISHED_SIGNER = frozenset({S.COMPLETED, S.SKIPPED, S.FORWARDED})
ENDED_SIGNER = frozenset(s for s, moves in SIGNER_MOVES.items() if not moves)

# The audit action of each packet status reached (signers' moves name their own).
_PACKET_ACTIONS: dict[str, AuditAction] = {
    P.SENT: AuditAction.PACKET_SENT,
    P.DELIVERED: AuditAction.PACKET_DELIVERED,
    P.PARTIAL: AuditAction.PACKET_PARTIALLY_SIGNED,
    P.COMPLETED: AuditAction.PACKET_COMPLETED,
    P.DECLINED: AuditAction.PACKET_DECLINED,
    P.VOIDED: AuditAction.PACKET_VOIDED,
    P.EXPIRED: AuditAction.PACKET_EXPIRED,
}
_SIGNER_ACTIONS: dict[str, AuditAction] = {
    S.SENT: AuditAction.SIGNER_NOTIFIED,
    S.DELIVERED: AuditAction.SIGNER_EMAIL_DELIVERED,
    S.VIEWED: AuditAction.SIGNER_VIEWED,
    S.COMPLETED: AuditAction.SIGNER_COMPLETED,
    S.DECLINED: AuditAction.SIGNER_DECLINED,
    S.SKIPPED: AuditAction.SIGNER_SKIPPED,
    S.VOIDED: AuditAction.SIGNER_VOIDED,
    S.EXPIRED: AuditAction.SIGNER_EXPIRED,
    S.FORWARDED: AuditAction.SIGNER_FORWARDED,
}


def packet_past_expiry(packet: Packet, now: datetime | None = None) -> bool:
    """Whether nobody may sign ``packet`` any more for its expiry: ``expired``, or open and past
    its ``expires_at`` (before the sweep moves it)."""
    if packet.status == P.EXPIRED:
        return True
    now = now or timezone.now()
    return (
        packet.status in OPEN_PACKET and packet.expires_at is not None and packet.expires_at <= now
    )


def packet_may_move(packet: Packet, to: str) -> bool:
    return to in PACKET_MOVES[packet.status]


def signer_may_move(signer: Signer, to: str) -> bool:
    return to in SIGNER_MOVES[signer.status]


def signer_emails_cancel(**where: Any) -> int:
    """Cancel the pending signers' emails that match ``where`` (a signer's turn, or the packet,
    ended): no longer due. Returns how many."""
    pending = SignerEmail.objects.filter(status=Email.PENDING, **where)
    return EMAILS.move_all(pending, Email.CANCELLED)


def packet_move(
    packet: Packet, to: str, *, detail: dict[str, Any] | None = None, client: Client | None = None
) -> None:
    """Move the (locked) packet to ``to``: status, its time, the group, audit, event, hooks."""
    if not packet_may_move(packet, to):
        raise Conflict(f"The packet is {packet.status}; it cannot become {to}.")
    now = timezone.now()
    # Leaving ``expired`` is the sender's extension, whatever status it returns to.
    action = AuditAction.PACKET_REOPENED if packet.status == P.EXPIRED else _PACKET_ACTIONS[to]
    packet.status = to
    fields = ["status", "updated_at"]
    if to == P.SENT and packet.sent_at is None:
        packet.sent_at = now
        fields.append("sent_at")
    elif to == P.COMPLETED:
        packet.completed_at = now
        fields.append("completed_at")
    packet.save(update_fields=fields)
    DocumentGroup.objects.filter(packet=packet).update(status=to, updated_at=now)
    audit(packet=packet, action=action, client=client, detail=detail)
    if to == P.COMPLETED:
        events.packet_completed(packet)
    elif to == P.EXPIRED:
        events.packet_expired(packet)
    hooks.packet_status_changed(packet)


def signer_move(
    signer: Signer,
    to: str,
    *,
    client: Client | None = None,
    detail: dict[str, Any] | None = None,
    fields: tuple[str, ...] = (),
) -> None:
    """Move the signer (of a locked packet) to ``to``, saving ``fields`` with it; writes the
    audit entry and the webhook event (signerComplete for a signature, else signerUpdateStatus).
    """
    if not signer_may_move(signer, to):
        raise Conflict(f"The signer is {signer.status}; they cannot become {to}.")
    action = AuditAction.SIGNER_REOPENED if signer.status == S.EXPIRED else _SIGNER_ACTIONS[to]
    signer.status = to
    update = ["status", "updated_at", *fields]
    if to == S.COMPLETED:
        signer.completed_at = signer.completed_at or timezone.now()
        update.append("completed_at")
    signer.save(update_fields=list(dict.fromkeys(update)))
    audit(
        packet=signer.packet,
        signer=signer,
        action=action,
        client=client,
        detail=detail,
    )
    if to == S.COMPLETED:
        events.signer_completed(signer)
    else:
        events.signer_status_changed(signer)
