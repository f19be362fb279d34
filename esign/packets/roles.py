"""Approvers and viewers (extensions of the signer JSON's ``role``, docs/esign.md).

An approver (``role: "approver"``) is given no field: at their routing order they read the
documents and approve them (they finish, as a signer does, with nothing to stamp) or reject
them with a reason (they decline, which declines the packet). A viewer (``role: "viewer"``, a
copy to someone, "CC") is given no field and never waited for: at their routing order they get a
link that reads the documents only, and once the packet completes they have finished too (their
copy of the sealed documents follows, as every signer's). A viewer given no ``routingOrder``
reads at the end: once the packet completes.

What is checked here (before anything is stored) and what the turns ask of it (who is waited
for, which viewers are due) needs only the parsed signers and the models.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from django.utils.translation import gettext

from core.engine.problems import Problem
from esign.models import Signer

SIGNER, WITNESS = Signer.Role.SIGNER.value, Signer.Role.WITNESS.value
APPROVER, VIEWER = Signer.Role.APPROVER.value, Signer.Role.VIEWER.value
ROLES = (SIGNER, WITNESS, APPROVER, VIEWER)
# The roles that sign nothing: no field, no file to attach, no signing group.
NO_FIELDS = frozenset({APPROVER, VIEWER})
# The roles the packet does not wait for (the routing, numberRemainingSigners): a viewer's.
NOT_WAITED_FOR = frozenset({VIEWER})


def roles_checked(
    raw_signers: Sequence[Any], signers: list[Any], problems: list[Problem]
) -> list[Any]:
    """``signers`` (esign.packets.inputs' SignerInput, parsed from ``raw_signers``, in order;
    typed loosely, as the parser imports this module) with their roles' rules checked: an
    approver or a viewer has no field, no file to attach and no group; a packet has someone
    besides its viewers. A viewer given no ``routingOrder`` reads once the packet completes: after
    every other signer's routing order. A viewer never forwards (they have nothing to hand on)."""
    if len(signers) != len(raw_signers):
        return signers  # a signer refused already: the indexes would not be their places
    last = max((s.routing_order for s in signers if s.role != VIEWER), default=0)
    out = []
    for index, (raw, signer) in enumerate(zip(raw_signers, signers, strict=True)):
        path = f"signers.{index}"
        if signer.role in NO_FIELDS:
            what = "An approver" if signer.role == APPROVER else "A viewer"
            if signer.fields:
                problems.append(Problem(f"{path}.fields", f"{what} is given no field."))
            if signer.attachment_fields:
                problems.append(Problem(f"{path}.attachments", f"{what} attaches no file."))
            if signer.signing_group:
                problems.append(Problem(f"{path}.group", f"{what} is in no signing group."))
            if signer.initials_files:
                problems.append(
                    Problem(f"{path}.initialsOnEveryPage", f"{what} is given no field.")
                )
        if signer.role == VIEWER:
            given = isinstance(raw, Mapping) and raw.get("routingOrder") is not None
            signer = replace(
                signer,
                routing_order=signer.routing_order if given else last + 1,
                allow_forward=False,
            )
        out.append(signer)
    if out and all(s.role == VIEWER for s in out):
        problems.append(
            Problem("signers", "A packet needs a signer or an approver besides its viewers.")
        )
    return out


# --- what the turns ask ---------------------------------------------------------------------


def reads_only(signer: Signer) -> bool:
    """A viewer: their page shows the documents, with nothing to sign or approve."""
    return signer.role == VIEWER


def role_label(role: str) -> str:
    """An approver's or a viewer's role as the audit trail names it, in the active language;
    "" for a signer or a witness (their signature says what they did)."""
    if role == APPROVER:
        return gettext("Approver: approves or rejects, signs nothing")
    if role == VIEWER:
        return gettext("Viewer: receives the documents, signs nothing")
    return ""
