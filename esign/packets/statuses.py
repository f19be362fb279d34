"""The statuses of a packet, its signers, its seal and its signers' emails: which status may
follow which, and the audit action of each status reached. The tables are the whole story: the
one way to change a status, and what each change writes, is esign.packets.lifecycle (which checks
every move against them), and the database's CHECK constraints keep the columns to these values.

The statuses (the compatible API's strings):

- packet: ``draft`` (made with isDraft, nobody told) → ``sent`` (the first routing group may
  sign) → ``delivered`` (a signer has the request: their email was handed to the mail server, or
  they opened their link) → ``partial`` (someone signed) → ``completed`` (everyone signed).
  ``declined`` (a signer refused) and ``voided`` (the sender cancelled) end it early.
  ``expired`` (an extension: its ``expires_at`` passed, esign.sending.expiry) stops it until the
  sender extends it, which re-opens it as ``sent`` (nobody signed yet) or ``partial``.
- signer: ``created`` (not their turn yet) → ``sent`` (their turn: an email is on its way, or an
  embedded link may be made) → ``delivered`` (their email was handed to the mail server) →
  ``viewed`` (they opened the link) → ``completed``. ``declined`` (they refused), ``voided``
  (the packet was voided before they finished) and ``skipped`` (another signer declined, so
  their turn never comes, or enough members of their signing group signed for it:
  esign.packets.groups) end it. ``expired``: it was their turn when the packet expired; the
  packet's extension makes it their turn again (``sent``). ``forwarded`` (an extension,
  esign.signing.forwarding): before they finished, they handed their turn to someone else (or the
  sender reassigned it); a new signer has their fields and routing order, and nobody waits for them.

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

from core.outbox import Moves, Outbox
from esign.models import Packet, Signer, SignerEmail
from esign.packets.audit import AuditAction

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
# An attempt holds the packet's seal for SEAL_LEASE_SECONDS (seal_leased_until; the sweep,
# esign.sweeps, hands back a seal whose lease ran out). The packet counts failed attempts, not
# claims: an attempt lost with its worker does not use up a retry.
SEALS = Outbox(
    Packet,
    SEAL_MOVES,
    waiting=frozenset({Seal.PENDING, Seal.RETRYING}),
    failed=Seal.FAILED,
    retrying=Seal.RETRYING,
    status="seal_status",
    attempts="seal_attempts",
    due_at="seal_retry_at",
    leased_until="seal_leased_until",
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
PACKET_ACTIONS: dict[str, AuditAction] = {
    P.SENT: AuditAction.PACKET_SENT,
    P.DELIVERED: AuditAction.PACKET_DELIVERED,
    P.PARTIAL: AuditAction.PACKET_PARTIALLY_SIGNED,
    P.COMPLETED: AuditAction.PACKET_COMPLETED,
    P.DECLINED: AuditAction.PACKET_DECLINED,
    P.VOIDED: AuditAction.PACKET_VOIDED,
    P.EXPIRED: AuditAction.PACKET_EXPIRED,
}
SIGNER_ACTIONS: dict[str, AuditAction] = {
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
