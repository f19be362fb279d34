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
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import transaction

from accounts.identity import ApiIdentity
from accounts.models import Organization
from core.blobs import blob_delete, blob_save
from core.eids import new_eid
from core.engine.pdf import PdfUnreadable, open_pdf, save_pdf
from core.errors import Conflict, FieldError, NotFound, ValidationFailed
from core.office import PdfUpload, pdf_of_upload
from esign.links.tokens import signer_tokens_revoke
from esign.models import DocumentGroup, Packet, PacketDocument, Signer
from esign.packets import lifecycle, signature_levels
from esign.packets.inputs import (
    FileInput,
    MadeFile,
    PacketInput,
    StoredFile,
    files_checked,
    packet_rows,
)
from esign.packets.lookups import document_group_get, packet_get
from esign.packets.roles import NOT_WAITED_FOR
from esign.sending.initials import page_initials_added
from esign.signature_models import SignatureLevel
from esign.signing.turns import locked, packet_send, test_mark
from fill.services import fill_source
from generate.services import pdf_generate
from templates_app.services import TemplateSource, template_source
from webhooks.services import check_webhook_url

logger = logging.getLogger(__name__)


# --- reading ------------------------------------------------------------------------------------


def remaining_signers(packet: Packet) -> int:
    return sum(
        1
        for s in packet.signers.all()
        if s.status not in lifecycle.FINISHED_SIGNER and s.role not in NOT_WAITED_FOR
    )


# --- creating -----------------------------------------------------------------------------------


def _page_count(pdf: bytes) -> int:
    with open_pdf(pdf) as document:
        return len(document.pages)


def _converted_upload(file: FileInput, path: str) -> PdfUpload:
    """An uploaded file as a PDF: a Word, OpenDocument or RTF document converted (its pages
    bounded as a generated document's are), a PDF as it came."""
    assert file.upload is not None
    return pdf_of_upload(
        file.upload.data,
        file.upload.filename,
        max_pages=settings.GENERATE_MAX_PAGES,
        path=f"{path}.file",
    )


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
) -> tuple[bytes, TemplateSource | None, PdfUpload | None]:
    """The PDF bytes of one file, the template read for it (templates only) and the Office
    document it was converted from (converted uploads only)."""
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
            return source.pdf, source, None
        body: dict[str, Any] = dict(payload)
        if "data" not in body:
            body = {"data": body}
        try:
            return fill_source(source, body), source, None
        except ValidationFailed as invalid:
            raise _prefixed(invalid, f"data.payloads.{file.id}") from None
    if file.upload is not None:
        upload = _converted_upload(file, path)
        office = upload if upload.converted else None
        return _normalized_upload(upload.pdf, f"{path}.file"), None, office
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
        return pdf_generate(organization=organization, watermark=watermark, body=body), None, None
    except ValidationFailed as invalid:
        raise _prefixed(invalid, path) from None


def _prefixed(invalid: ValidationFailed, prefix: str) -> ValidationFailed:
    """The same problems, named as arguments of createEtchPacket."""
    return ValidationFailed(
        FieldError(property=".".join(p for p in (prefix, f.property) if p), message=f.message)
        for f in invalid.fields
    )


@dataclass
class PreparedPacket:
    """A packet's documents made and stored, nothing written to the database yet: the slow
    part of creating a packet, done before any transaction (:func:`packet_prepare`)."""

    organization: Organization
    packet_input: PacketInput
    eid: str
    documents: list[StoredFile]
    # The Office documents uploaded files were converted from, stored in the packet's folder
    # beside its PDFs ("<sha256>-source-<file number>.docx"), so removing the packet removes them.
    sources: list[str] = field(default_factory=list)

    def discard(self) -> None:
        """Delete the stored PDFs (the packet was not written after all)."""
        for stored in self.documents:
            for path in {stored.prepared_path, stored.current_path}:
                blob_delete(path)
        for path in self.sources:
            blob_delete(path)


def packet_prepare(
    *, organization: Organization, watermark: bool, packet_input: PacketInput
) -> PreparedPacket:
    """Fill, generate or read every file of the packet, check them, and store their PDFs (and a
    test packet's marked copies). ValidationFailed names every problem; nothing is stored then.
    ``watermark``: generated documents carry the development mark (a development key asked)."""
    if packet_input.webhook_url:
        check_webhook_url(packet_input.webhook_url)  # refused now, not when the event fires
    pdfs, made, offices = [], [], []
    for index, file in enumerate(packet_input.files):
        pdf, source, office = _prepare(
            organization=organization,
            watermark=watermark,
            file=file,
            index=index,
            packet_input=packet_input,
        )
        pdfs.append((pdf, source.version if source else None))
        offices.append(office)
        made.append(MadeFile(pages=_page_count(pdf), template=source.spec if source else None))
    files = files_checked(packet_input, made)
    if any(s.initials_files for s in packet_input.signers):
        # Initials on every page (esign.packets.initials), now that the pages are known.
        files, packet_input = page_initials_added(files, packet_input, made, [p for p, _ in pdfs])
    prepared = PreparedPacket(organization, packet_input, new_eid(), [])
    prefix = f"packets/{organization.eid}/{prepared.eid}"
    try:
        for number, office in enumerate(offices, start=1):
            if office is not None and office.source is not None:
                path, _sha = blob_save(
                    prefix=prefix,
                    data=office.source,
                    suffix=f"-source-{number}.{office.source_extension}",
                )
                prepared.sources.append(path)
        for file, (pdf, version), document in zip(files, pdfs, made, strict=True):
            prepared_path, prepared_sha = blob_save(prefix=prefix, data=pdf)
            current_path, current_sha = prepared_path, prepared_sha
            if packet_input.is_test:  # a visible mark on every page, from the start
                current_path, current_sha = blob_save(prefix=prefix, data=test_mark(pdf))
            prepared.documents.append(
                StoredFile(
                    file,
                    version,
                    document.pages,
                    prepared_path,
                    prepared_sha,
                    current_path,
                    current_sha,
                )  # fmt: skip
            )
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
            verification_stamp=packet_input.verification_stamp,
        )
        DocumentGroup.objects.create(packet=packet)
        documents, signers = packet_rows(packet, packet_input, prepared.documents)
        # One INSERT each for the documents and the signers, whatever their number.
        PacketDocument.objects.bulk_create(documents)
        Signer.objects.bulk_create(signers)
        if any(s.signature_level != SignatureLevel.SIMPLE for s in packet_input.signers):
            # Asked here, not inside: a packet of simple signers never opens that module.
            signature_levels.signer_levels_create(packet, packet_input)
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
