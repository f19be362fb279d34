"""E-signature packets ("etch packets" on the wire): documents, signers, tokens, the audit log.

A packet's documents are prepared (filled, generated or uploaded) when it is created and
stored as PDFs; each signer's adopted signature is stamped onto them as they finish, so the
stored PDF of a document always shows every signature given so far.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from accounts.models import Organization
from core.fields import EidField
from templates_app.models import TemplateVersion


class PacketStatus(models.TextChoices):
    DRAFT = "draft"
    SENT = "sent"
    DELIVERED = "delivered"
    PARTIAL = "partial"
    DECLINED = "declined"
    VOIDED = "voided"
    COMPLETED = "completed"
    # Extension: its expiresAt passed before everyone signed (esign.sending.expiry); the sender may
    # extend it, which re-opens it.
    EXPIRED = "expired"


class PacketSealStatus(models.TextChoices):
    """Where sealing the completed packet's documents stands (esign.sealing.seal)."""

    PENDING = "pending"  # completed; the seal task is queued or running
    SEALED = "sealed"  # every document and the audit trail are sealed: downloadable
    RETRYING = "retrying"  # an attempt failed (no TSA, HSM away): retried at seal_retry_at
    FAILED = "failed"  # every retry failed; an operator retries from the admin


class RenewalStatus(models.TextChoices):
    """Where the archive timestamp renewal of a sealed file's version stands
    (esign.sealing.renewal; blank: it has no timestamp to renew, a PAdES-B-B seal)."""

    PENDING = "pending"  # due at renewal_due_at (or retried at renewal_retry_at)
    RENEWED = "renewed"  # the next version carries the file on
    FAILED = "failed"  # too late: its last timestamp can no longer be proven


class SignerStatus(models.TextChoices):
    CREATED = "created"
    SENT = "sent"
    VIEWED = "viewed"
    DELIVERED = "delivered"
    SKIPPED = "skipped"
    DECLINED = "declined"
    VOIDED = "voided"
    COMPLETED = "completed"
    # Extension: it was their turn when the packet expired (re-opened if the sender extends it).
    EXPIRED = "expired"
    # Extension: they handed their turn to someone else, or the sender reassigned it
    # (esign.signing.forwarding): a new signer has their fields and routing order; their links
    # ended.
    FORWARDED = "forwarded"


class Language(models.TextChoices):
    """The languages a packet or a signer may be given (createEtchPacket's ``language``, an
    extension): the signer's pages and emails, and the audit trail (the packet's). Blank: the
    browser's Accept-Language for pages, English for emails and the audit trail."""

    ENGLISH = "en", "English"
    SPANISH = "es", "Español"
    FRENCH = "fr", "Français"
    GERMAN = "de", "Deutsch"
    PORTUGUESE_BRAZIL = "pt-br", "Português (Brasil)"
    ITALIAN = "it", "Italiano"
    DUTCH = "nl", "Nederlands"
    POLISH = "pl", "Polski"
    TURKISH = "tr", "Türkçe"
    SWEDISH = "sv", "Svenska"
    UKRAINIAN = "uk", "Українська"
    CHINESE_SIMPLIFIED = "zh-hans", "简体中文"
    JAPANESE = "ja", "日本語"
    KOREAN = "ko", "한국어"
    ARABIC = "ar", "العربية"
    HEBREW = "he", "עברית"


class SignerEmailKind(models.TextChoices):
    SIGNING = "signing"  # their turn started: a link to sign
    RESEND = "resend"  # asked for again: by the sender (API, admin) or the signer (expired link)
    REMINDER = "reminder"  # the packet's reminders: still waiting for them
    COPY = "copy"  # the packet is sealed: a link to their copy of the sealed documents
    FORWARD = "forward"  # their turn came by a forward or a reassignment (esign.signing.forwarding)


class SignerEmailStatus(models.TextChoices):
    PENDING = "pending"
    SENT = "sent"
    FAILED = "failed"  # every retry failed
    CANCELLED = "cancelled"  # no longer due: the signer finished or the packet ended


