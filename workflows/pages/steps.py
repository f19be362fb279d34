"""Where a person is in a workflow: the steps they see (every page of every webform, but the
conditional pages their answers hide), the page after and before one, the page a submission is
on, and a page asked for by address."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workflows.engine.definition import WebformDef, WorkflowDef
from workflows.engine.resolve import hidden_pages
from workflows.models import Submission
from workflows.submissions.reads import payloads_of

Payloads = Mapping[str, Mapping[str, Any]]


def shown_pages(webform: WebformDef, payload: Mapping[str, Any]) -> list[int]:
    """The indexes of the webform's pages shown with ``payload`` (its first always is)."""
    hidden = hidden_pages(webform, payload)
    return [index for index in range(len(webform.pages)) if index not in hidden]


def shown_steps(definition: WorkflowDef, payloads: Payloads) -> list[tuple[WebformDef, int]]:
    """Every shown page of every webform, in the order a person fills them."""
    return [
        (webform, index)
        for webform in definition.webforms
        for index in shown_pages(webform, payloads.get(webform.slug) or {})
    ]


def next_page(webform: WebformDef, payload: Mapping[str, Any], page_index: int) -> int | None:
    """The shown page after ``page_index`` in the webform; None when it is the last."""
    return next((i for i in shown_pages(webform, payload) if i > page_index), None)


def previous_page(
    definition: WorkflowDef, payloads: Payloads, webform: WebformDef, page_index: int
) -> tuple[WebformDef, int]:
    """The shown page before this one (in this webform or an earlier one); the first stays."""
    before = [
        (w, i)
        for w, i in shown_steps(definition, payloads)
        if (definition.webforms.index(w), i) < (definition.webforms.index(webform), page_index)
    ]
    return before[-1] if before else (webform, page_index)


def last_webform(definition: WorkflowDef) -> WebformDef | None:
    return definition.webforms[-1] if definition.webforms else None


def position_of(submission: Submission, definition: WorkflowDef) -> tuple[WebformDef, int] | None:
    """The first webform of ``definition`` (the submission's) not complete, at its saved step
    (the next shown page if the answers hide it now); None when all are complete."""
    rows = {row.webform_eid: row for row in submission.webform_submissions.all()}
    for webform in definition.webforms:
        row = rows.get(webform.eid)
        if row is None or row.completed_at is None:
            step = min(row.current_step if row else 0, len(webform.pages) - 1)
            shown = shown_pages(webform, row.payload if row else {})
            at = next((i for i in shown if i >= step), shown[-1])
            return webform, at
    return None


def requested_page(
    submission: Submission, definition: WorkflowDef, forge: str | None, step: str | None
) -> tuple[WebformDef, int] | None:
    """A page asked for by ``?forge=<slug>&step=<n>``: any shown page before where the person
    is."""
    current = position_of(submission, definition)
    if current is None or not forge:
        return current
    order = [w.eid for w in definition.webforms]
    webform = definition.webform(slug=forge)
    try:
        index = int(step or 0)
    except ValueError:
        return current
    if webform is None or not 0 <= index < len(webform.pages):
        return current
    payload = payloads_of(submission).get(webform.slug, {})
    if index not in shown_pages(webform, payload):
        return current
    before = order.index(webform.eid) < order.index(current[0].eid)
    if before or (webform.eid == current[0].eid and index <= current[1]):
        return webform, index
    return current
