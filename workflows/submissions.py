"""Submissions of workflows ("weldData" on the wire) and of their webforms ("submission").

One service changes them, ``webform_save``, for the webform pages and for forgeSubmit alike:
it merges checked values into a webform's payload, moves the step, completes the webform, and
when the last webform completes, fills the documents (or starts the signing step). Each of those
changes and its webhook event are written in one transaction; the fills run before it opens.

People reach a submission through its continue URL, whose token is an HMAC of the submission's
eid (nothing secret is stored, and removing the submission kills the link).
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac

from accounts.identity import ApiIdentity
from accounts.models import Organization
from core.blobs import blob_read, blob_save
from core.engine.archive import PdfZip, clean_filename
from core.engine.problems import Problem
from core.engine.template_spec import Rect
from core.errors import Conflict, FieldError, NotFound, ValidationFailed
from esign import services as esign
from esign.inputs import FileInput, PacketInput, SignerInput, SignField
from esign.models import DocumentGroup, Packet, PacketDocument
from esign.sealing import check_sealed, document_group_archive
from fill.services import fill_version
from templates_app.models import PdfTemplate, TemplateVersion
from templates_app.services import template_version_select
from webhooks.services import check_webhook_url
from workflows import events
from workflows.engine.definition import WebformDef, WorkflowDef, parse_definition
from workflows.engine.resolve import (
    Checked,
    check_payload,
    completion_percentage,
    display_title,
    document_data,
    merged,
    missing_required,
    person_name,
    value_of,
)
from workflows.lifecycle import submission_move
from workflows.models import (
    Submission,
    SubmissionDocument,
    WebformSubmission,
    Workflow,
    new_link_secret,
)
from workflows.services import Running, running_definition, webform_get

Status = Submission.Status
OPEN = (Status.CREATED, Status.IN_PROGRESS)
SIGNING = (Status.READY_TO_SIGN, Status.AWAITING_SIGNATURES)
_CONTINUE_SALT = "workflows.submission.continue"


# --- reading ------------------------------------------------------------------------------------


def definition_for(submission: Submission) -> WorkflowDef:
    """The definition the submission follows (parsed once per instance)."""
    cached = getattr(submission, "_definition", None)
    if cached is None:
        cached = parse_definition(submission.definition)
        submission._definition = cached  # type: ignore[attr-defined]
    return cached


def submission_get(*, organization: Organization, eid: str) -> Submission:
    """The organization's submission; another organization's is as absent as a missing one."""
    try:
        return Submission.objects.select_related("workflow__organization").get(
            workflow__organization=organization, eid=eid
        )
    except Submission.DoesNotExist:
        raise NotFound(f"No weldData with eid '{eid}'.") from None


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


# --- links for people ---------------------------------------------------------------------------


def continue_token(submission: Submission, *, now: datetime | None = None) -> str:
    """The secret of a continue link: when it expires, and a MAC of the submission, its link
    secret (rotating it ends every link given so far) and that time. Valid for
    WORKFLOW_CONTINUE_LINK_DAYS."""
    now = now or timezone.now()
    expires = int((now + timedelta(days=settings.WORKFLOW_CONTINUE_LINK_DAYS)).timestamp())
    return f"{expires:x}.{_continue_mac(submission, expires)}"


def _continue_mac(submission: Submission, expires: int) -> str:
    value = f"{submission.eid}:{submission.link_secret}:{expires}"
    return salted_hmac(_CONTINUE_SALT, value).hexdigest()[:40]


def _continue_token_valid(submission: Submission, token: str) -> bool:
    expiry, _, mac = (token or "").partition(".")
    try:
        expires = int(expiry, 16)
    except ValueError:
        return False
    if not constant_time_compare(mac, _continue_mac(submission, expires)):
        return False
    return expires > timezone.now().timestamp()


def submission_links_rotate(*, submission: Submission) -> None:
    """End every continue link of ``submission`` handed out so far (new ones work)."""
    submission.link_secret = new_link_secret()
    submission.save(update_fields=["link_secret", "updated_at"])


def continue_path(submission: Submission) -> str:
    workflow = submission.workflow
    return reverse(
        "workflows-continue", args=[workflow.organization.slug, workflow.slug, submission.eid]
    )


def continue_link(submission: Submission, *, embedded: bool = False) -> str:
    """The continue URL's path and query (for a page on this service)."""
    query = {"token": continue_token(submission)}
    if embedded:
        query["embedded"] = "true"
    return f"{continue_path(submission)}?{urlencode(query)}"


