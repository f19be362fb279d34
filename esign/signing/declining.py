"""A signer declines: the packet is declined and nobody else is asked any more (the signing
page's decline, esign.signing.views). An approver's rejection is a decline that says why
(esign.signing.role_turns).
"""

from __future__ import annotations

from django.db import transaction

from esign.models import Packet, Signer
from esign.packets import lifecycle
from esign.packets.audit import Client
from esign.signing.role_turns import decision_detail, decline_checked
from esign.signing.turns import SigningOutcome, locked_signer, signer_check_open


def signer_decline(*, signer: Signer, reason: str, client: Client) -> SigningOutcome:
    """The signer refuses: the packet is declined, and nobody else is asked any more."""
    with transaction.atomic():
        packet, signer = locked_signer(signer)
        signer_check_open(signer)  # not before their turn, not once finished
        decline_checked(signer, reason)  # an approver's rejection says why
        signer.decline_reason = reason.strip()[:2000]
        lifecycle.signer_move(
            signer,
            Signer.Status.DECLINED,
            client=client,
            detail={"reason": signer.decline_reason, **(decision_detail(signer, "rejected") or {})},
            fields=("decline_reason",),
        )
        for other in packet.signers.exclude(pk=signer.pk):
            other.packet = packet
            if lifecycle.signer_may_move(other, Signer.Status.SKIPPED):
                lifecycle.signer_move(other, Signer.Status.SKIPPED)
        lifecycle.packet_move(packet, Packet.Status.DECLINED)
    return SigningOutcome(signer=signer, next_signer=None, packet=packet)
