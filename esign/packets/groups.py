"""Signing groups and witnesses (extensions of the signer JSON, docs/esign.md).

A signing group is several signers of one routing step, given the same fields, of whom
``required`` must sign (``group: {id, required}``): the first member who signs fills the fields;
once ``required`` members signed, the step is done and the others are ``skipped``, their links
ended (esign.signing.turns, under the packet's lock). A witness (``role: "witness"``,
``witnessFor``) signs after the signer they witness, on the pages of that signer's fields
(esign.packets.inputs checks it), and the audit trail records whom they witnessed. When a turn
is handed on (a forward, a reassignment: esign.signing.forwarding), the successor takes the
original's place in their group and their role, and a witness's ``witnessFor`` follows the
witnessed signer's turn to the successor, who is the one seen signing.

What is read here (who signed for a group, whom a witness witnesses) needs only the models, so
the events (esign.packets.lifecycle), the links (esign.links.tokens) and the signer's turn
(esign.signing.turns, which also writes the group's audit details) ask it from below.
"""

from __future__ import annotations

from esign.models import Signer

# The ``reason`` of a group member's link once their group's step was signed by others.
GROUP_SIGNED = "groupSigned"


def group_signed_by(signer: Signer) -> list[Signer]:
    """The members of ``signer``'s group who signed, first first ([] without a group)."""
    if not signer.signing_group:
        return []
    return list(
        Signer.objects.filter(
            packet_id=signer.packet_id,
            signing_group=signer.signing_group,
            status=Signer.Status.COMPLETED,
        ).order_by("completed_at", "pk")
    )


def group_size(signer: Signer) -> int:
    """How many members ``signer``'s group has (0 without a group): one whose turn was handed on
    is not counted, their successor is (esign.signing.forwarding)."""
    if not signer.signing_group:
        return 0
    return (
        Signer.objects.filter(packet_id=signer.packet_id, signing_group=signer.signing_group)
        .exclude(status=Signer.Status.FORWARDED)
        .count()
    )


def skipped_for_group(signer: Signer) -> list[Signer]:
    """Who signed for ``signer``'s group, when ``signer`` was skipped because of it ([]
    otherwise: not in a group, or skipped because someone declined before enough members of
    the group signed)."""
    if signer.status != Signer.Status.SKIPPED:
        return []
    signed = group_signed_by(signer)
    return signed if len(signed) >= signer.signing_group_required else []


def fields_filled_by_another(signer: Signer) -> bool:
    """Whether another member of ``signer``'s group signed first, so the group's fields are
    theirs: the later members of a group that requires several sign without filling them."""
    signed = group_signed_by(signer)
    return bool(signed) and signed[0].pk != signer.pk


def witnessed_name(signer: Signer) -> str:
    """The name of the signer ``signer`` witnesses ("" for a signer who is no witness)."""
    if signer.role != Signer.Role.WITNESS:
        return ""
    return (
        Signer.objects.filter(packet_id=signer.packet_id, alias_id=signer.witness_for)
        .values_list("name", flat=True)
        .first()
        or ""
    )