def continue_url(submission: Submission, *, embedded: bool = False) -> str:
    """Where the person resumes: the step they are on (the done page when finished)."""
    return settings.PUBLIC_BASE_URL + continue_link(submission, embedded=embedded)


def submission_for_link(
    *, organization_slug: str, workflow_slug: str, eid: str, token: str
) -> Submission:
    """The submission a continue link opens; NotFound unless every part of it matches."""
    submission = (
        Submission.objects.select_related("workflow__organization")
        .filter(
            eid=eid,
            workflow__slug=workflow_slug,
            workflow__organization__slug=organization_slug,
        )
        .first()
    )
    if submission is None or not _continue_token_valid(submission, token):
        raise NotFound("This link is not valid or has expired. Ask for a new one.")
    return submission


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


def _payload_errors(checked: Checked) -> ValidationFailed:
    return ValidationFailed(
        FieldError(property=f"payload.{key}", message=message)
        for key, message in checked.errors.items()
    )


def webform_save(
    *,
    workflow: Workflow,
    webform: WebformDef,
    checked: Checked,
    submission: Submission | None = None,
    running: Running | None = None,
    row_eid: str | None = None,
    current_step: int | None = None,
    complete: bool = False,
    is_test: bool = False,
    webhook_url: str = "",
    timezone_name: str = "",
    embedded: bool = False,
    identity: ApiIdentity | None = None,
    page_keys: tuple[str, ...] = (),
    draft: Mapping[str, Mapping[str, str]] | None = None,
) -> Saved:
    """Merge ``checked.values`` into the webform's payload of ``submission`` (a new submission
    of ``running`` when None); with ``complete`` the webform completes, and the submission with
    it when it was the last. ValidationFailed (``payload.<key>``) lists what a completion lacks;
    Conflict when the submission can no longer change. Nothing is stored on any failure.

    A webform page names its fields (``page_keys``): what was kept typed on them (the row's
    draft) is replaced by ``draft``, the strings of the values Back left unchecked."""
    definition = definition_for(submission) if submission else _running(running).definition
    stored = payloads_of(submission) if submission else {}
    payloads = {**stored, webform.slug: merged(stored.get(webform.slug, {}), checked)}
    if complete:
        missing = missing_required(webform, payloads[webform.slug])
        if not missing.ok:
            raise _payload_errors(missing)
    done_before = completed_slugs(submission) if submission else set()
    finishing = complete and {w.slug for w in definition.webforms} <= done_before | {webform.slug}
    created = submission is None
    if submission is None:  # made now (its eid names the signing step's links), saved below
        submission = Submission(
            workflow=workflow,
            definition=definition.to_json(),
            version_number=_running(running).version_number,
            is_test=is_test,
            webhook_url=webhook_url,
            timezone=timezone_name,
        )
        submission._definition = definition  # type: ignore[attr-defined]
    # The fills are the slow part: done before the transaction, from the values as they will be.
    prepared = (
        _fill(workflow, definition, payloads) if finishing and not definition.signers else None
    )
    signing = (
        _signing_prepare(submission, definition, payloads, identity, embedded=embedded)
        if finishing and definition.signers
        else None
    )
    try:
        return _save(
            submission,
            definition,
            webform,
            checked,
            created=created,
            row_eid=row_eid,
            current_step=current_step,
            complete=complete,
            webhook_url=webhook_url,
            timezone_name=timezone_name,
            prepared=prepared,
            signing=signing,
            identity=identity,
            embedded=embedded,
            page_keys=page_keys,
            draft=draft or {},
        )
    except BaseException:
        if signing is not None:
            signing.discard()
        raise


