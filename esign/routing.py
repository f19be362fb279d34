"""Whose turn it is: signers of one routing order sign in parallel, the next order waits for all
of them; a turn starts with the signer ``sent`` and, for an email signer, an email queued."""

from __future__ import annotations

from django.db import transaction

from core.errors import Conflict, ValidationFailed
from esign import lifecycle
from esign.emails import signer_email_queue
from esign.models import Packet, Signer


def locked(packet: Packet) -> Packet:
    """The packet's row, locked for the rest of the transaction (every change of a packet or
    of its signers holds it)."""
    return Packet.objects.select_for_update().get(pk=packet.pk)


def turn_signers(packet: Packet) -> list[Signer]:
    """The signers whose turn it is: the lowest routing order with someone still to sign."""
    waiting = [s for s in packet.signers.all() if s.status not in lifecycle.FINISHED_SIGNER]
    if not waiting:
        return []
    lowest = min(s.routing_order for s in waiting)
    return [s for s in waiting if s.routing_order == lowest]


def is_signers_turn(signer: Signer) -> bool:
    return signer.packet.status in lifecycle.OPEN_PACKET and signer in turn_signers(signer.packet)


def notify_next(packet: Packet) -> None:
    """Start the turn of the next routing group (in the caller's transaction)."""
    for signer in turn_signers(packet):
        if signer.status != Signer.Status.CREATED:
            continue
        signer.packet = packet
        lifecycle.signer_move(signer, Signer.Status.SENT)
        signer_email_queue(signer=signer)


def packet_send(*, packet: Packet) -> Packet:
    """Send a draft: the first routing group is told it may sign."""
    with transaction.atomic():
        packet = locked(packet)
        if packet.status != Packet.Status.DRAFT:
            raise Conflict(f"Packet '{packet.eid}' was already sent.")
        if not packet.signers.exists():
            raise ValidationFailed.single("signers", "A packet needs at least one signer to send.")
        lifecycle.packet_move(packet, Packet.Status.SENT)
        notify_next(packet)
    return packet
