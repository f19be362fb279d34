"""E-signature packets: creating, voiding and removing them.

Documents are prepared once at creation (templates filled through fill, HTML and Markdown
generated through generate, uploads repaired through qpdf) and stored before the transaction
that writes the packet; each signer's fields are stamped onto them when that signer finishes
(esign.signing.turns). Every status change, and what it writes, goes through
esign.packets.lifecycle; whose turn it is and sending, through esign.signing.turns; signing
links, through esign.links.tokens; emails, through esign.links.emails.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.core.files.storage import default_storage
from django.db import transaction

from accounts.identity import ApiIdentity
from accounts.models import Organization
from core.blobs import blob_delete, blob_save
from core.eids import new_eid
from core.engine.pdf import PdfUnreadable, open_pdf, save_pdf
from core.engine.problems import Problem
from core.errors import Conflict, FieldError, NotFound, ValidationFailed
from esign.links.tokens import signer_tokens_revoke
from esign.models import DocumentGroup, Packet, PacketDocument, Signer
from esign.packets import lifecycle
from esign.packets.inputs import (
    FileInput,
    PacketInput,
    SignerInput,
    check_signer_fields,
    with_template_fields,
)
from esign.packets.lookups import document_group_get, packet_get
from esign.signing.turns import locked, packet_send, test_mark
from fill.services import fill_source
from generate.services import pdf_generate
from templates_app.services import TemplateSource, template_source
from webhooks.services import check_webhook_url

logger = logging.getLogger(__name__)


# --- reading ------------------------------------------------------------------------------------


def remaining_signers(packet: Packet) -> int:
    return sum(1 for s in packet.signers.all() if s.status not in lifecycle.FINISHED_SIGNER)


# --- creating -----------------------------------------------------------------------------------


def _page_count(pdf: bytes) -> int:
    with open_pdf(pdf) as document:
        return len(document.pages)


def _normalized_upload(data: bytes, path: str) -> bytes:
    """An uploaded PDF opened (repaired, decrypted when its password is empty) and written anew,
    so everything later stamped and signed sits on a sound file."""
    try:
        with open_pdf(data) as document:
            return save_pdf(document)
    except PdfUnreadable as error:
        raise ValidationFailed.single(path, f"The file is not a readable PDF ({error}).") from None


def _prepare(
    *,
    organization: Organization,
    watermark: bool,
    file: FileInput,
    index: int,
    packet_input: PacketInput,
) -> tuple[bytes, TemplateSource | None]:
    """The PDF bytes of one file and the template read for it (templates only)."""
    path = f"files.{index}"
    if file.cast_eid is not None:
        try:
            source = template_source(
                organization=organization, eid=file.cast_eid, version_number=None
            )
        except NotFound:
            raise ValidationFailed.single(
                f"{path}.castEid", f"No template with eid {file.cast_eid!r}."
            ) from None
        payload = packet_input.payloads.get(file.id)
        if not payload:
            return source.pdf, source
        body: dict[str, Any] = dict(payload)
        if "data" not in body:
            body = {"data": body}
        try:
            return fill_source(source, body), source
        except ValidationFailed as invalid:
            raise _prefixed(invalid, f"data.payloads.{file.id}") from None
    if file.upload is not None:
        return _normalized_upload(file.upload.data, f"{path}.file"), None
    if file.html is not None:
        body = {
            "type": "html",
            "title": file.title or None,
            "data": {"html": file.html, "css": file.css},
        }
    else:
        body = {"type": "markdown", "title": file.title or None, "data": list(file.markdown_blocks)}
        if file.font_size is not None:
            body["fontSize"] = file.font_size
        if file.text_color is not None:
            body["textColor"] = file.text_color
    try:
        return pdf_generate(organization=organization, watermark=watermark, body=body), None
    except ValidationFailed as invalid:
        raise _prefixed(invalid, path) from None


def _template_fields(file: FileInput, source: TemplateSource, pages: int, index: int) -> FileInput:
    """A template file with its template's signer fields (signature, initial, signatureDate,
    signerName), which the signers' ``fieldId`` name. They sit on the template's pages, so a
    payload that repeats pages (the document no longer has the template's pages) is refused."""
    spec = source.spec
    signed = [field for field in spec.fields if field.is_signer]
    if signed and pages != len(spec.pages):
        raise ValidationFailed.single(
            f"data.payloads.{file.id}",
            f"The template has signer fields on its {len(spec.pages)} page(s): a payload that "
            f"repeats pages ({pages} here) cannot be signed.",
        )
    return with_template_fields(file, signed, index)


def _prefixed(invalid: ValidationFailed, prefix: str) -> ValidationFailed:
    """The same problems, named as arguments of createEtchPacket."""
    return ValidationFailed(
        FieldError(property=".".join(p for p in (prefix, f.property) if p), message=f.message)
        for f in invalid.fields
    )


def _check_fields_fit(file: FileInput, pages: int, index: int) -> None:
    problems = [
        Problem(f"files.{index}.fields.{n}.pageNum", f"The document has {pages} pages.")
        for n, field in enumerate(file.fields)
        if field.page >= pages
    ]
    if problems:
        raise ValidationFailed.from_problems(problems)


@dataclass
class PreparedPacket:
    """A packet's documents made and stored, nothing written to the database yet: the slow
    part of creating a packet, done before any transaction (:func:`packet_prepare`)."""

    organization: Organization
    packet_input: PacketInput
    eid: str
    # (file with its template's signer fields, template version, pages, the stored PDFs:
    # prepared path and hash, current path and hash)
    documents: list[tuple[FileInput, Any, int, tuple[str, str, str, str]]]

    def discard(self) -> None:
        """Delete the stored PDFs (the packet was not written after all)."""
        for *_, paths in self.documents:
            for path in {paths[0], paths[2]}:
                blob_delete(path)


def packet_prepare(
    *, organization: Organization, watermark: bool, packet_input: PacketInput
) -> PreparedPacket:
    """Fill, generate or read every file of the packet, check them, and store their PDFs (and a
    test packet's marked copies). ValidationFailed names every problem; nothing is stored then.
    ``watermark``: generated documents carry the development mark (a development key asked)."""
    if packet_input.webhook_url:
        check_webhook_url(packet_input.webhook_url)  # refused now, not when the event fires
    made = []
    for index, file in enumerate(packet_input.files):
        pdf, source = _prepare(
            organization=organization,
            watermark=watermark,
            file=file,
            index=index,
            packet_input=packet_input,
        )
        pages = _page_count(pdf)
        if source is not None:
            file = _template_fields(file, source, pages, index)
        _check_fields_fit(file, pages, index)
        made.append((file, pdf, source.version if source else None, pages))
    check_signer_fields([file for file, *_ in made], packet_input.signers)
    prepared = PreparedPacket(organization, packet_input, new_eid(), [])
    prefix = f"packets/{organization.eid}/{prepared.eid}"
    try:
        for file, pdf, version, pages in made:
            prepared_path, prepared_sha = blob_save(prefix=prefix, data=pdf)
            current_path, current_sha = prepared_path, prepared_sha
            if packet_input.is_test:  # a visible mark on every page, from the start
                current_path, current_sha = blob_save(prefix=prefix, data=test_mark(pdf))
            paths = (prepared_path, prepared_sha, current_path, current_sha)
            prepared.documents.append((file, version, pages, paths))
    except BaseException:
        prepared.discard()
        raise
    return prepared


def packet_store(
    prepared: PreparedPacket, *, created_detail: dict[str, Any] | None = None
) -> Packet:
    """Write the prepared packet with its documents and signers (in the caller's transaction,
    or one of its own) and send it unless it is a draft. Quick: no PDF work.
    ``created_detail``: more for the trail's packetCreated entry (a bulk send's batch and row)."""
    packet_input = prepared.packet_input
    with transaction.atomic():
        packet = Packet.objects.create(
            eid=prepared.eid,
            organization=prepared.organization,
            name=packet_input.name[:255],
            is_test=packet_input.is_test,
            allow_updates=packet_input.allow_updates,
            merge_pdfs=packet_input.merge_pdfs,
            webhook_url=packet_input.webhook_url,
            email_subject=packet_input.email_subject[:255],
            email_body=packet_input.email_body,
            reply_to_name=packet_input.reply_to_name[:255],
            reply_to_email=packet_input.reply_to_email,
            reminder_days=packet_input.reminder_days,
            language=packet_input.language,
            expires_at=packet_input.expires_at,
            allow_forward=packet_input.allow_forward,
        )
        DocumentGroup.objects.create(packet=packet)
        # One INSERT each for the documents and the signers, whatever their number.
        PacketDocument.objects.bulk_create(
            PacketDocument(
                packet=packet,
                alias_id=file.id,
                position=position,
                title=file.title[:255],
                filename=file.filename[:255],
                source=file.source,
                template_version=version,
                prepared_path=paths[0],
                prepared_sha256=paths[1],
                current_path=paths[2],
                current_sha256=paths[3],
                fields=[field.to_json() for field in file.fields],
                page_count=pages,
            )
            for position, (file, version, pages, paths) in enumerate(prepared.documents)
        )
        Signer.objects.bulk_create(
            _new_signer(packet, signer, may_forward=packet_input.signer_may_forward(signer))
            for signer in packet_input.signers
        )
        lifecycle.packet_created(
            packet, detail={"documents": len(prepared.documents), **(created_detail or {})}
        )
        if not packet_input.is_draft:
            packet_send(packet=packet)
    packet.refresh_from_db()
    return packet


def packet_create(
    *, organization: Organization, watermark: bool, packet_input: PacketInput
) -> Packet:
    """Create a packet of ``organization`` with its documents and signers: the documents made
    and stored first, then one short transaction. Any problem stores nothing."""
    prepared = packet_prepare(
        organization=organization, watermark=watermark, packet_input=packet_input
    )
    try:
        return packet_store(prepared)
    except BaseException:
        prepared.discard()
        raise


def _new_signer(packet: Packet, signer: SignerInput, *, may_forward: bool = False) -> Signer:
    return Signer(
        packet=packet,
        alias_id=signer.alias_id[:200],
        name=signer.name[:255],
        email=signer.email,
        signer_type=signer.signer_type,
        routing_order=signer.routing_order,
        redirect_url=signer.redirect_url,
        signature_mode=signer.signature_mode,
        accept_each_field=signer.accept_each_field,
        enable_emails=signer.enable_emails,
        language=signer.language,
        verify_method=signer.verify_method,
        verify_phone=signer.verify_phone,
        signing_group=signer.signing_group,
        signing_group_required=signer.signing_group_required,
        role=signer.role,
        witness_for=signer.witness_for,
        attachment_fields=[field.to_json() for field in signer.attachment_fields],
        allow_forward=may_forward,
        fields=[{"fileId": file_id, "fieldId": field_id} for file_id, field_id in signer.fields],
    )


# --- ending -------------------------------------------------------------------------------------


def packet_void(*, identity: ApiIdentity, group_eid: str) -> Packet:
    """voidDocumentGroup: nobody can sign any more; links stop working. Only an open packet
    (draft, sent, delivered, partial) can be voided: a completed, declined or voided one is a
    Conflict."""
    group = document_group_get(organization=identity.organization, eid=group_eid)
    return packet_void_now(packet=group.packet)


def packet_void_now(*, packet: Packet) -> Packet:
    """Void ``packet`` (the API's voidDocumentGroup, the admin's action); Conflict unless open."""
    with transaction.atomic():
        packet = locked(packet)
        _void(packet)
    return packet


def _void(packet: Packet) -> None:
    """Void the locked packet: its signers who had not finished, their links, their emails."""
    if not lifecycle.packet_may_move(packet, Packet.Status.VOIDED):
        raise Conflict(f"The packet is {packet.status}: only an open packet can be voided.")
    for signer in packet.signers.all():
        signer.packet = packet
        if lifecycle.signer_may_move(signer, Signer.Status.VOIDED):
            lifecycle.signer_move(signer, Signer.Status.VOIDED)
        signer_tokens_revoke(signer=signer)
    lifecycle.signer_emails_cancel(signer__packet=packet)
    lifecycle.packet_move(packet, Packet.Status.VOIDED)


def packet_remove(*, identity: ApiIdentity, eid: str) -> bool:
    """removeEtchPacket: a packet not yet completed is deleted with everything it holds.

    An open packet is voided first (its signers' signerUpdateStatus events say so, and apps
    above may refuse: a workflow submission whose signing step it is). Its stored files are
    deleted once the deletion is committed.
    """
    packet_delete(packet=packet_get(organization=identity.organization, eid=eid))
    return True


def packet_delete(*, packet: Packet) -> None:
    """Delete ``packet`` unless it is completed (removeEtchPacket, the admin's delete)."""
    with transaction.atomic():
        packet = locked(packet)
        if packet.status == Packet.Status.COMPLETED:
            raise Conflict("A completed packet is kept; it cannot be removed.")
        lifecycle.packet_removing(packet)  # may refuse (Conflict)
        if lifecycle.packet_may_move(packet, Packet.Status.VOIDED):
            _void(packet)
        files = _stored_files(packet)
        packet.delete()
        transaction.on_commit(lambda: _delete_files(files))


def _stored_files(packet: Packet) -> list[str]:
    """Every file the packet stored: its folder, and its signers' drawn signatures that no other
    signer shares (stored by content, so one drawing may serve two packets)."""
    prefix = f"packets/{packet.organization.eid}/{packet.eid}"
    try:
        _, names = default_storage.listdir(prefix)
    except FileNotFoundError:
        names = []
    files = [f"{prefix}/{name}" for name in names]
    for signer in packet.signers.exclude(signature_path=""):
        shared = Signer.objects.filter(signature_path=signer.signature_path).exclude(packet=packet)
        if not shared.exists():
            files.append(signer.signature_path)
    return files


def _delete_files(paths: list[str]) -> None:
    for path in paths:
        try:
            blob_delete(path)
        except OSError:
            logger.warning("esign: a removed packet's file %s could not be deleted", path)