def _save(
    submission: Submission,
    definition: WorkflowDef,
    webform: WebformDef,
    checked: Checked,
    *,
    created: bool,
    row_eid: str | None,
    current_step: int | None,
    complete: bool,
    webhook_url: str,
    timezone_name: str,
    prepared: list[Filled] | None,
    signing: esign.PreparedPacket | None,
    identity: ApiIdentity | None,
    embedded: bool,
    page_keys: tuple[str, ...],
    draft: Mapping[str, Mapping[str, str]],
) -> Saved:
    """webform_save's transaction: quick, every document already made."""
    made = None
    try:
        with transaction.atomic():
            if created:
                submission.save()
            else:
                submission = _locked(submission)
                if submission.status not in OPEN:
                    raise Conflict(
                        f"The submission is {submission.status}: its webforms can no longer change."
                    )
                if webhook_url:
                    submission.webhook_url = webhook_url
                if timezone_name:
                    submission.timezone = timezone_name
            row = _locked_row(submission, webform)
            if row_eid is not None and row.eid != row_eid:
                raise NotFound(f"No submission with eid '{row_eid}' of this webform.")
            row.payload = merged(row.payload, checked)
            if page_keys or draft:
                kept = {k: v for k, v in row.draft.items() if k not in page_keys}
                row.draft = {**kept, **{k: dict(v) for k, v in draft.items()}}
            if current_step is not None:
                row.current_step = current_step
            completed_now = complete and row.completed_at is None
            if completed_now:
                row.completed_at = timezone.now()
            row.save()
            payloads = payloads_of(submission)
            submission.display_title = display_title(definition, payloads)
            if any(payloads.values()) and submission.status == Status.CREATED:
                submission_move(submission, Status.IN_PROGRESS, save=False)
            submission.save()
            if created:
                events.submission_created(submission, definition)
            if completed_now:
                events.webform_completed(submission, definition, row)
            finished = complete and completed_slugs(submission) >= {
                w.slug for w in definition.webforms
            }
            if finished:
                made = _finish(
                    submission,
                    definition,
                    payloads,
                    prepared,
                    signing,
                    identity,
                    embedded=embedded,
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


def _running(running: Running | None) -> Running:
    assert running is not None, "a new submission needs the definition it runs"
    return running


def _locked(submission: Submission) -> Submission:
    locked = Submission.objects.select_for_update().select_related("workflow__organization")
    fresh = locked.get(pk=submission.pk)
    fresh._definition = definition_for(submission)  # type: ignore[attr-defined]
    return fresh


# --- finishing: documents or signing ------------------------------------------------------------


@dataclass(frozen=True)
class Filled:
    title: str
    filename: str
    version: TemplateVersion
    pdf: bytes


def _template_version(workflow: Workflow, eid: str, index: int) -> TemplateVersion:
    template = PdfTemplate.objects.filter(organization=workflow.organization, eid=eid).first()
    if template is None:
        raise ValidationFailed.single(
            f"documents.{index}", f"The workflow's template {eid!r} no longer exists."
        )
    return template_version_select(template=template, version_number=None)


def _fill(
    workflow: Workflow, definition: WorkflowDef, payloads: Mapping[str, Mapping[str, Any]]
) -> list[Filled]:
    """Each document filled from the mapped values, with the template's default version."""
    filled = []
    for index, document in enumerate(definition.documents):
        version = _template_version(workflow, document.template_eid, index)
        data = document_data(definition, document, payloads)
        try:
            pdf = fill_version(version=version, body={"data": data, "title": document.title})
        except ValidationFailed as invalid:
            raise ValidationFailed(
                FieldError(property=f"documents.{index}.{f.property}", message=f.message)
                for f in invalid.fields
            ) from None
        filled.append(Filled(document.title, document.filename, version, pdf))
    return filled


def _finish(
    submission: Submission,
    definition: WorkflowDef,
    payloads: Mapping[str, Mapping[str, Any]],
    prepared: list[Filled] | None,
    signing: esign.PreparedPacket | None,
    identity: ApiIdentity | None,
    *,
    embedded: bool,
) -> esign.PreparedPacket | None:
    """Every webform is complete: store the documents and complete, or start signing. The
    documents are made before the transaction; ``prepared`` and ``signing`` are None only when
    another webform's save completed the workflow meanwhile, and then they are made now.
    Returns the signing documents made here (the caller discards them if the transaction
    fails)."""
    made = None
    if definition.signers:
        if signing is None:
            signing = made = _signing_prepare(
                submission, definition, payloads, identity, embedded=embedded
            )
        submission.packet = esign.packet_store(signing)
        submission_move(submission, Status.READY_TO_SIGN, fields=("packet",))
        return made
    if prepared is None:  # another webform completed meanwhile: fill now
        prepared = _fill(submission.workflow, definition, payloads)
    prefix = f"workflows/{submission.workflow.organization.eid}/{submission.eid}"
    for position, document in enumerate(prepared):
        path, sha = blob_save(prefix=prefix, data=document.pdf)
        SubmissionDocument.objects.create(
            submission=submission,
            position=position,
            title=document.title[:255],
            filename=document.filename[:255],
            template_version=document.version,
            path=path,
            sha256=sha,
        )
    _complete(submission, definition)
    return None


def _complete(submission: Submission, definition: WorkflowDef) -> None:
    submission.completed_at = timezone.now()
    submission_move(submission, Status.COMPLETED, fields=("completed_at",))
    events.submission_completed(submission, definition)


def _file_id(index: int) -> str:
    return f"document{index + 1}"


def _signing_input(
    submission: Submission,
    definition: WorkflowDef,
    payloads: Mapping[str, Mapping[str, Any]],
    *,
    embedded: bool,
) -> PacketInput:
    """The signing step's packet: the documents filled from the answers, the signers named by
    them, each back to the submission's page when done. ValidationFailed when an answer a
    signer needs is missing."""
    files = []
    for index, document in enumerate(definition.documents):
        boxes = tuple(
            SignField(id=box.id, type=box.type, page=box.page, rect=Rect(*box.rect))
            for signer in definition.signers
            for box in signer.boxes
            if box.document == index
        )
        files.append(
            FileInput(
                id=_file_id(index),
                title=document.title,
                filename=document.filename,
                fields=boxes,
                cast_eid=document.template_eid,
            )
        )
    problems = []
    signers = []
    back = continue_url(submission, embedded=embedded)
    for signer in definition.signers:
        name = person_name(value_of(definition, payloads, signer.name_field))
        email = value_of(definition, payloads, signer.email_field) if signer.email_field else ""
        if not name:
            problems.append(
                Problem(f"payload.{signer.name_field.field}", "A name is needed for signing.")
            )
        if signer.signer_type == "email" and not email:
            field = signer.email_field.field if signer.email_field else "email"
            problems.append(Problem(f"payload.{field}", "An email is needed for signing."))
        signers.append(
            SignerInput(
                alias_id=signer.id,
                name=name,
                email=str(email or ""),
                signer_type=signer.signer_type,
                routing_order=signer.routing_order,
                redirect_url=back if signer.signer_type == "embedded" else "",
                signature_mode="draw",
                accept_each_field=False,
                enable_emails=True,
                fields=tuple((_file_id(box.document), box.id) for box in signer.boxes),
            )
        )
    if problems:
        raise ValidationFailed.from_problems(problems)
    return PacketInput(
        name=(display_title(definition, payloads) or definition.name)[:255],
        files=tuple(files),
        signers=tuple(signers),
        payloads={
            _file_id(index): {"data": document_data(definition, document, payloads)}
            for index, document in enumerate(definition.documents)
        },
        is_test=submission.is_test,
        webhook_url=submission.webhook_url,
    )


def _signing_prepare(
    submission: Submission,
    definition: WorkflowDef,
    payloads: Mapping[str, Mapping[str, Any]],
    identity: ApiIdentity | None,
    *,
    embedded: bool,
) -> esign.PreparedPacket:
    """The signing step's documents made and stored (slow: before any transaction)."""
    # A person on a webform page acts for the organization itself: no key, no watermark.
    return esign.packet_prepare(
        organization=submission.workflow.organization,
        watermark=identity.is_development if identity is not None else False,
        packet_input=_signing_input(submission, definition, payloads, embedded=embedded),
    )


_PACKET_STATUS = {
    Packet.Status.DRAFT: Status.READY_TO_SIGN,
    Packet.Status.SENT: Status.READY_TO_SIGN,
    Packet.Status.DELIVERED: Status.READY_TO_SIGN,
    Packet.Status.PARTIAL: Status.AWAITING_SIGNATURES,
    Packet.Status.DECLINED: Status.DECLINED,
    Packet.Status.VOIDED: Status.DECLINED,
    Packet.Status.COMPLETED: Status.COMPLETED,
}


def packet_changed(packet: Packet) -> None:
    """esign's hook: the submissions whose signing step is this packet take its state now."""
    for submission in Submission.objects.filter(packet=packet):
        submission_sync(submission)


def packet_removing(packet: Packet) -> None:
    """esign's hook: a packet that is a submission's signing step is not removed from under it
    (void it instead: the submission then ends as declined)."""
    owner = Submission.objects.filter(packet=packet).first()
    if owner is not None:
        raise Conflict(
            f"The packet is the signing step of workflow submission '{owner.eid}': void it "
            "(voidDocumentGroup) instead of removing it."
        )


def submission_sync(submission: Submission) -> Submission:
    """A submission in its signing step takes the state of its packet. Completing it this way
    emits weldComplete, in the transaction that records the completion. Called by esign's hook
    when the packet changes (see packet_changed), and again whenever a submission is looked at
    (the signer's return to the workflow page, weldData queries, the download), which changes
    nothing when the hook already ran."""
    if submission.status not in SIGNING or submission.packet_id is None:
        return submission
    packet_status = Packet.objects.filter(pk=submission.packet_id).values_list("status", flat=True)
    target = _PACKET_STATUS.get(packet_status.first() or "", submission.status)
    if target == submission.status:
        return submission
    with transaction.atomic():
        locked = _locked(submission)
        if locked.status not in SIGNING:
            return locked
        if target == Status.COMPLETED:
            _complete(locked, definition_for(locked))
        else:
            submission_move(locked, target)
    return locked


# --- forgeSubmit --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ForgeSubmitInput:
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


def forge_submit(*, identity: ApiIdentity, submit: ForgeSubmitInput) -> WebformSubmission:
    """forgeSubmit: start a submission (no weldDataEid or submissionEid), add a webform to one
    (weldDataEid), or update a webform's submission (submissionEid). The payload's keys are the
    webform's field keys; each value given is checked by its field's rule."""
    organization = identity.organization
    webform_row = webform_get(organization=organization, eid=submit.forge_eid)
    workflow = webform_row.workflow
    if not isinstance(submit.payload, Mapping):
        raise ValidationFailed.single("payload", "Must be an object keyed by field key.")
    if submit.group_array_id is not None or submit.group_array_index is not None:
        raise ValidationFailed.single(
            "groupArrayId", "The webforms of this service have no repeating groups."
        )
    webhook_url = check_webhook_url(submit.webhook_url) if submit.webhook_url else ""
    timezone_name = _timezone(submit.timezone)
    submission: Submission | None = None
    if submit.submission_eid:
        row = (
            WebformSubmission.objects.select_related("submission__workflow__organization")
            .filter(submission__workflow__organization=organization, eid=submit.submission_eid)
            .first()
        )
        if row is None or row.webform_eid != submit.forge_eid:
            raise NotFound(f"No submission with eid '{submit.submission_eid}' of this webform.")
        submission = row.submission
        if submit.weld_data_eid and submit.weld_data_eid != submission.eid:
            raise ValidationFailed.single("weldDataEid", "The submission is of another weldData.")
    elif submit.weld_data_eid:
        submission = submission_get(organization=organization, eid=submit.weld_data_eid)
        if submission.workflow_id != workflow.pk:
            raise ValidationFailed.single("weldDataEid", "The weldData is of another workflow.")
    running = None if submission else running_definition(workflow, published_only=False)
    definition = definition_for(submission) if submission else running.definition  # type: ignore[union-attr]
    webform = definition.webform(eid=submit.forge_eid)
    if webform is None:
        raise NotFound(f"The webform '{submit.forge_eid}' is not part of this weldData's version.")
    checked = check_payload(webform, submit.payload, only_given=True)
    creating = submit.submission_eid is None
    if checked.errors:
        if creating and submit.enforce_payload_valid_on_create is False:
            checked = Checked(values=checked.values)  # what is invalid is left out
        else:
            raise _payload_errors(checked)
    step = submit.current_step
    if step is not None and not 0 <= step < len(webform.pages):
        raise ValidationFailed.single(
            "currentStep", f"Must be a page index from 0 to {len(webform.pages) - 1}."
        )
    saved = webform_save(
        workflow=workflow,
        webform=webform,
        checked=checked,
        submission=submission,
        running=running,
        row_eid=submit.submission_eid,
        current_step=step,
        complete=bool(submit.complete),
        # A development key's submissions are always tests, as its generated PDFs are marked.
        is_test=bool(submit.is_test) or identity.is_development,
        webhook_url=webhook_url,
        timezone_name=timezone_name,
        identity=identity,
    )
    return saved.row


def _timezone(name: str | None) -> str:
    if not name:
        return ""
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ValidationFailed.single("timezone", "Must be an IANA time zone name.") from None
    return name


def submission_remove(*, identity: ApiIdentity, eid: str) -> bool:
    """removeWeldData: the submission, its webform submissions and documents are deleted."""
    submission = submission_get(organization=identity.organization, eid=eid)
    submission.delete()
    return True


# --- documents ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class DocumentFile:
    title: str
    filename: str
    read: Any  # () -> bytes


def submission_files(submission: Submission) -> list[DocumentFile]:
    """The documents of a submission: as filled, or as signed (and sealed, once they are) when
    it had a signing step."""
    if submission.packet_id is not None:
        packet = Packet.objects.get(pk=submission.packet_id)
        return [
            DocumentFile(d.title or d.filename, d.filename, lambda d=d: _signed_pdf(d))
            for d in packet.documents.all()
        ]
    return [
        DocumentFile(d.title, d.filename, lambda d=d: blob_read(d.path, d.sha256))
        for d in submission.documents.all()
    ]


def _signed_pdf(document: PacketDocument) -> bytes:
    """A signed document: sealed, or nothing (SealPending, SealFailed), as the zip."""
    check_sealed(document.packet)
    return blob_read(document.sealed_path, document.sealed_sha256)


def download_name(submission: Submission) -> str:
    """The zip's name: "Demo onboarding - Ada Lovelace" for the title "Demo: onboarding: Ada
    Lovelace" (the workflow's name, then whose it is)."""
    name = definition_for(submission).name or submission.workflow.name
    person = submission.display_title.removeprefix(f"{name}:").strip()
    title = f"{name} - {person}" if person and person != name else name
    return clean_filename(title, submission.eid)


def documents_zip(submission: Submission) -> tuple[bytes, str]:
    """The zip of a completed submission's documents, and its file name.

    With a signing step, it is the signed packet's archive: the sealed PDFs and the sealed
    audit trail (SealPending, a 503 with Retry-After, while they are being sealed)."""
    submission = submission_sync(submission)
    if not submission.is_complete:
        raise Conflict(
            f"The submission is {submission.status}: its documents can be downloaded once it is "
            "completed."
        )
    filename = f"{download_name(submission)}.zip"
    if submission.packet_id is not None:
        group = DocumentGroup.objects.get(packet_id=submission.packet_id)
        archive = document_group_archive(
            organization=submission.workflow.organization, group_eid=group.eid
        )
        return archive.data, filename
    archive = PdfZip(when=submission.completed_at or timezone.now())
    for index, document in enumerate(submission_files(submission)):
        archive.add(document.filename, document.read(), default=f"document{index + 1}.pdf")
    return archive.finish(), filename
