"""The webhook events of workflows, emitted through the webhooks app in the transaction of the
change they report: weldCreate (a submission starts), forgeComplete (one of its webforms is
complete) and weldComplete (the whole submission is: documents filled, and signed when there is
a signing step).

``data`` is the spec's weldComplete body for all three: isComplete, isTest, eid (the
submission's), documents (the zip of the filled PDFs once complete), weld {eid, slug}, forges
keyed by webform slug {eid, name}, and submissions keyed by the same slug {eid,
resolvedPayload}. forgeComplete adds ``forge`` and ``submission``: the webform just completed.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.urls import reverse

from webhooks.services import event_emit
from workflows.engine.definition import WorkflowDef
from workflows.engine.resolve import resolved_payload
from workflows.models import Submission, WebformSubmission


def download_url(submission: Submission) -> str:
    return settings.PUBLIC_BASE_URL + reverse("workflows-download-zip", args=[submission.eid])


def event_data(
    submission: Submission, definition: WorkflowDef, *, complete: bool
) -> dict[str, Any]:
    """What every event of a submission says. ``complete``: whether the submission is complete,
    known from the event (only weldComplete follows the completion; a webform is saved only
    while its submission is open)."""
    rows = {row.webform_slug: row for row in submission.webform_submissions.all()}
    submissions = {}
    for webform in definition.webforms:
        row = rows.get(webform.slug)
        if row is not None:
            submissions[webform.slug] = {
                "eid": row.eid,
                "resolvedPayload": resolved_payload(webform, row.payload),
            }
    return {
        "isComplete": complete,
        "isTest": submission.is_test,
        "eid": submission.eid,
        "documents": (
            [{"type": "application/zip", "url": download_url(submission)}] if complete else []
        ),
        "weld": {"eid": submission.workflow.eid, "slug": submission.workflow.slug},
        "forges": {w.slug: {"eid": w.eid, "name": w.name} for w in definition.webforms},
        "submissions": submissions,
    }


def _emit(submission: Submission, action: str, data: dict[str, Any]) -> None:
    event_emit(
        organization=submission.workflow.organization,
        action=action,
        data=data,
        webhook_url=submission.webhook_url or None,
    )


def save_events(
    submission: Submission,
    definition: WorkflowDef,
    *,
    created: bool,
    completed: WebformSubmission | None,
) -> None:
    """The events of one save, in their order: weldCreate when it started the submission,
    forgeComplete when it completed the webform of ``completed``."""
    if created:
        _emit(submission, "weldCreate", event_data(submission, definition, complete=False))
    if completed is None:
        return
    data = event_data(submission, definition, complete=False)
    webform = definition.webform(eid=completed.webform_eid)
    assert webform is not None
    data["forge"] = {"eid": webform.eid, "slug": webform.slug, "name": webform.name}
    data["submission"] = {
        "eid": completed.eid,
        "resolvedPayload": resolved_payload(webform, completed.payload),
    }
    _emit(submission, "forgeComplete", data)


def submission_completed(submission: Submission, definition: WorkflowDef) -> None:
    _emit(submission, "weldComplete", event_data(submission, definition, complete=True))
