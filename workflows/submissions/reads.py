"""Reading submissions: the definition one follows, its payloads and progress, and the row
locked for a change. Shared by saving (workflows.submissions.save), finishing and the links."""

from __future__ import annotations

from typing import Any

from accounts.models import Organization
from core.lookups import get_by_eid
from workflows.engine.definition import WorkflowDef, parse_definition
from workflows.engine.resolve import (
    completion_percentage,
)
from workflows.models import (
    Submission,
)

Status = Submission.Status


OPEN = (Status.CREATED, Status.IN_PROGRESS)


SIGNING = (Status.READY_TO_SIGN, Status.AWAITING_SIGNATURES)


def definition_for(submission: Submission) -> WorkflowDef:
    """The definition the submission follows, parsed from what it stores (nothing is kept on the
    instance: a caller that needs it again hands it along, as a save does in its request)."""
    return parse_definition(submission.definition, kept=True)


def submission_get(*, organization: Organization, eid: str) -> Submission:
    """The organization's submission; another organization's is as absent as a missing one."""
    return get_by_eid(
        Submission.objects.select_related("workflow__organization"),
        "weldData",
        eid,
        workflow__organization=organization,
    )


def payloads_of(submission: Submission) -> dict[str, dict[str, Any]]:
    """The stored payload of each webform, keyed by webform slug."""
    return {row.webform_slug: dict(row.payload) for row in submission.webform_submissions.all()}


def completed_slugs(submission: Submission) -> set[str]:
    return {
        row.webform_slug
        for row in submission.webform_submissions.all()
        if row.completed_at is not None
    }


def submission_completion(submission: Submission) -> float:
    return completion_percentage(
        definition_for(submission),
        completed_slugs(submission),
        signed=submission.status == Status.COMPLETED,
    )


def locked_submission(submission: Submission) -> Submission:
    locked = Submission.objects.select_for_update().select_related("workflow__organization")
    return locked.get(pk=submission.pk)