class Packet(models.Model):
    SealStatus = PacketSealStatus
    Status = PacketStatus

    eid = EidField()
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="packets")
    name = models.CharField(max_length=255)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)
    is_test = models.BooleanField(default=False)
    allow_updates = models.BooleanField(default=False)
    merge_pdfs = models.BooleanField(default=False)
    webhook_url = models.URLField(max_length=2000, blank=True)
    email_subject = models.CharField(max_length=255, blank=True)
    email_body = models.TextField(blank=True)
    reply_to_name = models.CharField(max_length=255, blank=True)
    reply_to_email = models.EmailField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    # Email signers who have not signed are reminded every this many days (null: never).
    reminder_days = models.PositiveSmallIntegerField(null=True, blank=True)
    language = models.CharField(max_length=8, choices=Language.choices, blank=True, default="")
    # Extension (createEtchPacket's expiresAt / expiresInDays, extendEtchPacket): past this,
    # nobody may sign and the packet is expired (esign.sending.expiry). Null: it never expires.
    expires_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # Extension (createEtchPacket's allowForward): its email signers may hand their turn to
    # someone else from the signing page (esign.signing.forwarding); each signer's own flag decides.
    allow_forward = models.BooleanField(default=False)
    # Extension (createEtchPacket's verificationStamp): the sealed documents carry a QR code and
    # a short link to /verify on each page (esign.engine.verification_mark).
    verification_stamp = models.BooleanField(default=False)
    # Sealing, once completed (blank before). The audit trail PDF is stored like the documents.
    seal_status = models.CharField(
        max_length=16, choices=SealStatus.choices, blank=True, default=""
    )
    seal_attempts = models.PositiveIntegerField(default=0)
    seal_error = models.TextField(blank=True)
    seal_retry_at = models.DateTimeField(null=True, blank=True)
    # Set while an attempt seals the packet (esign.lifecycle.SEALS's lease, SEAL_LEASE_SECONDS):
    # past it, the attempt was lost with its worker and the sweep enqueues the seal again.
    seal_leased_until = models.DateTimeField(null=True, blank=True)
    sealed_at = models.DateTimeField(null=True, blank=True)
    # What integrators are told (GraphQL, webhooks, the download's 503): the PAdES level the
    # sealed files reach, and the last failed attempt's error code and message (seal_error adds
    # the operators' detail).
    seal_level = models.CharField(max_length=16, blank=True)
    seal_error_code = models.CharField(max_length=64, blank=True)
    seal_error_message = models.CharField(max_length=500, blank=True)
    audit_trail_path = models.CharField(max_length=300, blank=True)
    audit_trail_sha256 = models.CharField(max_length=64, blank=True, db_index=True)
    # With merge_pdfs, every document's pages in one sealed PDF: what the download holds.
    merged_path = models.CharField(max_length=300, blank=True)
    merged_sha256 = models.CharField(max_length=64, blank=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=PacketStatus.values), name="packet_status_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(seal_status__in=["", *PacketSealStatus.values]),
                name="packet_seal_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class DocumentGroup(models.Model):
    """The packet's documents as one downloadable group (the wire's ``documentGroup``)."""

    eid = EidField()
    packet = models.OneToOneField(Packet, on_delete=models.CASCADE, related_name="document_group")
    status = models.CharField(max_length=16, choices=Packet.Status.choices, default="draft")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"documents of {self.packet}"


class PacketDocument(models.Model):
    """One file of a packet: where it came from, its prepared PDF and its signer fields."""

    class Source(models.TextChoices):
        TEMPLATE = "template"
        UPLOAD = "upload"
        HTML = "html"
        MARKDOWN = "markdown"

    packet = models.ForeignKey(Packet, on_delete=models.CASCADE, related_name="documents")
    alias_id = models.CharField(max_length=200)
    position = models.PositiveIntegerField()
    title = models.CharField(max_length=255, blank=True)
    filename = models.CharField(max_length=255)
    source = models.CharField(max_length=16, choices=Source.choices)
    # The template version used, pinned: later edits of the template change nothing here.
    template_version = models.ForeignKey(
        TemplateVersion, null=True, blank=True, on_delete=models.PROTECT
    )
    # The PDF as prepared at creation (filled or generated), and as it stands now (with the
    # signatures stamped so far). Both content-addressed in blob storage.
    prepared_path = models.CharField(max_length=300)
    prepared_sha256 = models.CharField(max_length=64, db_index=True)  # /verify looks them up
    current_path = models.CharField(max_length=300)
    current_sha256 = models.CharField(max_length=64, db_index=True)  # /verify looks them up
    # The current PDF with the service's seal (a PAdES signature), once the packet is sealed.
    sealed_path = models.CharField(max_length=300, blank=True)
    sealed_sha256 = models.CharField(max_length=64, blank=True, db_index=True)
    # [{id, type, page, rect: {x, y, width, height}}] in the PDF's user space, like templates.
    fields = models.JSONField(default=list)
    page_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["packet", "position"]
        constraints = [
            models.UniqueConstraint(fields=["packet", "alias_id"], name="unique_document_alias")
        ]

    def __str__(self) -> str:
        return self.title or self.filename


