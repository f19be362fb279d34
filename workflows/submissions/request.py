"""One webform save as a value: ``SaveRequest``, which a webform page's post
(workflows/pages/post.py) and forgeSubmit (workflows/submissions/save.py) both build and hand to
``webform_save``. It carries ``Loaded``: the definition the submission follows and its stored
payloads, read once by the caller (which checks the posted values against them) and used as
they are by the save, never read again from the submission nor kept on it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from accounts.identity import ApiIdentity
from workflows.definitions.versions import Running
from workflows.engine.definition import WebformDef, WorkflowDef
from workflows.engine.resolve import Checked
from workflows.models import Submission, Workflow


@dataclass(frozen=True)
class Loaded:
    """The submission a save changes, as read before it: the definition it follows, each
    webform's stored payload and the webforms already complete. A new submission (None) has
    none of them yet, and the published version it will run (None: the working version)."""

    definition: WorkflowDef
    submission: Submission | None = None
    payloads: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    completed: frozenset[str] = frozenset()
    version_number: int | None = None

    def payload(self, webform: WebformDef) -> Mapping[str, Any]:
        """What is stored of ``webform`` (empty before its first save)."""
        return self.payloads.get(webform.slug, {})


def loaded_submission(submission: Submission, definition: WorkflowDef) -> Loaded:
    """An existing submission, its webforms' rows read once."""
    rows = list(submission.webform_submissions.all())
    return Loaded(
        definition=definition,
        submission=submission,
        payloads={row.webform_slug: dict(row.payload) for row in rows},
        completed=frozenset(row.webform_slug for row in rows if row.completed_at is not None),
    )


def loaded_new(running: Running) -> Loaded:
    """A submission not started yet, of the running version."""
    return Loaded(definition=running.definition, version_number=running.version_number)


@dataclass(frozen=True)
class SaveRequest:
    """Everything one save needs. ``checked`` holds the values to merge into the webform's
    payload; ``row_eid`` names the webform's submission the caller means (forgeSubmit's
    submissionEid); ``complete`` completes the webform. ``webhook_url`` and ``timezone``
    (empty: unchanged) are the submission's. ``page_keys`` are the items of the page posted,
    whose draft (what Back kept as typed) is replaced by ``draft``."""

    workflow: Workflow
    webform: WebformDef
    checked: Checked
    loaded: Loaded
    row_eid: str | None = None
    current_step: int | None = None
    complete: bool = False
    is_test: bool = False
    webhook_url: str = ""
    timezone: str = ""
    embedded: bool = False
    identity: ApiIdentity | None = None
    page_keys: tuple[str, ...] = ()
    draft: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
