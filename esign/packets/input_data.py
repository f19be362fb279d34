"""createEtchPacket's arguments once read (esign.packets.inputs): plain dataclasses, the packet
(PacketInput) with its files (FileInput, their SignFields) and signers (SignerInput); and, once
its documents are made and stored (StoredFile), the rows that keep what was asked of it
(:func:`packet_rows`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from core.engine.template_spec import Rect
from core.uploads import UploadedBlob
from esign.models import Packet, PacketDocument, Signer
from esign.packets.attachment_fields import AttachmentField
from esign.packets.file_tags import TaggedField
from templates_app.models import TemplateVersion


@dataclass(frozen=True)
class SignField:
    id: str
    type: str
    page: int
    rect: Rect
    # A template field's alias (its Field Alias, which cast shows): signers may name it so too.
    alias: str = ""
    # The sender's value of a typed field (esign.packets.updates); None: the signer types it.
    value: Any = None

    def to_json(self) -> dict[str, Any]:
        out = {"id": self.id, "type": self.type, "page": self.page, "rect": self.rect.to_json()}
        out |= {"value": self.value} if self.value is not None else {}
        return out | ({"alias": self.alias} if self.alias else {})


@dataclass(frozen=True)
class FileInput:
    """One file of the packet; exactly one of the sources is set."""

    id: str
    title: str
    filename: str
    fields: tuple[SignField, ...]
    cast_eid: str | None = None
    upload: UploadedBlob | None = None
    html: str | None = None
    css: str = ""
    markdown_blocks: tuple[Mapping[str, Any], ...] = ()
    font_size: int | None = None
    text_color: str | None = None
    tagged: tuple[TaggedField, ...] = ()  # its fields placed by text tags (esign.packets.file_tags)

    @property
    def source(self) -> str:
        if self.cast_eid is not None:
            return "template"
        if self.upload is not None:
            return "upload"
        return "html" if self.html is not None else "markdown"


@dataclass(frozen=True)
class SignerInput:
    alias_id: str
    name: str
    email: str
    signer_type: str
    routing_order: int
    redirect_url: str
    signature_mode: str
    accept_each_field: bool
    enable_emails: bool
    fields: tuple[tuple[str, str], ...]  # (file id, field id)
    language: str = ""  # "" (the packet's), or one of shipped_languages()
    # signatureLevel (an extension, esign.packets.signature_levels): simple, advanced.
    signature_level: str = "simple"
    # verify: a code before signing ("email", "sms" with verify_phone in E.164), or "integrator"
    # (an embedded signer the integrator verified itself); "" none (esign.links.codes).
    verify_method: str = ""
    verify_phone: str = ""
    # group: {id, required} (esign.packets.groups): "" and 0 without one.
    signing_group: str = ""
    signing_group_required: int = 0
    # role "witness" with witnessFor (another signer's id), or "signer".
    role: str = "signer"
    witness_for: str = ""
    attachment_fields: tuple[AttachmentField, ...] = ()  # files to attach (an extension)
    # allowForward (an extension, esign.signing.forwarding): None follows the packet's.
    allow_forward: bool | None = None
    # allowUpdates of the signer (esign.packets.updates): None follows the packet's.
    allow_updates: bool | None = None
    # initialsOnEveryPage / initialsPosition (an extension, esign.packets.initials): the file ids
    # (or "*") whose every page gets an initials field of theirs, and where.
    initials_files: tuple[str, ...] = ()
    initials_position: Rect | None = None


@dataclass(frozen=True)
class PacketInput:
    name: str
    files: tuple[FileInput, ...]
    signers: tuple[SignerInput, ...]
    payloads: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    is_draft: bool = False
    is_test: bool = False
    allow_updates: bool = False
    merge_pdfs: bool = False
    webhook_url: str = ""
    email_subject: str = ""
    email_body: str = ""
    reply_to_name: str = ""
    reply_to_email: str = ""
    reminder_days: int | None = None
    language: str = ""  # "" (the browser's, English for emails), or one of shipped_languages()
    expires_at: datetime | None = None  # expiresAt / expiresInDays (esign.sending.expiry)
    allow_forward: bool = False  # allowForward (esign.signing.forwarding)
    verification_stamp: bool = False  # verificationStamp (esign.engine.verification_mark)

    def signer_may_forward(self, signer: SignerInput) -> bool:
        """Whether ``signer`` may forward their turn from the signing page: their own
        ``allowForward``, else the packet's; only an email signer ever may."""
        wanted = self.allow_forward if signer.allow_forward is None else signer.allow_forward
        return wanted and signer.signer_type == "email"

    def signer_may_update(self, signer: SignerInput) -> bool:
        """Whether ``signer`` may change the values the sender filled in their fields
        (esign.packets.updates): their own ``allowUpdates``, else the packet's."""
        return self.allow_updates if signer.allow_updates is None else signer.allow_updates


@dataclass(frozen=True)
class StoredFile:
    """A file's document made and stored, before its packet is written: the file as checked
    (esign.packets.packet_checks.files_checked), the template version it was filled from, and
    the stored PDFs (the prepared one, and the current one, which a test packet's mark makes
    differ)."""

    file: FileInput
    template_version: TemplateVersion | None
    pages: int
    prepared_path: str
    prepared_sha256: str
    current_path: str
    current_sha256: str


def packet_rows(
    packet: Packet, packet_input: PacketInput, documents: Sequence[StoredFile]
) -> tuple[list[PacketDocument], list[Signer]]:
    """The rows that keep what was asked of ``packet`` (not saved): its documents as stored
    (``documents``, in order) and its signers."""
    document_rows = [
        PacketDocument(
            packet=packet,
            alias_id=stored.file.id,
            position=position,
            title=stored.file.title[:255],
            filename=stored.file.filename[:255],
            source=stored.file.source,
            template_version=stored.template_version,
            prepared_path=stored.prepared_path,
            prepared_sha256=stored.prepared_sha256,
            current_path=stored.current_path,
            current_sha256=stored.current_sha256,
            fields=[field.to_json() for field in stored.file.fields],
            page_count=stored.pages,
        )
        for position, stored in enumerate(documents)
    ]
    signer_rows = [
        Signer(
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
            allow_forward=packet_input.signer_may_forward(signer),
            allow_updates=packet_input.signer_may_update(signer),
            fields=[{"fileId": f, "fieldId": field_id} for f, field_id in signer.fields],
        )
        for signer in packet_input.signers
    ]
    return document_rows, signer_rows
