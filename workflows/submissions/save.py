"""Submissions of workflows ("weldData" on the wire) and of their webforms ("submission").

One service changes them, ``webform_save``, for the webform pages and for forgeSubmit alike:
each builds a ``SaveRequest`` (below) and hands it over. The request carries ``Loaded``: the
definition the submission follows and its stored payloads, read once by the caller (which checks
the posted values against them) and used as they are, never read again from the submission nor
kept on it. The save merges
checked values into a webform's payload, moves the step, completes the webform, and when the
last webform completes, fills the documents (or starts the signing step). Each of those changes
and its webhook event are written in one transaction; the fills run before it opens.

People reach a submission through its continue URL, whose token is an HMAC of the submission's
eid (nothing secret is stored, and removing the submission kills the link).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.identity import ApiIdentity
from core.engine.wire_models import refusal, validate
from core.errors import Conflict, FieldError, NotFound, ValidationFailed
from esign.sending import PreparedPacket
from webhooks.services import check_webhook_url
from workflows.definitions.versions import Running, running_definition, webform_get
from workflows.engine.definition import WebformDef, WorkflowDef
from workflows.engine.forge_arguments import (
    WEBHOOK_CHECK,
    ForgeSubmitArguments,
    entry_payload,
    step_problems,
)
from workflows.engine.messages import Message
from workflows.engine.resolve import (
    Checked,
    check_payload,
    display_title,
    drop_hidden,
    merged,
    webform_saved,
)
from workflows.models import (
    Submission,
    WebformSubmission,
    Workflow,
)
from workflows.submissions import events
from workflows.submissions.finish import (
    Filled,
    fill_documents,
    finish_documents,
    signing_prepare_documents,
)
from workflows.submissions.lifecycle import submission_move
from workflows.submissions.reads import (
    OPEN,
    Status,
    definition_for,
    submission_get,
)

# --- the request ----------------------------------------------------------------------------------


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


def locked_loaded(submission: Submission, definition: WorkflowDef) -> tuple[Submission, Loaded]:
    """The submission locked for a change, and its webforms' rows read under the lock: every
    save locks the submission first, so no other save changes them until this one commits."""
    rows = Submission.objects.select_for_update().select_related("workflow__organization")
    locked = rows.get(pk=submission.pk)
    return locked, loaded_submission(locked, definition)


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


# --- saving a webform ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Saved:
    """What one save did; the webform pages tell the embedding page about it."""

    submission: Submission
    row: WebformSubmission
    created: bool  # the submission started now
    completed_webform: bool  # this save completed the webform
    finished: bool  # every webform is complete now (documents filled or signing started)


def _locked_row(submission: Submission, webform: WebformDef) -> WebformSubmission:
    row, _ = WebformSubmission.objects.select_for_update().get_or_create(
        submission=submission,
        webform_eid=webform.eid,
        defaults={
            "webform_slug": webform.slug,
            "webform": _webform_row(submission.workflow, webform.eid),
        },
    )
    return row


def _webform_row(workflow: Workflow, eid: str) -> Any:
    return workflow.webforms.filter(eid=eid).first()


class PayloadInvalid(ValidationFailed):
    """Values refused by their rules (``payload.<key>``, in English on the wire); ``messages``
    keeps each one's code and values, for a webform page to say it in the reader's language."""

    def __init__(self, messages: Mapping[str, Message], prefix: str = "payload.") -> None:
        self.messages = dict(messages)
        super().__init__(
            FieldError(property=f"{prefix}{key}", message=str(message))
            for key, message in messages.items()
        )


def _payload_errors(checked: Checked) -> PayloadInvalid:
    return PayloadInvalid(checked.errors)


def webform_save(request: SaveRequest) -> Saved:
    """Merge ``request.checked.values`` into the webform's payload of the submission (a new one
    of the running version when there is none); with ``complete`` the webform completes, and
    the submission with it when it was the last. ValidationFailed (``payload.<key>``) lists what
    a completion lacks; Conflict when the submission can no longer change. Nothing is stored on
    any failure.

    A webform page names its fields (``page_keys``): what was kept typed on them (the row's
    draft) is replaced by ``draft``, the strings of the values Back left unchecked."""
    loaded, webform = request.loaded, request.webform
    definition = loaded.definition
    payload, missing = webform_saved(
        webform, loaded.payload(webform), request.checked, complete=request.complete
    )
    if missing:
        raise PayloadInvalid(missing)
    payloads = {**loaded.payloads, webform.slug: payload}
    every_webform = {w.slug for w in definition.webforms}
    finishing = request.complete and every_webform <= loaded.completed | {webform.slug}
    submission = loaded.submission
    if submission is None:  # made now (its eid names the signing step's links), saved below
        submission = Submission(
            workflow=request.workflow,
            definition=definition.to_json(),
            version_number=loaded.version_number,
            is_test=request.is_test,
            webhook_url=request.webhook_url,
            timezone=request.timezone,
        )
    # The fills are the slow part: done before the transaction, from the values as they will be.
    prepared = (
        fill_documents(request.workflow, definition, payloads)
        if finishing and not definition.signers
        else None
    )
    signing = (
        signing_prepare_documents(
            submission, definition, payloads, request.identity, embedded=request.embedded
        )
        if finishing and definition.signers
        else None
    )
    try:
        return _save(request, submission, prepared=prepared, signing=signing)
    except BaseException:
        if signing is not None:
            signing.discard()
        raise


def _save(
    request: SaveRequest,
    submission: Submission,
    *,
    prepared: list[Filled] | None,
    signing: PreparedPacket | None,
) -> Saved:
    """webform_save's transaction: quick, every document already made."""
    definition, webform = request.loaded.definition, request.webform
    created = request.loaded.submission is None
    made = None
    try:
        with transaction.atomic():
            if created:
                submission.save()
                current = Loaded(definition=definition, submission=submission)
            else:
                submission, current = locked_loaded(submission, definition)
                if submission.status not in OPEN:
                    raise Conflict(
                        f"The submission is {submission.status}: its webforms can no longer change."
                    )
                if request.webhook_url:
                    submission.webhook_url = request.webhook_url
                if request.timezone:
                    submission.timezone = request.timezone
            row = _locked_row(submission, webform)
            if request.row_eid is not None and row.eid != request.row_eid:
                raise NotFound(f"No submission with eid '{request.row_eid}' of this webform.")
            row.payload = drop_hidden(webform, merged(row.payload, request.checked))
            if request.page_keys or request.draft:
                kept = {k: v for k, v in row.draft.items() if k not in request.page_keys}
                row.draft = {**kept, **{k: dict(v) for k, v in request.draft.items()}}
            if request.current_step is not None:
                row.current_step = request.current_step
            completed_now = request.complete and row.completed_at is None
            if completed_now:
                row.completed_at = timezone.now()
            row.save()
            # As read under the lock, not as the caller read them: another save may have
            # changed another webform since (the title and the documents follow what is stored).
            payloads = {**current.payloads, webform.slug: dict(row.payload)}
            submission.display_title = display_title(definition, payloads)
            if any(payloads.values()) and submission.status == Status.CREATED:
                submission_move(submission, Status.IN_PROGRESS, save=False)
            submission.save()
            events.save_events(
                submission, definition, created=created, completed=row if completed_now else None
            )
            completed = current.completed | ({webform.slug} if row.completed_at else set())
            finished = request.complete and completed >= {w.slug for w in definition.webforms}
            if finished:
                made = finish_documents(
                    submission,
                    definition,
                    payloads,
                    prepared,
                    signing,
                    request.identity,
                    embedded=request.embedded,
                )
    except BaseException:
        if made is not None:
            made.discard()
        raise
    if signing is not None and not finished:
        signing.discard()  # made for a completion another save got to first
    return Saved(
        submission=submission,
        row=row,
        created=created,
        completed_webform=completed_now,
        finished=finished,
    )


