"""What a signer does on the signing page: open it, finish (sign), or decline.

Finishing stamps the signer's fields onto the documents before any lock is taken (a PDF rewrite
per document), then, holding the packet's row, checks that nothing changed meanwhile and makes
the stamped PDFs current with the signer's status, the audit entry and the events, in one short
transaction. Two signers of one routing group finishing at the same moment: the second one's
stamps were made on a document the first changed, so it stamps again on the new one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from core.blobs import blob_delete, blob_save
from core.errors import Conflict
from esign import lifecycle
from esign.audit import AuditAction, Client, audit
from esign.models import Packet, Signer
from esign.routing import is_signers_turn, locked, notify_next, turn_signers
from esign.sealing import packet_seal_enqueue
from esign.signer_fields import Adoption, check_attachments, check_values
from esign.signing_groups import (
    completion_detail,
    fields_filled_by_another,
    group_signed_by,
    skip_detail,
    skipped_for_group,
)
from esign.stamping import signer_stamps, stamps_apply, stamps_discard
from esign.tokens import signer_tokens_revoke

# How often a finish stamps again because another signer of its group finished first.
STAMP_ATTEMPTS = 5


@dataclass(frozen=True)
class SigningOutcome:
    """What the signing page reports to its parent frame and the redirect URL."""

    signer: Signer
    next_signer: Signer | None
    packet: Packet


def _locked_signer(signer: Signer) -> tuple[Packet, Signer]:
    packet = locked(signer.packet)
    signer = Signer.objects.select_for_update().get(pk=signer.pk)
    signer.packet = packet
    return packet, signer


def signer_check_open(signer: Signer) -> None:
    """A Conflict, in the signer's language, unless it is this signer's turn in an open packet:
    what finishing, declining and attaching a file all check first."""
    if signed := skipped_for_group(signer):
        raise Conflict(
            gettext("{names} already signed this step for your group.").format(
                names=", ".join(member.name for member in signed)
            )
        )
    if signer.packet.status not in lifecycle.OPEN_PACKET or signer.status in (
        lifecycle.ENDED_SIGNER
    ):
        raise Conflict(gettext("This signature request is no longer open."))
    if not is_signers_turn(signer):
        raise Conflict(gettext("Earlier signers have not finished yet."))


def signer_viewed(*, signer: Signer, client: Client) -> None:
    """The signer opened their link: audited every time; the first time in their turn they
    become ``viewed`` (and the packet ``delivered``, if nobody had the request yet)."""
    with transaction.atomic():
        packet, signer = _locked_signer(signer)
        if is_signers_turn(signer) and lifecycle.signer_may_move(signer, Signer.Status.VIEWED):
            lifecycle.signer_move(signer, Signer.Status.VIEWED, client=client)
            if packet.status == Packet.Status.SENT:
                lifecycle.packet_move(packet, Packet.Status.DELIVERED)
        else:
            audit(packet=packet, signer=signer, action=AuditAction.SIGNER_VIEWED, client=client)


class _Restamp(Exception):
    """A document changed between stamping and the lock: stamp again."""


def signer_complete(
    *, signer: Signer, adoption: Adoption, values: dict[str, Any], client: Client
) -> SigningOutcome:
    """The signer finishes: their fields are stamped onto the documents, the next routing group
    is notified, and the packet completes (and is queued for sealing) when nobody is left."""
    signer_check_open(signer)  # a closed request says so before any complaint about the values
    if fields_filled_by_another(signer):
        values = {}  # a later member of a group: its fields hold the first member's signature
    check_values(signer, adoption, values)
    check_attachments(signer)  # a required file not attached: said before anything is stamped
    kept = {k: v for k, v in values.items() if isinstance(v, str | bool)}
    drawn_path = ""
    if adoption.drawn_png is not None:
        drawn_path, _ = blob_save(
            prefix=f"signatures/{signer.packet.organization_id}",
            data=adoption.drawn_png,
            suffix=".png",
        )
    for _ in range(STAMP_ATTEMPTS):
        now = timezone.now()
        stamped = signer_stamps(signer=signer, adoption=adoption, values=kept, signed_at=now)
        try:
            with transaction.atomic():
                packet, signer = _locked_signer(signer)
                signer_check_open(signer)
                check_attachments(signer)  # none removed meanwhile (removing locks the signer)
                if not stamps_apply(stamped):
                    raise _Restamp
                signer.values = kept
                signer.signature_path = drawn_path
                signer.signature_text = adoption.typed[:255]
                signer.initials_text = adoption.initials[:32]
                signer.completed_at = now
                lifecycle.signer_move(
                    signer,
                    Signer.Status.COMPLETED,
                    client=client,
                    detail=completion_detail(signer),
                    fields=("values", "signature_path", "signature_text", "initials_text"),
                )
                _settle_group(packet, signer)
                return _after_signature(packet, signer)
        except _Restamp:
            stamps_discard(stamped)
            signer.packet.refresh_from_db()
        except BaseException:
            stamps_discard(stamped)
            if drawn_path and not Signer.objects.filter(signature_path=drawn_path).exists():
                blob_delete(drawn_path)
            raise
    raise Conflict(gettext("Other signers are signing this packet right now; try again."))


def _settle_group(packet: Packet, signer_done: Signer) -> None:
    """Once as many members of ``signer_done``'s group signed as it requires, its step is done:
    the other members are ``skipped`` (audited with who signed for the group), their links end
    and their queued emails are cancelled. Under the packet's lock, so of two members signing
    at once for the last place, the second finds itself skipped (a Conflict, nothing written)."""
    signed = group_signed_by(signer_done)
    if not signed or len(signed) < signer_done.signing_group_required:
        return
    for member in packet.signers.filter(signing_group=signer_done.signing_group):
        member.packet = packet
        if not lifecycle.signer_may_move(member, Signer.Status.SKIPPED):
            continue
        signer_tokens_revoke(signer=member)
        lifecycle.signer_emails_cancel(signer=member)
        lifecycle.signer_move(member, Signer.Status.SKIPPED, detail=skip_detail(member, signed))


def _after_signature(packet: Packet, signer_done: Signer) -> SigningOutcome:
    if not turn_signers(packet):
        lifecycle.packet_move(packet, Packet.Status.COMPLETED)
        packet_seal_enqueue(packet)  # the documents are sealed once, after the last stamp
        return SigningOutcome(signer=signer_done, next_signer=None, packet=packet)
    if packet.status != Packet.Status.PARTIAL:
        lifecycle.packet_move(packet, Packet.Status.PARTIAL)
    notify_next(packet)
    return SigningOutcome(signer=signer_done, next_signer=turn_signers(packet)[0], packet=packet)


def signer_decline(*, signer: Signer, reason: str, client: Client) -> SigningOutcome:
    """The signer refuses: the packet is declined, and nobody else is asked any more."""
    with transaction.atomic():
        packet, signer = _locked_signer(signer)
        signer_check_open(signer)  # not before their turn, not once finished
        signer.decline_reason = reason.strip()[:2000]
        lifecycle.signer_move(
            signer,
            Signer.Status.DECLINED,
            client=client,
            detail={"reason": signer.decline_reason},
            fields=("decline_reason",),
        )
        for other in packet.signers.exclude(pk=signer.pk):
            other.packet = packet
            if lifecycle.signer_may_move(other, Signer.Status.SKIPPED):
                lifecycle.signer_move(other, Signer.Status.SKIPPED)
        lifecycle.packet_move(packet, Packet.Status.DECLINED)
    return SigningOutcome(signer=signer, next_signer=None, packet=packet)
