"""The turns of approvers and viewers (esign.packets.roles), in the transaction of the move that
brings them (the packet's row locked, as every change of a packet's signers: esign.signing.turns).

A viewer's turn comes with the first routing step at or after their routing order: they are
``sent`` (an email signer is emailed a link that reads the documents) and nobody waits for them.
When the packet completes, every viewer has finished (``completed``: the copy of the sealed
documents is sent them as to every signer who finished); a viewer whose turn came only then
reads the sealed documents. An approver approves by finishing (nothing to stamp) and rejects by
declining with a reason; their audit entries say so (esign.packets.audit.ROLE_ACTIONS).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from core.errors import ValidationFailed
from esign.links.emails import signer_email_queue
from esign.models import Packet, Signer
from esign.packets import lifecycle
from esign.packets.roles import APPROVER, VIEWER


def viewers_due(packet: Packet, viewers: list[Signer], step: int | None) -> None:
    """Of ``viewers`` (whose turn has not come), those whose routing order the packet's routing
    has reached (``step``: the order of the signers whose turn it is; None: nobody is left to
    sign) are sent their link to read."""
    for viewer in viewers:
        if step is not None and viewer.routing_order > step:
            continue
        viewer.packet = packet
        lifecycle.signer_move(viewer, Signer.Status.SENT)
        if step is not None:  # at the end, the copy of the sealed documents is their email
            signer_email_queue(signer=viewer)


def viewers_finish(packet: Packet, viewers: list[Signer]) -> None:
    """The packet completes: every one of its ``viewers`` has what they were sent (a viewer whose
    turn had not come gets it now) and has finished."""
    viewers_due(packet, [v for v in viewers if v.status == Signer.Status.CREATED], None)
    for viewer in viewers:
        viewer.packet = packet
        if lifecycle.signer_may_move(viewer, Signer.Status.COMPLETED):
            lifecycle.signer_move(viewer, Signer.Status.COMPLETED)


def may_read(signer: Signer) -> bool:
    """A viewer whose turn came, in a packet still open or completed: their page shows the
    documents (and opening it is their ``viewed``)."""
    return signer.role == VIEWER and signer.status in (
        Signer.Status.SENT,
        Signer.Status.DELIVERED,
        Signer.Status.VIEWED,
        Signer.Status.COMPLETED,
    )


def decline_checked(signer: Signer, reason: str) -> None:
    """An approver rejects with a reason (a signer may decline without one): ``reason``
    required, in the signer's language."""
    if signer.role == APPROVER and not reason.strip():
        raise ValidationFailed.single("reason", gettext("Say why you reject the documents."))


def decision_detail(signer: Signer, decision: str) -> dict[str, Any] | None:
    """The audit detail of an approver's finish (``approved``) or decline (``rejected``)."""
    return {"decision": decision} if signer.role == APPROVER else None
