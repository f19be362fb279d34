"""Finishing a submission once every webform is complete: the documents filled and stored, or
the signing step's packet made; and a submission in its signing step following its packet."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.identity import ApiIdentity
from core.blobs import blob_save
from core.engine.problems import Problem
from core.engine.template_spec import Rect
from core.errors import Conflict, FieldError, NotFound, ValidationFailed
from esign.models import Packet
from esign.packets import FileInput, PacketInput, SignerInput, SignField
from esign.sending import PreparedPacket, packet_prepare, packet_store
from fill.services import fill_template
from templates_app.models import TemplateVersion
from workflows.engine.definition import WorkflowDef
from workflows.engine.resolve import document_data, signing_answers
from workflows.models import (
    Submission,
    SubmissionDocument,
    Workflow,
)
from workflows.submissions import events
from workflows.submissions.lifecycle import submission_move
from workflows.submissions.links import continue_url
from workflows.submissions.reads import SIGNING, Status, definition_for, locked_submission


@dataclass(frozen=True)
class Filled:
    title: str
    filename: str
    version: TemplateVersion
    pdf: bytes


def fill_documents(
    workflow: Workflow, definition: WorkflowDef, payloads: Mapping[str, Mapping[str, Any]]
) -> list[Filled]:
    """Each document filled from the mapped values, with the template's default version."""
    filled = []
    for index, document in enumerate(definition.documents):
        body = {"data": document_data(definition, document, payloads), "title": document.title}
        try:
            made = fill_template(
                organization=workflow.organization,
                template_eid=document.template_eid,
                version_number=None,
                body=body,
            )
        except NotFound:
            raise ValidationFailed.single(
                f"documents.{index}",
                f"The workflow's template {document.template_eid!r} no longer exists.",
            ) from None
        except ValidationFailed as invalid:
            raise ValidationFailed(
                FieldError(property=f"documents.{index}.{f.property}", message=f.message)
                for f in invalid.fields
            ) from None
        filled.append(Filled(document.title, document.filename, made.version, made.pdf))
    return filled


def finish_documents(
    submission: Submission,
    definition: WorkflowDef,
    payloads: Mapping[str, Mapping[str, Any]],
    prepared: list[Filled] | None,
    signing: PreparedPacket | None,
    identity: ApiIdentity | None,
    *,
    embedded: bool,
) -> PreparedPacket | None:
    """Every webform is complete: store the documents and complete, or start signing. The
    documents are made before the transaction; ``prepared`` and ``signing`` are None only when
    another webform's save completed the workflow meanwhile, and then they are made now.
    Returns the signing documents made here (the caller discards them if the transaction
    fails)."""
    made = None
    if definition.signers:
        if signing is None:
            signing = made = signing_prepare_documents(
                submission, definition, payloads, identity, embedded=embedded
            )
        submission.packet = packet_store(signing)
        submission_move(submission, Status.READY_TO_SIGN, fields=("packet",))
        return made
    if prepared is None:  # another webform completed meanwhile: fill now
        prepared = fill_documents(submission.workflow, definition, payloads)
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
    answers = signing_answers(definition, payloads)
    for signer, (name, email) in zip(definition.signers, answers.people, strict=True):
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
        name=(answers.title or definition.name)[:255],
        files=tuple(files),
        signers=tuple(signers),
        payloads={_file_id(index): {"data": data} for index, data in enumerate(answers.data)},
        is_test=submission.is_test,
        webhook_url=submission.webhook_url,
    )


def signing_prepare_documents(
    submission: Submission,
    definition: WorkflowDef,
    payloads: Mapping[str, Mapping[str, Any]],
    identity: ApiIdentity | None,
    *,
    embedded: bool,
) -> PreparedPacket:
    """The signing step's documents made and stored (slow: before any transaction)."""
    # A person on a webform page acts for the organization itself: no key, no watermark.
    return packet_prepare(
        organization=submission.workflow.organization,
        watermark=identity.is_development if identity is not None else False,
        packet_input=_signing_input(submission, definition, payloads, embedded=embedded),
    )


# What a packet's status is to the submission whose signing step it is (an expired packet changes
# nothing: reopened, it goes on). esign tells packet_changed only of the moves that change this.
SIGNING_STATUS_OF_PACKET: dict[str, str] = {
    Packet.Status.DRAFT: Status.READY_TO_SIGN,
    Packet.Status.SENT: Status.READY_TO_SIGN,
    Packet.Status.DELIVERED: Status.READY_TO_SIGN,
    Packet.Status.PARTIAL: Status.AWAITING_SIGNATURES,
    Packet.Status.DECLINED: Status.DECLINED,
    Packet.Status.VOIDED: Status.DECLINED,
    Packet.Status.COMPLETED: Status.COMPLETED,
}


def packet_changed(packet: Packet) -> None:
    """esign's hook: the submissions whose signing step is this packet take its state now
    (registered with ``seen_as=SIGNING_STATUS_OF_PACKET``: told only of the moves it sees)."""
    for submission in Submission.objects.filter(packet=packet):
        submission_sync(submission)


def packet_removing(packet: Packet) -> None:
    """esign's hook: a packet that is a submission's signing step is not removed from under it
    (void it instead: the submission then ends as declined)."""
    _refuse_for_signing_step(packet, "void it (voidDocumentGroup) instead of removing it.")


def signer_handing_over(packet: Packet) -> None:
    """esign's hook: a submission's signing step keeps its signers (the workflow's page hands the
    signing link to the person filling the webform, whom the step names)."""
    _refuse_for_signing_step(
        packet,
        "its signers sign from the workflow's pages and cannot be forwarded or reassigned.",
    )


def _refuse_for_signing_step(packet: Packet, what_instead: str) -> None:
    """Conflict if ``packet`` is a submission's signing step, saying ``what_instead``."""
    owner = Submission.objects.filter(packet=packet).first()
    if owner is not None:
        raise Conflict(
            f"The packet is the signing step of workflow submission '{owner.eid}': {what_instead}"
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
    status = packet_status.first()
    target = SIGNING_STATUS_OF_PACKET.get(status, submission.status) if status else None
    if target is None:
        return submission
    if target == submission.status:
        return submission
    with transaction.atomic():
        locked = locked_submission(submission)
        if locked.status not in SIGNING:
            return locked
        if target == Status.COMPLETED:
            _complete(locked, definition_for(locked))
        else:
            submission_move(locked, target)
    return locked
