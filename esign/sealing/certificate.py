"""The certificate of completion of a sealed packet: what it shows, read from the packet's rows
and stored files, and drawn as a PDF (esign.engine.audit_trail does the drawing)."""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import UTC, datetime

from django.core.files.storage import default_storage
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from core.engine.fonts.shaping import isolate
from core.resources import font_library
from esign.engine.audit_trail import (
    TIME_FORMAT,
    AuditTrail,
    TrailAttachment,
    TrailDocument,
    TrailEvent,
    TrailSigner,
    draw_audit_trail,
)
from esign.engine.seal_credentials import SealCredentials
from esign.models import AuditEvent, Packet
from esign.packets.attachment_fields import packet_attachments, readable_size
from esign.packets.audit import action_label, trail_labels, trail_language
from esign.packets.documents import HANDWRITING_FONT
from esign.packets.roles import role_label
from esign.packets.signature_levels import signer_level
from esign.sealing.signer_text import level_label, signer_certified_text

logger = logging.getLogger(__name__)


def audit_trail_pdf(
    packet: Packet, *, credentials: SealCredentials, before_seal: bool = False
) -> bytes:
    """The packet's certificate of completion, unsealed, naming ``credentials`` as its sealer,
    in the packet's language (esign.packets.languages; English without one). ``before_seal``: the
    one a sealed document carries inside it (SEAL_EMBED_AUDIT_TRAIL), drawn before the documents are
    sealed, so without their sealed hashes (shown as "-")."""
    with trail_language(packet):
        trail = replace(audit_trail_of(packet, credentials=credentials), labels=trail_labels())
    if before_seal:
        trail = replace(
            trail, documents=tuple(replace(d, sealed_sha256="") for d in trail.documents)
        )
    # Each typed signature is drawn in the face of its letters beside Kristi, as it was stamped
    # (esign.engine.handwriting: Noto Naskh Arabic for Arabic, the plain font for a script no
    # handwriting face covers).
    return draw_audit_trail(trail, fonts=font_library(), handwriting_font=HANDWRITING_FONT)


def _when(value: datetime | None) -> str:
    return value.astimezone(UTC).strftime(TIME_FORMAT) if value else ""


def _event(event: AuditEvent) -> TrailEvent:
    detail = event.detail or {}
    text = ""
    # In the trail's language (audit_trail_pdf activates it); the error of a failed attempt is
    # the service's own text, as logged.
    if event.action in ("signerDeclined", "signerRejected") and detail.get("reason"):
        text = gettext("reason: {reason}").format(reason=isolate(detail["reason"]))
    elif event.action == "packetCreated" and "documents" in detail:
        count = int(detail["documents"])
        text = ngettext("{count} document", "{count} documents", count).format(count=count)
        if detail.get("bulkSend"):  # made by a bulk send (esign.bulk.sends): which one, which row
            text += "; " + gettext("bulk send {batch}, row {row}").format(
                batch=isolate(str(detail["bulkSend"])), row=detail.get("row")
            )
    elif event.action in ("packetExtended", "packetExpired") and detail.get("expiresAt"):
        expires = datetime.fromisoformat(detail["expiresAt"])
        text = gettext("expires at {time}").format(time=_when(expires))
    elif event.action in ("signerCodeSent", "signerVerified") and detail.get("to"):
        method = gettext("SMS") if detail.get("method") == "sms" else gettext("email")
        text = gettext("by {method} to {to}").format(method=method, to=isolate(detail["to"]))
    elif event.action == "signingUrlCreated" and detail.get("verifiedBy") == "integrator":
        text = gettext("identity verified by the integrator")
    elif event.action == "signerCompleted" and detail.get("group"):
        text = gettext("for the group “{group}”").format(group=isolate(detail["group"]))
    elif event.action == "signerCompleted" and detail.get("witnessFor"):
        text = gettext("witnessed the signature of {name}").format(
            name=isolate(detail.get("witnessed") or detail["witnessFor"])
        )
    elif event.action == "signerCertified" and detail.get("certificate"):
        text = signer_certified_text(detail)
    elif event.action == "signerSkipped" and detail.get("group"):
        text = gettext("the group “{group}” was signed by {names}").format(
            group=isolate(detail["group"]),
            names=", ".join(isolate(name) for name in detail.get("signedBy") or ()),
        )
    elif event.action == "signerUpdatedValue":
        text = gettext("“{field}”: {before} → {after}").format(
            field=isolate(str(detail.get("fieldId", ""))),
            before=isolate(str(detail.get("before", ""))),
            after=isolate(str(detail.get("after", ""))),
        )
    elif event.action in ("signerAttachmentAdded", "signerAttachmentRemoved"):
        text = str(detail.get("filename", ""))
    elif event.action in ("signerForwarded", "signerAssigned"):
        text = _forward_text(event.action, detail)
    elif event.action == "packetSealFailed":
        text = gettext("attempt {attempt}: {error}").format(
            attempt=detail.get("attempt"), error=isolate(str(detail.get("error") or ""))
        )
    return TrailEvent(
        at=_when(event.at),
        action=action_label(event.action),
        ip=event.ip or "",
        user_agent=event.user_agent,
        detail=text,
    )


