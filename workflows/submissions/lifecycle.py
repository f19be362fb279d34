"""The life of a workflow submission ("weldData"): which status may follow which, and the one
way to change it (the e-signature side is esign.packets.lifecycle).

- ``created``: started, nothing answered yet (forgeSubmit with an empty payload)
- ``in-progress``: answers saved, webforms left
- ``ready-to-sign``: every webform done, the signing step's packet sent
- ``awaiting-signatures``: someone signed, others have not
- ``completed``: the documents are filled (and signed and sealed, with a signing step)
- ``declined``: a signer declined, or the sender voided the packet
"""

from __future__ import annotations

from collections.abc import Mapping

from core.errors import Conflict
from workflows.models import Submission

S = Submission.Status

SUBMISSION_MOVES: Mapping[str, frozenset[str]] = {
    S.CREATED: frozenset({S.IN_PROGRESS, S.READY_TO_SIGN, S.COMPLETED}),
    S.IN_PROGRESS: frozenset({S.READY_TO_SIGN, S.COMPLETED}),
    S.READY_TO_SIGN: frozenset({S.AWAITING_SIGNATURES, S.COMPLETED, S.DECLINED}),
    S.AWAITING_SIGNATURES: frozenset({S.COMPLETED, S.DECLINED}),
    S.COMPLETED: frozenset(),
    S.DECLINED: frozenset(),
}


def submission_may_move(submission: Submission, to: str) -> bool:
    return to in SUBMISSION_MOVES[submission.status]


def submission_move(
    submission: Submission, to: str, *, fields: tuple[str, ...] = (), save: bool = True
) -> None:
    """Move the (locked) submission to ``to``, saving ``fields`` with it (``save=False``: the
    caller saves it with its other changes)."""
    if not submission_may_move(submission, to):
        raise Conflict(f"The submission is {submission.status}; it cannot become {to}.")
    submission.status = to
    if save:
        submission.save(update_fields=list(dict.fromkeys(["status", "updated_at", *fields])))