# --- forgeSubmit --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ForgeSubmitInput:
    """forgeSubmit's arguments as a caller holds them (by Python name), not checked yet: what
    each takes is workflows.engine.forge_arguments.ForgeSubmitArguments, under the same names."""

    forge_eid: str
    payload: Any
    weld_data_eid: str | None = None
    submission_eid: str | None = None
    enforce_payload_valid_on_create: bool | None = None
    current_step: int | None = None
    complete: bool | None = None
    is_test: bool | None = None
    timezone: str | None = None
    webhook_url: str | None = None
    group_array_id: str | None = None
    group_array_index: int | None = None
    error_type: str | None = None


def _webhook_url_kept(url: str) -> str:
    """The model's webhook check (`WEBHOOK_CHECK`): the service's, its refusal in the model's
    words."""
    try:
        return check_webhook_url(url)
    except ValidationFailed as refused:
        raise refusal(refused.fields[0].message) from None


def _forge_arguments(submit: ForgeSubmitInput) -> ForgeSubmitArguments:
    """``submit`` checked against ForgeSubmitArguments; ValidationFailed names the first
    argument refused (payload, webhookURL, timezone), as forgeSubmit always has: its callers
    see the answer they saw before the model. May resolve the webhook URL's host name: call it
    outside any transaction."""
    sent = {
        str(field.alias): getattr(submit, name)
        for name, field in ForgeSubmitArguments.model_fields.items()
    }
    arguments, problems = validate(
        ForgeSubmitArguments, sent, context={WEBHOOK_CHECK: _webhook_url_kept}
    )
    if arguments is None:
        raise ValidationFailed.from_problems(problems[:1])
    return arguments