class SealedFileVersion(models.Model):
    """One version of a sealed file of a packet (a document, the merged PDF, the audit trail).

    Version 1 is the file as sealed (its path and hash are also on the document or the packet,
    where /verify and the audit trail read them); each archive timestamp renewal
    (esign.sealing.renewal) stores the file again, grown by an incremental update, as the next
    version: nothing is overwritten, and downloads serve the newest. Only the newest version of
    a file has ``renewal_due_at``: when its last timestamp must be renewed (null for a PAdES-B-B
    seal, which has none), so the sweep finds due files without reading a PDF.

    The renewal is an outbox row (core.outbox; ``esign.sealing.renewal.RENEWALS`` names its
    fields): its status, failed attempts, retry time, lease (the sweep's, while the task it
    enqueued waits or runs) and last error.
    """

    RenewalStatus = RenewalStatus
    AUDIT_TRAIL = "audit-trail"
    MERGED = "merged"

    packet = models.ForeignKey(Packet, on_delete=models.CASCADE, related_name="sealed_versions")
    # Which file: "document-<PacketDocument id>", "merged" or "audit-trail".
    slot = models.CharField(max_length=64)
    version = models.PositiveIntegerField()
    path = models.CharField(max_length=300)
    sha256 = models.CharField(max_length=64, db_index=True)
    created_at = models.DateTimeField(default=timezone.now)
    renewal_due_at = models.DateTimeField(null=True, blank=True, db_index=True)
    renewal_status = models.CharField(
        max_length=16, choices=RenewalStatus.choices, blank=True, default=""
    )
    renewal_attempts = models.PositiveIntegerField(default=0)  # failed attempts
    # A failed renewal: why, and when it is tried again (the sweep skips it until then).
    renewal_error = models.CharField(max_length=2000, blank=True)
    renewal_retry_at = models.DateTimeField(null=True, blank=True)
    # Set by the sweep that enqueued its renewal, until the task has had its time; a lease that
    # ran out was lost with its worker, and the sweep enqueues the renewal again.
    renewal_leased_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["packet", "slot", "version"]
        constraints = [
            models.UniqueConstraint(
                fields=["packet", "slot", "version"], name="unique_sealed_file_version"
            ),
            models.CheckConstraint(
                condition=models.Q(renewal_status__in=["", *RenewalStatus.values]),
                name="sealed_file_renewal_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.slot} v{self.version} of packet {self.packet_id}"

    @staticmethod
    def document_slot(document_id: int) -> str:
        return f"document-{document_id}"


class Signer(models.Model):
    Status = SignerStatus

    class Kind(models.TextChoices):
        EMAIL = "email"
        EMBEDDED = "embedded"

    class Mode(models.TextChoices):
        DRAW = "draw"
        TEXT = "text"

    class Role(models.TextChoices):
        SIGNER = "signer"
        WITNESS = "witness"
        # Extensions (esign.packets.roles): an approver approves or rejects, signing no field; a
        # viewer reads at their routing order (or gets the documents once completed), never
        # waited for.
        APPROVER = "approver"
        VIEWER = "viewer"

    eid = EidField()
    packet = models.ForeignKey(Packet, on_delete=models.CASCADE, related_name="signers")
    alias_id = models.CharField(max_length=200)
    name = models.CharField(max_length=255)
    email = models.EmailField(blank=True)
    signer_type = models.CharField(max_length=16, choices=Kind.choices, default=Kind.EMAIL)
    routing_order = models.PositiveIntegerField(default=1)
    redirect_url = models.URLField(max_length=2000, blank=True)
    signature_mode = models.CharField(max_length=8, choices=Mode.choices, default=Mode.DRAW)
    accept_each_field = models.BooleanField(default=False)
    enable_emails = models.BooleanField(default=True)
    # Overrides the packet's language for this signer's pages and emails (blank: the packet's).
    language = models.CharField(max_length=8, choices=Language.choices, blank=True, default="")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.CREATED)
    # [{fileId, fieldId}]: the document fields this signer fills.
    fields = models.JSONField(default=list)
    # {"<fileId>/<fieldId>": value} for the text types the signer fills in.
    values = models.JSONField(default=dict, blank=True)
    # The adopted signature: a drawn PNG in blob storage, or typed text.
    signature_path = models.CharField(max_length=300, blank=True)
    signature_text = models.CharField(max_length=255, blank=True)
    initials_text = models.CharField(max_length=32, blank=True)
    decline_reason = models.TextField(blank=True)
    # Extension: a one-time code before the documents (esign.links.codes): "email", "sms" (to
    # verify_phone, E.164) or "integrator" (an embedded signer the integrator verified); "": none.
    verify_method = models.CharField(max_length=16, blank=True, default="")
    verify_phone = models.CharField(max_length=20, blank=True, default="")
    # Extension: a signing group (esign.packets.groups): the members of one group (same
    # signing_group, routing order and fields) sign one step; it is done once
    # signing_group_required of them signed, and the others are skipped. "" and 0: no group.
    signing_group = models.CharField(max_length=200, blank=True, default="")
    signing_group_required = models.PositiveSmallIntegerField(default=0)
    # Extension: "witness" signs after the signer whose alias_id is witness_for, on the pages
    # of that signer's fields (esign.packets.groups); "signer" otherwise.
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.SIGNER)
    witness_for = models.CharField(max_length=200, blank=True, default="")
    # Extension: the files this signer is asked to attach (esign.attachments): [{id, label,
    # required, acceptedTypes, maxBytes}], from the signer JSON's fields of type "attachment".
    attachment_fields = models.JSONField(default=list, blank=True)
    # Extension (esign.signing.forwarding): whether this signer may forward their turn from the
    # signing page (the packet's allowForward, or the signer JSON's own), and the signer whose
    # turn this one took over (their ``forwarded_to``), by the signer's forward or the sender's
    # reassign.
    allow_forward = models.BooleanField(default=False)
    # Extension (allowUpdates, esign.packets.updates): this signer may change, on the signing
    # page, the values the sender filled in their fields (the packet's allowUpdates, or theirs).
    allow_updates = models.BooleanField(default=False)
    forwarded_from = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="forwarded_to"
    )
    completed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["packet", "routing_order", "id"]
        constraints = [
            models.UniqueConstraint(fields=["packet", "alias_id"], name="unique_signer_alias"),
            models.CheckConstraint(
                condition=models.Q(status__in=SignerStatus.values), name="signer_status_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(role__in=["signer", "witness", "approver", "viewer"]),
                name="signer_role_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} <{self.email}>"


class SignerAttachment(models.Model):
    """A file a signer attached for one of their attachment fields (esign.attachments): stored
    with the packet's documents (by its SHA-256), listed in the audit trail and the zip. One per
    field; attaching again replaces it, until the signer finishes."""

    signer = models.ForeignKey(Signer, on_delete=models.CASCADE, related_name="attachments")
    field_id = models.CharField(max_length=200)
    filename = models.CharField(max_length=255)
    content_type = models.CharField(max_length=64)  # of what the bytes are, not what was claimed
    size = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64, db_index=True)
    path = models.CharField(max_length=300)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["signer", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["signer", "field_id"], name="unique_signer_attachment_field"
            )
        ]

    def __str__(self) -> str:
        return f"{self.filename} ({self.field_id}) of signer {self.signer_id}"


