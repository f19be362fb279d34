"""Files signers attach (an extension: the signer JSON's fields of type ``attachment``,
esign.packets.attachment_fields).

On the signing page a signer attaches a file to each of their attachment fields (a photo from a
phone's camera, a scan, a PDF): it is checked by its bytes (esign.engine.attachment_files: what
it is, not what its name or the browser say; within the field's size cap and accepted types),
then stored with the packet's documents, by its SHA-256, through the same storage (the
filesystem or S3), and audited with its hash. Attaching again replaces the file, removing it
is allowed, both only while the signer may sign; a required field without a file blocks
finishing (esign.signing.turns.check_attachments). A refused file stores nothing. Once the
packet is sealed the certificate of completion (sealed itself) lists every attached file with
its SHA-256, and the zip holds them under ``attachments/``.

A file that starts like a PDF is checked in an upload-check worker (esign.upload_checks), within
ESIGN_ATTACHMENT_MAX_PDF_PAGES, _OBJECTS and _DECODED_BYTES, before anything parses it here: a
page tree naming one page 200,000 times costs a worker, never the server.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from core.blobs import blob_delete, blob_save
from core.errors import NotFound, RequestTooLarge, ValidationFailed
from esign.engine.attachment_files import (
    EMPTY,
    HEIC,
    IMAGE_TOO_LARGE,
    KINDS,
    MAX_IMAGE_PIXELS,
    NOT_ACCEPTED,
    PDF_TOO_COMPLEX,
    PDF_TOO_MANY_PAGES,
    Checked,
    PdfLimits,
    check_attachment,
    sniff,
)
from esign.engine.upload_pool import AttachmentJob, UploadTooComplex
from esign.models import Packet, PacketDocument, Signer, SignerAttachment
from esign.packets.attachment_fields import AttachmentField, attachment_fields_of, readable_size
from esign.packets.audit import AuditAction, Client
from esign.packets.lifecycle import audit
from esign.signing.turns import signer_check_open
from esign.upload_checks import run_upload_check

logger = logging.getLogger(__name__)

# How a kind is named to people.
KIND_NAMES = {"pdf": "PDF", "png": "PNG", "jpeg": "JPEG"}
# The kind a file's name claims by its extension.
NAMED_KINDS = {"pdf": "pdf", "png": "png", "jpg": "jpeg", "jpeg": "jpeg"}


def _field(signer: Signer, field_id: str) -> AttachmentField:
    for field in attachment_fields_of(signer):
        if field.id == field_id:
            return field
    raise NotFound(_("This signer has no attachment field “{id}”.").format(id=field_id[:200]))


def types_text(field: AttachmentField) -> str:
    return ", ".join(KIND_NAMES[kind] for kind in field.accepted_types)


def _misnamed(filename: str, actual: str) -> str:
    """What a refused file's name claims it is, when its bytes (``actual``, sniff's kind) are not
    that ("“notes.pdf” is named like a PDF file but is not one."), else ""."""
    claimed = NAMED_KINDS.get(filename.rsplit(".", 1)[-1].lower() if "." in filename else "")
    if claimed is None or claimed == actual:
        return ""
    name = "".join(ch for ch in filename if ch.isprintable())[:200]
    return _("“{name}” is named like a {kind} file but is not one.").format(
        name=name, kind=KIND_NAMES[claimed]
    )


def _refusal_message(
    refusal: str, field: AttachmentField, filename: str = "", actual: str = ""
) -> str:
    if refusal == EMPTY:
        return _("This file is empty.")
    if refusal == HEIC:
        return _(
            "This is a HEIC photo, which cannot be accepted. Attach it as one of: {types}."
        ).format(types=types_text(field))
    if refusal == NOT_ACCEPTED:
        attach = _("Attach a file of one of these types: {types}.").format(types=types_text(field))
        # A text file named notes.pdf is told what it is not, then what the field takes.
        return " ".join(filter(None, (_misnamed(filename, actual), attach)))
    if refusal == IMAGE_TOO_LARGE:
        return _("This image is too large: at most {count} megapixels.").format(
            count=MAX_IMAGE_PIXELS // 1_000_000
        )
    if refusal == PDF_TOO_MANY_PAGES:
        return _("This PDF has too many pages: at most {count}.").format(
            count=settings.ESIGN_ATTACHMENT_MAX_PDF_PAGES
        )
    if refusal == PDF_TOO_COMPLEX:
        return _("This PDF is too complex to be attached; attach a simpler copy of it.")
    return _("This file is damaged or cannot be read.")


def pdf_limits() -> PdfLimits:
    return PdfLimits(
        max_pages=settings.ESIGN_ATTACHMENT_MAX_PDF_PAGES,
        max_objects=settings.ESIGN_ATTACHMENT_MAX_PDF_OBJECTS,
        max_decoded_bytes=settings.ESIGN_ATTACHMENT_MAX_PDF_DECODED_BYTES,
    )


def _checked(data: bytes, field: AttachmentField, tenant: str) -> Checked:
    """``data`` checked: a PDF in an upload-check worker (a parse of anybody's PDF is not the
    server's to risk), anything else here (a name check, an image's header)."""
    if not (sniff(data) == "pdf" and "pdf" in field.accepted_types):
        return check_attachment(data, field.accepted_types)
    job = AttachmentJob(data=data, accepted=field.accepted_types, pdf_limits=pdf_limits())
    try:
        checked: Checked = run_upload_check(
            job,
            busy_message=_("Files are being checked for others; attach it again in a moment."),
            tenant=tenant,
        )
    except UploadTooComplex:
        return Checked(refusal=PDF_TOO_COMPLEX)
    return checked


def _prefix(packet: Packet) -> str:
    """The packet's folder, where its documents are: removing the packet removes them too."""
    return f"packets/{packet.organization.eid}/{packet.eid}"


