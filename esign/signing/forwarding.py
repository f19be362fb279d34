"""Handing a signer's turn to someone else (an extension): the signer's forward from the signing
page, where the packet allows it (createEtchPacket's ``allowForward``, or the signer JSON's own),
and the sender's reassignment (reassignEtchSigner, the packet's admin page).

Either way a new signer takes the original's fields, routing order and options (a code by email
to their own address if the original had one to enter), their place in a signing group and
their role (a witness's successor witnesses the same signer; the witnesses of a signer whose
turn is handed on witness the successor from then on), the original becomes ``forwarded`` (their
links end, their queued emails are cancelled: nobody waits for them any more), and, if it was
their turn, the new signer's turn starts at once with an email saying in whose place they sign.
Both signers' entries of the audit trail say who handed the turn to whom and by whom, and the
``signerForwarded`` webhook event reports it.

Refused, with nothing written: a packet that ended (completed, declined, voided, expired); a
signer who finished or whose turn was handed on already; an address that is already one of the
packet's signers'; a forward by a signer the packet does not let forward, or before their turn.
A signer reached by a forward cannot forward again (only the sender may reassign them), and a
packet's turns are handed on at most MAX_FORWARDS_PER_PACKET times.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from accounts.identity import ApiIdentity
from core.errors import Conflict, ValidationFailed
from esign.links.codes import CODE_METHODS
from esign.links.emails import WAITING_FOR_LINK, signer_email_queue
from esign.links.tokens import signer_tokens_revoke
from esign.models import Packet, Signer, SignerEmail
from esign.packets import lifecycle
from esign.packets.audit import AuditAction, Client
from esign.packets.inputs import ForwardInput, parse_forward_input
from esign.packets.lifecycle import audit
from esign.packets.lookups import signer_get
from esign.signing.turns import is_signers_turn, locked

MAX_FORWARDS_PER_PACKET = 10
ALREADY_A_SIGNER = "This address is already a signer of the packet."
BY_SIGNER = "signer"
BY_SENDER = "sender"
# Packets whose signers' turns may still be handed on.
_OPEN = frozenset({Packet.Status.DRAFT, *lifecycle.OPEN_PACKET})


def may_forward(signer: Signer) -> bool:
    """Whether the signing page offers ``signer`` to forward their turn: the packet lets them,
    it is their turn and they have not finished."""
    return (
        signer.allow_forward
        and signer.status in WAITING_FOR_LINK
        and not lifecycle.packet_past_expiry(signer.packet)
        and is_signers_turn(signer)
    )


def reassignable_signers(packet: Packet) -> list[Signer]:
    """The signers whose turn the sender may hand on now (none once the packet ended)."""
    if packet.status not in _OPEN or lifecycle.packet_past_expiry(packet):
        return []
    forwardable = Signer.Status.FORWARDED
    return [s for s in packet.signers.all() if lifecycle.signer_may_move(s, forwardable)]


def signer_forward(*, signer: Signer, name: Any, email: Any, client: Client) -> Signer:
    """The signer hands their turn to ``name`` <``email``> from the signing page."""
    target = parse_forward_input(name, email)
    return _hand_over(signer, target, by=BY_SIGNER, requested_by="the signer", client=client)


def signer_reassign(*, identity: ApiIdentity, signer_eid: str, name: Any, email: Any) -> Signer:
    """reassignEtchSigner: the sender gives the signer's turn to ``name`` <``email``> (an email
    signer's successor needs an address; an embedded one's may have none)."""
    signer = signer_get(organization=identity.organization, eid=signer_eid)
    return signer_reassign_now(
        signer=signer, name=name, email=email, requested_by=f"API key {identity.api_key.prefix}"
    )


def signer_reassign_now(*, signer: Signer, name: Any, email: Any, requested_by: str) -> Signer:
    """The sender's reassignment (the API's, the admin's form), by ``requested_by``."""
    needs_email = signer.signer_type == Signer.Kind.EMAIL or signer.verify_method in CODE_METHODS
    target = parse_forward_input(name, email, email_required=needs_email)
    return _hand_over(signer, target, by=BY_SENDER, requested_by=requested_by, client=None)