class SignerEmail(models.Model):
    """An email to a signer, written in the transaction that decides it is due (the outbox) and
    sent by a task (esign.links.emails): a send that fails is retried, one that is lost is found
    again by the worker's sweep, and each send is in the audit trail."""

    Status = SignerEmailStatus

    Kind = SignerEmailKind
    signer = models.ForeignKey(Signer, on_delete=models.CASCADE, related_name="emails")
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.SIGNING)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    # When the next attempt is due (now when queued, the retry's time after a failure).
    due_at = models.DateTimeField(default=timezone.now)
    # Set while an attempt is sending; an attempt whose lease ran out was lost (a killed worker).
    claimed_until = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["status", "due_at"])]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=SignerEmailStatus.values),
                name="signer_email_status_valid",
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} email to signer {self.signer_id}: {self.status}"


class AuditEvent(models.Model):
    """An append-only record of everything that happened to a packet, for the audit trail."""

    packet = models.ForeignKey(Packet, on_delete=models.CASCADE, related_name="audit_events")
    signer = models.ForeignKey(
        Signer, null=True, blank=True, on_delete=models.CASCADE, related_name="audit_events"
    )
    action = models.CharField(max_length=64)
    at = models.DateTimeField(auto_now_add=True)
    ip = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.CharField(max_length=500, blank=True)
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["packet", "at", "id"]

    def __str__(self) -> str:
        return f"{self.action} at {self.at:%Y-%m-%d %H:%M:%S}"

    def save(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        if self.pk is not None:
            raise ValueError("audit events are append-only")
        super().save(*args, **kwargs)


# Bulk sends live in a module of their own; imported here so that Django registers them.
from esign.bulk_models import BulkBatch, BulkRow  # noqa: E402, F401

# Signing links' secrets and one-time codes (esign.links): a module of their own.
from esign.link_models import SignerCode, SignerToken  # noqa: E402, F401

# Signers' own PAdES signatures (signatureLevel, issue 51): their level and certificates.
from esign.signature_models import SignerCertificate, SignerLevel  # noqa: E402, F401