def _forward_text(action: str, detail: dict) -> str:
    """Who a turn went to (or came from), and by whom: the signer themselves, or the sender
    with how they asked (an API key, an admin user)."""
    other = detail.get("to" if action == "signerForwarded" else "from") or {}
    person = other.get("name", "")
    if other.get("email"):
        person = f"{person} <{other['email']}>"
    if detail.get("by") == "signer":
        who = gettext("by the signer")
    else:
        who = gettext("by the sender ({requested_by})").format(
            requested_by=isolate(detail.get("requestedBy", ""))
        )
    if action == "signerForwarded":
        return gettext("to {person}, {who}").format(person=isolate(person), who=who)
    return gettext("in place of {person}, {who}").format(person=isolate(person), who=who)


def audit_trail_of(packet: Packet, *, credentials: SealCredentials) -> AuditTrail:
    """What the certificate of completion shows: read from the packet's rows and stored files."""
    events = list(packet.audit_events.all())
    documents = [  # read again: the sealed hashes were just stored
        TrailDocument(
            title=document.title,
            filename=document.filename,
            pages=document.page_count,
            prepared_sha256=document.prepared_sha256,
            sealed_sha256=document.sealed_sha256,
        )
        for document in packet.documents.all()
    ]
    signers = []
    for signer in packet.signers.all():
        drawn = None
        if signer.signature_path:
            try:
                with default_storage.open(signer.signature_path, "rb") as file:
                    drawn = file.read()
            except OSError:
                logger.warning("seal: the drawn signature of signer %s is missing", signer.eid)
        signers.append(
            TrailSigner(
                name=signer.name,
                email=signer.email,
                routing_order=signer.routing_order,
                status=signer.status,
                completed_at=_when(signer.completed_at),
                signature_png=drawn,
                signature_text=signer.signature_text if drawn is None else "",
                events=tuple(_event(e) for e in events if e.signer_id == signer.pk),
                role=role_label(signer.role),
                signature_level=level_label(signer_level(signer)),
            )
        )
    attachments = tuple(
        TrailAttachment(
            label=field.label,
            filename=attached.filename,
            size=readable_size(attached.size),
            sha256=attached.sha256,
            signer=signer.name,
            attached_at=_when(attached.created_at),
        )
        for signer, field, attached in packet_attachments(packet)
    )
    return AuditTrail(
        attachments=attachments,
        packet_name=packet.name,
        packet_eid=packet.eid,
        organization=packet.organization.name,
        status=packet.status,
        is_test=packet.is_test,
        created_at=_when(packet.created_at),
        completed_at=_when(packet.completed_at),
        generated_at=timezone.now(),
        sealed_by=credentials.subject,
        documents=tuple(documents),
        signers=tuple(signers),
        packet_events=tuple(_event(e) for e in events if e.signer_id is None),
    )