def _check(packet: Packet, original: Signer, target: ForwardInput, *, by: str) -> None:
    """Why ``original``'s turn cannot go to ``target`` now (Conflict, ValidationFailed)."""
    if packet.status not in _OPEN or lifecycle.packet_past_expiry(packet):
        state = Packet.Status.EXPIRED if packet.status in _OPEN else packet.status
        raise Conflict(f"The packet is {state}; its signers' turns can no longer be handed on.")
    if not lifecycle.signer_may_move(original, Signer.Status.FORWARDED):
        raise Conflict(f"The signer is {original.status}; their turn can no longer be handed on.")
    if by == BY_SIGNER:
        if not original.allow_forward:
            raise Conflict("This packet does not let this signer forward their turn.")
        if not is_signers_turn(original):
            raise Conflict("It is not this signer's turn yet.")
    taken = {
        s.email.casefold()
        for s in packet.signers.exclude(status=Signer.Status.FORWARDED)
        if s.email
    }
    if target.email and target.email.casefold() in taken:
        raise ValidationFailed.single("email", ALREADY_A_SIGNER)
    if packet.signers.filter(forwarded_from__isnull=False).count() >= MAX_FORWARDS_PER_PACKET:
        raise Conflict(
            f"This packet's turns were handed on {MAX_FORWARDS_PER_PACKET} times already, as many "
            "as a packet allows."
        )


def _alias(packet: Packet, original: Signer) -> str:
    """The new signer's alias: the first signer's in the chain, numbered (client-2, client-3)."""
    root = original
    while root.forwarded_from is not None:
        root = root.forwarded_from
    taken = set(packet.signers.values_list("alias_id", flat=True))
    number = 2
    while f"{root.alias_id[:190]}-{number}" in taken:
        number += 1
    return f"{root.alias_id[:190]}-{number}"


def _hand_over(
    original: Signer, target: ForwardInput, *, by: str, requested_by: str, client: Client | None
) -> Signer:
    with transaction.atomic():
        packet = locked(original.packet)
        original = Signer.objects.select_for_update().get(pk=original.pk)
        original.packet = packet
        _check(packet, original, target, by=by)
        lifecycle.signer_handing_over(packet)
        in_turn = original.status in WAITING_FOR_LINK
        successor = Signer.objects.create(
            packet=packet,
            alias_id=_alias(packet, original),
            name=target.name,
            email=target.email,
            signer_type=original.signer_type,
            routing_order=original.routing_order,
            redirect_url=original.redirect_url,
            signature_mode=original.signature_mode,
            accept_each_field=original.accept_each_field,
            enable_emails=original.enable_emails,
            language=original.language,
            # A code to enter goes to the new signer's own address (the original's phone is
            # not theirs); the integrator's own verification stays the integrator's.
            verify_method="email" if original.verify_method in CODE_METHODS else "",
            fields=list(original.fields),
            allow_forward=False,  # a forward is not forwarded again but by the sender
            forwarded_from=original,
            # The successor stands where the original stood (esign.packets.groups): in their
            # signing group, so its ``required`` counts them and its settling skips them once
            # others signed; as a witness of the same signer.
            signing_group=original.signing_group,
            signing_group_required=original.signing_group_required,
            role=original.role,
            witness_for=original.witness_for,
            # The sender's values in the original's fields stay theirs to change or not
            # (allowUpdates, esign.signing.updates).
            allow_updates=original.allow_updates,
        )
        if original.verify_method == "integrator":
            successor.verify_method = "integrator"
            successor.save(update_fields=["verify_method"])
        signer_tokens_revoke(signer=original)
        lifecycle.signer_emails_cancel(signer=original)
        who = {"by": by, "requestedBy": requested_by[:200]}
        lifecycle.signer_move(
            original,
            Signer.Status.FORWARDED,
            client=client,
            detail={
                "to": {"name": successor.name, "email": successor.email},
                "newSigner": successor.eid,
                **who,
            },
        )
        witnesses = _witnesses_follow(packet, original, successor)
        audit(
            packet=packet,
            signer=successor,
            action=AuditAction.SIGNER_ASSIGNED,
            client=client,
            detail={
                "from": {"name": original.name, "email": original.email},
                "previousSigner": original.eid,
                **who,
                **({"witnessedBy": witnesses} if witnesses else {}),
            },
        )
        if in_turn:
            lifecycle.signer_move(successor, Signer.Status.SENT)
            signer_email_queue(signer=successor, kind=SignerEmail.Kind.FORWARD)
        lifecycle.signer_forwarded(original, successor, by=by)
    successor.refresh_from_db()
    return successor


def _witnesses_follow(packet: Packet, original: Signer, successor: Signer) -> list[str]:
    """The witnesses of ``original`` who have not signed witness ``successor`` from now on: the
    one who signs in their place is whom the witness sees sign, and whom their page and their
    trail entry name. Their ids (aliasId), for the successor's trail entry."""
    witnesses = packet.signers.filter(
        role=Signer.Role.WITNESS, witness_for=original.alias_id
    ).exclude(status__in=(Signer.Status.COMPLETED, Signer.Status.FORWARDED))
    aliases = sorted(witnesses.values_list("alias_id", flat=True))
    witnesses.update(witness_for=successor.alias_id)
    return aliases
