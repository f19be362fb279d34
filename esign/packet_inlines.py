"""The rows shown on a packet's admin page (esign.admin.PacketAdmin), read-only: its documents,
their sealed files' versions, its signers and its audit events, each said for people (a sealed
file by its document's title, a signing email by what it was for)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.utils.html import format_html

from accounts.staff_admin import ReadOnlyInline
from esign.models import AuditEvent, PacketDocument, SealedFileVersion, Signer
from esign.packets.audit import AuditAction, action_label


class PacketInline(ReadOnlyInline):
    """A packet's rows on its page, in a table without the columns for changing rows (their
    headers are empty) that scrolls sideways, by the keyboard too, on a phone."""

    template = "admin/readonly_inline.html"


class DocumentInline(PacketInline):
    model = PacketDocument
    fields = [
        "alias_id",
        "title",
        "filename",
        "source",
        "page_count",
        "prepared_hash",
        "sealed_hash",
    ]
    readonly_fields = fields

    @admin.display(description="prepared SHA-256")
    def prepared_hash(self, obj: PacketDocument) -> str:
        return _short_hash(obj.prepared_sha256)

    @admin.display(description="sealed SHA-256")
    def sealed_hash(self, obj: PacketDocument) -> str:
        return _short_hash(obj.sealed_sha256)


def _short_hash(value: str) -> str:
    """The first 16 hex digits (the whole one in the tooltip): the table fits 1366 px."""
    return format_html('<span title="{}">{}…</span>', value, value[:16]) if value else "-"


class SealedVersionInline(PacketInline):
    """Each sealed file's versions (esign.sealing.renewal): when the newest is due for a new archive
    timestamp, and why its last renewal failed (with when it is tried again)."""

    model = SealedFileVersion
    verbose_name = "sealed file version"
    fields = [
        "file",
        "version",
        "hash",
        "created_at",
        "renewal_due_at",
        "renewal_status",
        "renewal_attempts",
        "renewal_retry_at",
        "renewal_error",
    ]
    readonly_fields = fields

    @admin.display(description="SHA-256")
    def hash(self, obj: SealedFileVersion) -> str:
        return _short_hash(obj.sha256)

    @admin.display(description="file")
    def file(self, obj: SealedFileVersion) -> str:
        """Which file, for people: the document's title, not its slot ("document-15")."""
        if obj.slot == SealedFileVersion.AUDIT_TRAIL:
            return "Audit trail"
        if obj.slot == SealedFileVersion.MERGED:
            return "Merged PDF of every document"
        titles = {
            SealedFileVersion.document_slot(document.pk): document.title or document.filename
            for document in obj.packet.documents.all()
        }
        title = titles.get(obj.slot)
        return f"{title} (document)" if title else obj.slot


class SignerInline(PacketInline):
    model = Signer
    fields = [
        "alias_id",
        "name",
        "email",
        "signer_type",
        "routing_order",
        "signs_as",
        "status",
        "completed_at",
        "forwarding",
    ]
    readonly_fields = fields

    @admin.display(description="signs as")
    def signs_as(self, obj: Signer) -> str:
        """A member of a signing group, a witness, or "-" (esign.packets.groups)."""
        if obj.signing_group:
            return f"group {obj.signing_group} ({obj.signing_group_required} to sign)"
        if obj.role == Signer.Role.WITNESS:
            return f"witness of {obj.witness_for}"
        if obj.role in (Signer.Role.APPROVER, Signer.Role.VIEWER):  # esign.packets.roles
            return str(obj.role)
        return "-"

    @admin.display(description="forwarded")
    def forwarding(self, obj: Signer) -> str:
        """Whose turn this signer took over, and who took over theirs (esign.signing.forwarding)."""
        parts = []
        if obj.forwarded_from is not None:
            parts.append(f"in place of {obj.forwarded_from.name}")
        successor = Signer.objects.filter(forwarded_from=obj).first()
        if successor is not None:
            parts.append(f"to {successor.name}")
        return "; ".join(parts) or "-"


def _detail(obj: AuditEvent) -> dict[str, Any]:
    return dict(obj.detail) if isinstance(obj.detail, dict) else {}


def _person(value: Any) -> Any:
    """A forward's ``{name, email}`` (esign.signing.forwarding) as "Name <email>"; anything else as
    is."""
    if isinstance(value, dict) and set(value) == {"name", "email"}:
        return f"{value['name']} <{value['email']}>" if value["email"] else value["name"]
    return value


# A signing email's kind (esign.models.SignerEmailKind) as the audit's "what happened" says it.
EMAIL_SENT = {
    "signing": "Emailed a link to sign",
    "resend": "Emailed a new link to sign",
    "reminder": "Emailed a reminder to sign",
    "copy": "Emailed a link to their copy of the signed documents",
    "forward": "Emailed a link to sign (the request was handed to them)",
}


class AuditInline(PacketInline):
    model = AuditEvent
    fields = ["at", "what", "who", "ip", "browser", "details"]
    readonly_fields = fields

    @admin.display(description="what happened")
    def what(self, obj: AuditEvent) -> str:
        label = action_label(obj.action)
        if obj.action == AuditAction.SIGNER_EMAIL_SENT:
            label = EMAIL_SENT.get(_detail(obj).get("kind"), label)
        return format_html('<span title="{}">{}</span>', obj.action, label)

    @admin.display(description="who")
    def who(self, obj: AuditEvent) -> str:
        """The signer by name (their address in the tooltip); the packet's own events: -."""
        if obj.signer is None:
            return "-"
        return format_html('<span title="{}">{}</span>', obj.signer.email, obj.signer.name)

    @admin.display(description="detail")
    def details(self, obj: AuditEvent) -> str:
        """``key: value`` pairs, not JSON: a reason or an error wraps instead of widening."""
        detail = _detail(obj)
        if obj.action == AuditAction.SIGNER_EMAIL_SENT and detail.get("kind") in EMAIL_SENT:
            detail.pop("kind")  # what happened says it
        return "; ".join(f"{key}: {_person(value)}" for key, value in detail.items()) or "-"

    @admin.display(description="user agent")
    def browser(self, obj: AuditEvent) -> str:
        agent = obj.user_agent or ""
        if len(agent) <= 48:
            return agent or "-"
        return format_html('<span title="{}">{}…</span>', agent, agent[:48])
