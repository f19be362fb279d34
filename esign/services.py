"""E-signature packets: creating them, routing signers, signing, declining, voiding.

Every state change and its audit event are written in one transaction; emails go out after it
commits. Documents are prepared once at creation (templates filled through fill, HTML and
Markdown generated through generate, uploads repaired through qpdf) and each signer's fields
are stamped onto them when that signer finishes.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from accounts.identity import ApiIdentity
from accounts.models import Organization
from core.blobs import blob_read, blob_save
from core.engine.pdf import PdfUnreadable, open_pdf, save_pdf
from core.engine.problems import Problem
from core.errors import Conflict, FieldError, NotFound, ValidationFailed
from esign import events, hooks
from esign.inputs import (
    STAMP_TYPES,
    FileInput,
    PacketInput,
    SignerInput,
    check_signer_fields,
    with_template_fields,
)
from esign.models import AuditEvent, DocumentGroup, Packet, PacketDocument, Signer, SignerToken
from fill.services import fill_version
from generate.services import pdf_generate
from templates_app.services import (
    template_get,
    template_version_select,
    version_pdf,
    version_spec,
)
from webhooks.services import check_webhook_url

logger = logging.getLogger(__name__)

TOKEN_TTL = timedelta(hours=24)
OPEN_PACKET = (Packet.Status.SENT, Packet.Status.DELIVERED, Packet.Status.PARTIAL)
FINISHED_SIGNER = (Signer.Status.COMPLETED, Signer.Status.SKIPPED)


# --- reading ------------------------------------------------------------------------------------


def packet_get(*, organization: Organization, eid: str) -> Packet:
    """The organization's packet; another organization's is as absent as a missing one."""
    try:
        return Packet.objects.select_related("document_group").get(
            organization=organization, eid=eid
        )
    except Packet.DoesNotExist:
        raise NotFound(f"No packet with eid '{eid}'.") from None


def signer_get(*, organization: Organization, eid: str) -> Signer:
    try:
        return Signer.objects.select_related("packet").get(
            packet__organization=organization, eid=eid
        )
    except Signer.DoesNotExist:
        raise NotFound(f"No signer with eid '{eid}'.") from None


def document_pdf(document: PacketDocument) -> bytes:
    """The document as it stands: prepared, with every signature given so far."""
    return blob_read(document.current_path, document.current_sha256)


def remaining_signers(packet: Packet) -> int:
    return sum(1 for s in packet.signers.all() if s.status not in FINISHED_SIGNER)


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
) -> tuple[bytes, Any]:
    """The PDF bytes of one file and the template version used (templates only)."""
    path = f"files.{index}"
    if file.cast_eid is not None:
        try:
            template = template_get(organization=organization, eid=file.cast_eid)
        except NotFound:
            raise ValidationFailed.single(
                f"{path}.castEid", f"No template with eid {file.cast_eid!r}."
            ) from None
        version = template_version_select(template=template, version_number=None)
        payload = packet_input.payloads.get(file.id)
        if not payload:
            return version_pdf(version), version
        body = dict(payload)
        if "data" not in body:
            body = {"data": body}
        try:
            return fill_version(version=version, body=body), version
        except ValidationFailed as invalid:
            raise _prefixed(invalid, f"data.payloads.{file.id}") from None
    if file.upload is not None:
        return _normalized_upload(file.upload.data, f"{path}.file"), None
    if file.html is not None:
        body: dict[str, Any] = {
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


def _template_fields(file: FileInput, version: Any, pages: int, index: int) -> FileInput:
    """A template file with its template's signer fields (signature, initial, signatureDate,
    signerName), which the signers' ``fieldId`` name. They sit on the template's pages, so a
    payload that repeats pages (the document no longer has the template's pages) is refused."""
    spec = version_spec(version)
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


def packet_create(
    *, organization: Organization, watermark: bool, packet_input: PacketInput
) -> Packet:
    """Create a packet of ``organization`` with its documents and signers, in one transaction;
    send it unless it is a draft. Any problem stores nothing. ``watermark``: generated documents
    carry the development mark (a development key asked)."""
    if packet_input.webhook_url:
        check_webhook_url(packet_input.webhook_url)  # refused now, not when the event fires
    prepared = []
    for index, file in enumerate(packet_input.files):
        pdf, version = _prepare(
            organization=organization,
            watermark=watermark,
            file=file,
            index=index,
            packet_input=packet_input,
        )
        pages = _page_count(pdf)
        if version is not None:
            file = _template_fields(file, version, pages, index)
        _check_fields_fit(file, pages, index)
        prepared.append((file, pdf, version, pages))
    check_signer_fields([file for file, *_ in prepared], packet_input.signers)

    with transaction.atomic():
        packet = Packet.objects.create(
            organization=organization,
            name=packet_input.name[:255],
            is_test=packet_input.is_test,
            allow_updates=packet_input.allow_updates,
            merge_pdfs=packet_input.merge_pdfs,
            webhook_url=packet_input.webhook_url,
            email_subject=packet_input.email_subject[:255],
            email_body=packet_input.email_body,
            reply_to_name=packet_input.reply_to_name[:255],
            reply_to_email=packet_input.reply_to_email,
        )
        DocumentGroup.objects.create(packet=packet)
        for position, (file, pdf, version, pages) in enumerate(prepared):
            stored_path, sha = blob_save(
                prefix=f"packets/{organization.eid}/{packet.eid}", data=pdf
            )
            PacketDocument.objects.create(
                packet=packet,
                alias_id=file.id,
                position=position,
                title=file.title[:255],
                filename=file.filename[:255],
                source=file.source,
                template_version=version,
                prepared_path=stored_path,
                prepared_sha256=sha,
                current_path=stored_path,
                current_sha256=sha,
                fields=[field.to_json() for field in file.fields],
                page_count=pages,
            )
        for signer in packet_input.signers:
            _create_signer(packet, signer)
        if packet.is_test:
            from esign.stamping import mark_test_documents

            mark_test_documents(packet)
        audit(packet=packet, action="packetCreated", detail={"documents": len(prepared)})
        events.document_group_created(packet)
        if not packet_input.is_draft:
            packet_send(packet=packet)
    packet.refresh_from_db()
    return packet


def _create_signer(packet: Packet, signer: SignerInput) -> Signer:
    return Signer.objects.create(
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
        fields=[{"fileId": file_id, "fieldId": field_id} for file_id, field_id in signer.fields],
    )


# --- audit --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Client:
    """Where a signer's request came from, for the audit trail."""

    ip: str | None = None
    user_agent: str = ""


def audit(
    *,
    packet: Packet,
    action: str,
    signer: Signer | None = None,
    client: Client | None = None,
    detail: dict[str, Any] | None = None,
) -> AuditEvent:
    client = client or Client()
    return AuditEvent.objects.create(
        packet=packet,
        signer=signer,
        action=action,
        ip=client.ip,
        user_agent=client.user_agent[:500],
        detail=detail or {},
    )


# --- routing ------------------------------------------------------------------------------------


def _locked(packet: Packet) -> Packet:
    return Packet.objects.select_for_update().get(pk=packet.pk)


def packet_send(*, packet: Packet) -> Packet:
    """Send a draft: the first routing group is told it may sign."""
    with transaction.atomic():
        packet = _locked(packet)
        if packet.status != Packet.Status.DRAFT:
            raise Conflict(f"Packet '{packet.eid}' was already sent.")
        if not packet.signers.exists():
            raise ValidationFailed.single("signers", "A packet needs at least one signer to send.")
        packet.status = Packet.Status.SENT
        packet.sent_at = timezone.now()
        packet.save(update_fields=["status", "sent_at", "updated_at"])
        DocumentGroup.objects.filter(packet=packet).update(status=Packet.Status.SENT)
        audit(packet=packet, action="packetSent")
        _notify_next(packet)
    return packet


def _turn_signers(packet: Packet) -> list[Signer]:
    """The signers whose turn it is: the lowest routing order with someone still to sign.

    Signers of one routing order sign in parallel; the next order waits for all of them.
    """
    waiting = [s for s in packet.signers.all() if s.status not in FINISHED_SIGNER]
    if not waiting:
        return []
    lowest = min(s.routing_order for s in waiting)
    return [s for s in waiting if s.routing_order == lowest]


def is_signers_turn(signer: Signer) -> bool:
    return signer.packet.status in OPEN_PACKET and signer in _turn_signers(signer.packet)


def _notify_next(packet: Packet) -> None:
    for signer in _turn_signers(packet):
        if signer.status != Signer.Status.CREATED:
            continue
        signer.status = Signer.Status.SENT
        signer.save(update_fields=["status", "updated_at"])
        audit(packet=packet, signer=signer, action="signerNotified")
        events.signer_status_changed(signer)
        if signer.signer_type == Signer.Kind.EMAIL and signer.enable_emails and signer.email:
            url = signing_url(signer=signer, token=signer_token_issue(signer=signer))
            transaction.on_commit(lambda s=signer, u=url: _send_signing_email(s, u))


def _send_signing_email(signer: Signer, url: str) -> None:
    packet = signer.packet
    # One line whatever the name holds (a workflow's title is made of a webform's answers):
    # a line break in a header is refused by Django's mail (BadHeaderError) after the commit.
    subject = " ".join((packet.email_subject or f"Please sign: {packet.name}").split())
    body = (packet.email_body + "\n\n" if packet.email_body else "") + (
        f'{signer.name},\n\nYou are asked to sign "{packet.name}". Open this link to review and '
        f"sign (it expires in {int(TOKEN_TTL.total_seconds() // 3600)} hours):\n\n{url}\n"
    )
    try:
        send_mail(subject, body, None, [signer.email], fail_silently=False)
    except OSError:
        logger.exception("esign: the signing email to signer %s could not be sent", signer.eid)


# --- tokens -------------------------------------------------------------------------------------


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def signer_token_issue(*, signer: Signer, client_user_id: str = "") -> str:
    token = secrets.token_urlsafe(32)
    SignerToken.objects.create(
        signer=signer,
        token_hash=_hash(token),
        client_user_id=client_user_id[:255],
        expires_at=timezone.now() + TOKEN_TTL,
    )
    return token


def signing_url(*, signer: Signer, token: str) -> str:
    path = reverse("esign-verify", args=[signer.eid])
    return f"{settings.PUBLIC_BASE_URL}{path}?token={token}"


def sign_url_generate(*, identity: ApiIdentity, signer_eid: str, client_user_id: str) -> str:
    """generateEtchSignURL: a signing URL for an embedded signer, bound to ``client_user_id``."""
    signer = signer_get(organization=identity.organization, eid=signer_eid)
    if signer.signer_type != Signer.Kind.EMBEDDED:
        raise ValidationFailed.single(
            "signerEid", "Signing URLs are made for embedded signers; email signers get an email."
        )
    if not client_user_id.strip():
        raise ValidationFailed.single("clientUserId", "Required")
    if signer.packet.status == Packet.Status.DRAFT:
        raise Conflict("The packet is a draft: send it first.")
    with transaction.atomic():
        token = signer_token_issue(signer=signer, client_user_id=client_user_id)
        audit(packet=signer.packet, signer=signer, action="signingUrlCreated")
    return signing_url(signer=signer, token=token)


def signer_tokens_expire(*, identity: ApiIdentity, signer_eid: str) -> int:
    """expireSignerTokens: every open link of the signer stops working now."""
    signer = signer_get(organization=identity.organization, eid=signer_eid)
    with transaction.atomic():
        count = SignerToken.objects.filter(signer=signer, revoked_at__isnull=True).update(
            revoked_at=timezone.now()
        )
        audit(packet=signer.packet, signer=signer, action="tokensExpired")
    return count


class SigningRefused(Exception):
    """A signing link that cannot be used; ``error_type`` is the wire's errorType."""

    def __init__(self, error_type: str, message: str, signer: Signer | None = None) -> None:
        self.error_type = error_type
        self.signer = signer
        super().__init__(message)


def signer_from_token(*, signer_eid: str, token: str, now: datetime | None = None) -> Signer:
    """The signer a link opens: the token must be this signer's, unexpired and not revoked."""
    now = now or timezone.now()
    row = (
        SignerToken.objects.select_related("signer__packet__organization")
        .filter(token_hash=_hash(token or ""))
        .first()
    )
    if row is None or row.signer.eid != signer_eid:
        raise SigningRefused("tokenInvalid", "This signing link is not valid.")
    signer = row.signer
    if row.revoked_at is not None or row.expires_at <= now:
        raise SigningRefused("tokenExpired", "This signing link has expired.", signer)
    if signer.packet.status == Packet.Status.VOIDED or signer.status == Signer.Status.VOIDED:
        raise SigningRefused("notFound", "This signature request was cancelled.", signer)
    return signer


def signer_viewed(*, signer: Signer, client: Client) -> None:
    with transaction.atomic():
        audit(packet=signer.packet, signer=signer, action="signerViewed", client=client)
        if signer.status in (Signer.Status.CREATED, Signer.Status.SENT):
            signer.status = Signer.Status.VIEWED
            signer.save(update_fields=["status", "updated_at"])
            events.signer_status_changed(signer)


# --- signing ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Adoption:
    """What a signer adopted: a drawn signature (PNG) or typed text, and initials."""

    drawn_png: bytes | None = None
    typed: str = ""
    initials: str = ""


@dataclass(frozen=True)
class SigningOutcome:
    """What the signing page reports to its parent frame and the redirect URL."""

    signer: Signer
    next_signer: Signer | None
    packet: Packet


def signer_fields(signer: Signer) -> list[dict[str, Any]]:
    """The signer's fields with their documents: [{fileId, fieldId, type, page, rect, ...}]."""
    documents = {d.alias_id: d for d in signer.packet.documents.all()}
    out = []
    for ref in signer.fields:
        document = documents.get(ref["fileId"])
        if document is None:
            continue
        for field in document.fields:
            if field["id"] == ref["fieldId"]:
                out.append({"fileId": document.alias_id, "fieldId": field["id"], **field})
    return out


# The longest value a signer may type, by field type; the others are SIGNING_TEXT_MAX_CHARS.
_EMAIL_MAX_CHARS = 254  # RFC 5321's longest address
_DATE_MAX_CHARS = 32  # any spelling of a date


def _value_cap(kind: str) -> int:
    if kind == "email":
        return _EMAIL_MAX_CHARS
    if kind == "date":
        return _DATE_MAX_CHARS
    if kind == "fullName":
        return int(settings.SIGNING_NAME_MAX_CHARS)
    return int(settings.SIGNING_TEXT_MAX_CHARS)


def _check_values(signer: Signer, adoption: Adoption, values: dict[str, Any]) -> None:
    """Only the signer's own typed fields are taken (what is kept on the signer is bounded by
    them), each within the length of its type; a checkbox is true or false."""
    problems = []
    typed: set[str] = set()
    for field in signer_fields(signer):
        key = f"{field['fileId']}/{field['fieldId']}"
        if field["type"] in STAMP_TYPES:
            if field["type"] == "signature" and not (adoption.drawn_png or adoption.typed):
                problems.append(Problem("signature", "Adopt a signature first."))
            if field["type"] == "initial" and not (adoption.initials or adoption.typed):
                problems.append(Problem("initials", "Adopt your initials first."))
        elif field["type"] == "checkbox":
            typed.add(key)
            if key in values and not isinstance(values[key], bool):
                problems.append(Problem(key, "Must be true or false."))
        elif field["type"] != "signatureDate":
            typed.add(key)
            value = values.get(key)
            cap = _value_cap(field["type"])
            if not isinstance(value, str) or not value.strip():
                problems.append(Problem(key, "Required"))
            elif len(value) > cap:
                problems.append(Problem(key, f"At most {cap} characters."))
    # A key is echoed back in its property, so a long one is cut (the body's cap bounds them all).
    problems += [
        Problem(f"values.{key[:200]}", "Not a field this signer fills in.")
        for key in sorted(set(values) - typed)
    ]
    if problems:
        unique = {(p.path, p.message): p for p in problems}
        raise ValidationFailed.from_problems(unique.values())


def _check_open(signer: Signer) -> None:
    if signer.packet.status not in OPEN_PACKET or signer.status in (
        *FINISHED_SIGNER,
        Signer.Status.DECLINED,
        Signer.Status.VOIDED,
    ):
        raise Conflict("This signature request is no longer open.")
    if not is_signers_turn(signer):
        raise Conflict("Earlier signers have not finished yet.")


def signer_complete(
    *, signer: Signer, adoption: Adoption, values: dict[str, Any], client: Client
) -> SigningOutcome:
    """The signer finishes: their fields are stamped onto the documents, the next routing group
    is notified, and the packet completes when nobody is left."""
    from esign.stamping import stamp_signer  # the PDF work, kept out of the routing logic

    _check_open(signer)  # a closed request says so before any complaint about the values
    _check_values(signer, adoption, values)
    with transaction.atomic():
        packet = _locked(signer.packet)
        signer = Signer.objects.select_for_update().get(pk=signer.pk)
        signer.packet = packet
        _check_open(signer)
        now = timezone.now()
        signer.values = {k: v for k, v in values.items() if isinstance(v, str | bool)}
        if adoption.drawn_png is not None:
            path, _ = blob_save(
                prefix=f"signatures/{packet.organization_id}",
                data=adoption.drawn_png,
                suffix=".png",
            )
            signer.signature_path = path
        signer.signature_text = adoption.typed[:255]
        signer.initials_text = adoption.initials[:32]
        stamp_signer(signer=signer, adoption=adoption, signed_at=now)
        signer.status = Signer.Status.COMPLETED
        signer.completed_at = now
        signer.save()
        audit(packet=packet, signer=signer, action="signerCompleted", client=client)
        packet.refresh_from_db()
        signer.packet = packet
        events.signer_completed(signer)
        if not _turn_signers(packet):
            packet.status = Packet.Status.COMPLETED
            packet.completed_at = now
            packet.save(update_fields=["status", "completed_at", "updated_at"])
            DocumentGroup.objects.filter(packet=packet).update(status=Packet.Status.COMPLETED)
            audit(packet=packet, action="packetCompleted")
            events.packet_completed(packet)
            hooks.packet_status_changed(packet)
            from esign.sealing import packet_seal_enqueue  # sealing imports these services

            packet_seal_enqueue(packet)  # the documents are sealed once, after the last stamp
            next_signer = None
        else:
            packet.status = Packet.Status.PARTIAL
            packet.save(update_fields=["status", "updated_at"])
            DocumentGroup.objects.filter(packet=packet).update(status=Packet.Status.PARTIAL)
            _notify_next(packet)
            hooks.packet_status_changed(packet)
            next_signer = _turn_signers(packet)[0]
    return SigningOutcome(signer=signer, next_signer=next_signer, packet=packet)


def signer_decline(*, signer: Signer, reason: str, client: Client) -> SigningOutcome:
    with transaction.atomic():
        packet = _locked(signer.packet)
        signer = Signer.objects.select_for_update().get(pk=signer.pk)
        if packet.status not in OPEN_PACKET or signer.status in FINISHED_SIGNER:
            raise Conflict("This signature request is no longer open.")
        signer.status = Signer.Status.DECLINED
        signer.decline_reason = reason.strip()[:2000]
        signer.save(update_fields=["status", "decline_reason", "updated_at"])
        packet.status = Packet.Status.DECLINED
        packet.save(update_fields=["status", "updated_at"])
        DocumentGroup.objects.filter(packet=packet).update(status=Packet.Status.DECLINED)
        audit(
            packet=packet,
            signer=signer,
            action="signerDeclined",
            client=client,
            detail={"reason": signer.decline_reason},
        )
        signer.packet = packet
        events.signer_status_changed(signer)
        hooks.packet_status_changed(packet)
    return SigningOutcome(signer=signer, next_signer=None, packet=packet)


# --- ending -------------------------------------------------------------------------------------


def packet_void(*, identity: ApiIdentity, group_eid: str) -> Packet:
    """voidDocumentGroup: nobody can sign any more; links stop working."""
    try:
        group = DocumentGroup.objects.select_related("packet").get(
            packet__organization=identity.organization, eid=group_eid
        )
    except DocumentGroup.DoesNotExist:
        raise NotFound(f"No document group with eid '{group_eid}'.") from None
    with transaction.atomic():
        packet = _locked(group.packet)
        if packet.status == Packet.Status.COMPLETED:
            raise Conflict("A completed packet cannot be voided.")
        packet.status = Packet.Status.VOIDED
        packet.save(update_fields=["status", "updated_at"])
        DocumentGroup.objects.filter(pk=group.pk).update(status=Packet.Status.VOIDED)
        packet.signers.exclude(status__in=FINISHED_SIGNER).update(status=Signer.Status.VOIDED)
        SignerToken.objects.filter(signer__packet=packet, revoked_at__isnull=True).update(
            revoked_at=timezone.now()
        )
        audit(packet=packet, action="packetVoided")
        hooks.packet_status_changed(packet)
    return packet


def packet_remove(*, identity: ApiIdentity, eid: str) -> bool:
    """removeEtchPacket: a packet not yet completed is deleted with everything it holds."""
    packet = packet_get(organization=identity.organization, eid=eid)
    if packet.status == Packet.Status.COMPLETED:
        raise Conflict("A completed packet is kept; it cannot be removed.")
    packet.delete()
    return True