def forge_submit(*, identity: ApiIdentity, submit: ForgeSubmitInput) -> WebformSubmission:
    """forgeSubmit: start a submission (no weldDataEid or submissionEid), add a webform to one
    (weldDataEid), or update a webform's submission (submissionEid). The payload's keys are the
    webform's field keys; each value given is checked by its field's rule."""
    organization = identity.organization
    webform_row = webform_get(organization=organization, eid=submit.forge_eid)
    workflow = webform_row.workflow
    arguments = _forge_arguments(submit)
    submission: Submission | None = None
    if arguments.submission_eid:
        row = (
            WebformSubmission.objects.select_related("submission__workflow__organization")
            .filter(submission__workflow__organization=organization, eid=arguments.submission_eid)
            .first()
        )
        if row is None or row.webform_eid != arguments.forge_eid:
            raise NotFound(f"No submission with eid '{arguments.submission_eid}' of this webform.")
        submission = row.submission
        if arguments.weld_data_eid and arguments.weld_data_eid != submission.eid:
            raise ValidationFailed.single("weldDataEid", "The submission is of another weldData.")
    elif arguments.weld_data_eid:
        submission = submission_get(organization=organization, eid=arguments.weld_data_eid)
        if submission.workflow_id != workflow.pk:
            raise ValidationFailed.single("weldDataEid", "The weldData is of another workflow.")
    loaded = (
        loaded_submission(submission, definition_for(submission))
        if submission
        else loaded_new(running_definition(workflow, published_only=False))
    )
    webform = loaded.definition.webform(eid=arguments.forge_eid)
    if webform is None:
        raise NotFound(
            f"The webform '{arguments.forge_eid}' is not part of this weldData's version."
        )
    known = loaded.payload(webform)
    payload, entry, problems = entry_payload(webform, known, arguments)
    if problems:
        raise ValidationFailed.from_problems(problems)
    checked = check_payload(webform, payload, only_given=True, known=known)
    creating = arguments.submission_eid is None
    if checked.errors:
        if creating and arguments.enforce_payload_valid_on_create is False:
            checked = Checked(values=checked.values)  # what is invalid is left out
        elif entry:
            # One entry was sent: its messages name its keys, as sent (payload.price).
            raise PayloadInvalid({key.removeprefix(entry): m for key, m in checked.errors.items()})
        else:
            raise _payload_errors(checked)
    if problems := step_problems(webform, arguments.current_step):
        raise ValidationFailed.from_problems(problems)
    saved = webform_save(
        SaveRequest(
            workflow=workflow,
            webform=webform,
            checked=checked,
            loaded=loaded,
            row_eid=arguments.submission_eid,
            current_step=arguments.current_step,
            complete=bool(arguments.complete),
            # A development key's submissions are always tests, as its generated PDFs are marked.
            is_test=bool(arguments.is_test) or identity.is_development,
            webhook_url=arguments.webhook_url,
            timezone=arguments.timezone,
            identity=identity,
        )
    )
    return saved.row


def submission_remove(*, identity: ApiIdentity, eid: str) -> bool:
    """removeWeldData: the submission, its webform submissions and documents are deleted."""
    submission = submission_get(organization=identity.organization, eid=eid)
    submission.delete()
    return True