def attachment_add(
    *, signer: Signer, field_id: str, filename: str, data: bytes, client: Client
) -> SignerAttachment:
    """Attach ``data`` to ``signer``'s field ``field_id`` (replacing a file attached before).
    ValidationFailed (``file``) or RequestTooLarge when the file is refused, Conflict when the
    signer may not sign now, NotFound for a field they do not have; nothing is stored then."""
    signer_check_open(signer)
    field = _field(signer, field_id)
    if len(data) > field.max_bytes:
        raise RequestTooLarge(
            _("The file is larger than the limit of {size}.").format(
                size=readable_size(field.max_bytes)
            )
        )
    checked = _checked(data, field, str(signer.packet.organization_id))
    if checked.refusal:
        message = _refusal_message(checked.refusal, field, filename, sniff(data))
        raise ValidationFailed.single("file", message)
    name = _filename(filename, checked.extension)
    # Stored beside the documents, under a name of its own (a signer may attach a PDF that is
    # one of the documents: removing the attachment must not remove the document).
    path, sha = blob_save(
        prefix=_prefix(signer.packet), data=data, suffix=f"-attachment{checked.extension}"
    )
    try:
        with transaction.atomic():
            signer = Signer.objects.select_for_update().select_related("packet").get(pk=signer.pk)
            signer_check_open(signer)
            previous = SignerAttachment.objects.filter(signer=signer, field_id=field.id).first()
            if previous is not None:
                previous.delete()
            attached = SignerAttachment.objects.create(
                signer=signer,
                field_id=field.id,
                filename=name,
                content_type=checked.content_type,
                size=len(data),
                sha256=sha,
                path=path,
            )
            detail: dict[str, Any] = {
                "fieldId": field.id,
                "filename": name,
                "size": len(data),
                "contentType": checked.content_type,
                "sha256": sha,
            }
            if previous is not None:
                detail["replaced"] = previous.sha256
                old = previous.path
                transaction.on_commit(lambda: _delete_unused(old))
            audit(
                packet=signer.packet,
                signer=signer,
                action=AuditAction.SIGNER_ATTACHMENT_ADDED,
                client=client,
                detail=detail,
            )
    except BaseException:
        _delete_unused(path)
        raise
    return attached


def attachment_remove(*, signer: Signer, field_id: str, client: Client) -> bool:
    """Remove the file attached to ``field_id``; False when there was none."""
    signer_check_open(signer)
    field = _field(signer, field_id)
    with transaction.atomic():
        signer = Signer.objects.select_for_update().select_related("packet").get(pk=signer.pk)
        signer_check_open(signer)
        attached = SignerAttachment.objects.filter(signer=signer, field_id=field.id).first()
        if attached is None:
            return False
        attached.delete()
        audit(
            packet=signer.packet,
            signer=signer,
            action=AuditAction.SIGNER_ATTACHMENT_REMOVED,
            client=client,
            detail={"fieldId": field.id, "filename": attached.filename, "sha256": attached.sha256},
        )
        path = attached.path
        transaction.on_commit(lambda: _delete_unused(path))
    return True


def _delete_unused(path: str) -> None:
    """Delete a stored attachment no signer's attachment (nor document) uses any more."""
    if SignerAttachment.objects.filter(path=path).exists():
        return
    if PacketDocument.objects.filter(prepared_path=path).exists():
        return
    try:
        blob_delete(path)
    except OSError:
        logger.warning("esign: an attachment's file %s could not be deleted", path)


def _filename(given: str, extension: str) -> str:
    """The signer's file name, on one line, with the extension of what the file really is."""
    name = "".join(ch for ch in given if ch.isprintable()).strip()[:200] or "attachment"
    stem = name.rsplit(".", 1)[0] if "." in name else name
    return f"{stem or 'attachment'}{extension}"


def attachment_json(field: AttachmentField, attached: SignerAttachment | None) -> dict[str, Any]:
    """A field and its file as the signing page and the API show them."""
    return {
        **field.to_json(),
        "types": types_text(field),
        "maxSize": readable_size(field.max_bytes),
        "accept": ",".join(KINDS[kind][0] for kind in field.accepted_types),
        "file": None
        if attached is None
        else {
            "filename": attached.filename,
            "size": attached.size,
            "sizeText": readable_size(attached.size),
            "contentType": attached.content_type,
            "sha256": attached.sha256,
        },
    }


def signer_attachments(signer: Signer) -> list[dict[str, Any]]:
    """Each of the signer's attachment fields with the file attached to it, if any."""
    if not signer.attachment_fields:
        return []  # nothing to attach: no query
    attached = {a.field_id: a for a in signer.attachments.all()}
    return [attachment_json(f, attached.get(f.id)) for f in attachment_fields_of(signer)]
