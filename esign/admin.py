"""Admin for e-signature packets: read-only views of packets, their signers and audit log.

Staff see only the packets of organizations they belong to; superusers see all. Packets are
created through the API; what happened to them is shown, never edited.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import path, reverse
from django.utils.html import format_html

from core.errors import ServiceError
from esign.audit import action_label
from esign.downloads import document_group_archive
from esign.emails import signer_email_resend
from esign.models import AuditEvent, Packet, PacketDocument, Signer
from esign.routing import turn_signers
from esign.sealing import packet_seal_retry
from esign.services import packet_delete, packet_void_now
from templates_app.admin import organizations_of


class _ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # A completed packet is kept (its sealed documents are someone's evidence).
        if obj is not None and obj.status == Packet.Status.COMPLETED:
            return False
        return super().has_delete_permission(request, obj)

    def delete_model(self, request: HttpRequest, obj: Packet) -> None:
        self.delete_queryset(request, [obj])

    def delete_queryset(self, request: HttpRequest, queryset: Iterable[Packet]) -> None:
        # The service's rules, not a bare DELETE: voided first (the signers' events), refused
        # for a workflow's signing step, the stored files removed after the commit.
        for packet in queryset:
            try:
                packet_delete(packet=packet)
            except ServiceError as error:
                self.message_user(
                    request, f"{packet.name} was not deleted: {error.message}", messages.ERROR
                )


class DocumentInline(_ReadOnlyInline):
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


class SignerInline(_ReadOnlyInline):
    model = Signer
    fields = ["alias_id", "name", "email", "signer_type", "routing_order", "status", "completed_at"]
    readonly_fields = fields


class AuditInline(_ReadOnlyInline):
    model = AuditEvent
    fields = ["at", "what", "signer", "ip", "browser", "detail"]
    readonly_fields = fields

    @admin.display(description="what happened")
    def what(self, obj: AuditEvent) -> str:
        return format_html('<span title="{}">{}</span>', obj.action, action_label(obj.action))

    @admin.display(description="user agent")
    def browser(self, obj: AuditEvent) -> str:
        agent = obj.user_agent or ""
        if len(agent) <= 48:
            return agent or "-"
        return format_html('<span title="{}">{}…</span>', agent, agent[:48])


@admin.register(Packet)
class PacketAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "organization",
        "status",
        "seal_status",
        "is_test",
        "created_at",
        "completed_at",
    ]
    list_filter = ["status", "seal_status", "is_test"]
    search_fields = ["name", "eid"]
    readonly_fields = [
        "eid",
        "organization",
        "name",
        "status",
        "download",
        "is_test",
        "webhook_url",
        "created_at",
        "sent_at",
        "completed_at",
        # Sealing (esign.sealing): pending, sealed, retrying (when) or failed (why).
        "seal_status",
        "sealed_at",
        "seal_attempts",
        "seal_retry_at",
        "seal_error",
        "audit_trail_sha256",
        "merge_pdfs",
        "merged_sha256",
    ]
    fields = readonly_fields
    inlines = [DocumentInline, SignerInline, AuditInline]
    actions = ["seal_again", "resend_signing_emails", "void"]

    @admin.display(description="signed documents")
    def download(self, obj: Packet) -> str:
        if obj.status != Packet.Status.COMPLETED:
            return f"Once every signer has signed (the packet is {obj.status})."
        if obj.seal_status != Packet.SealStatus.SEALED:
            return f"Once sealed (sealing: {obj.seal_status or 'not started'})."
        url = reverse("admin:esign_packet_download", args=[obj.pk])
        return format_html('<a href="{}">Download the sealed documents (zip)</a>', url)

    def get_urls(self) -> list[Any]:
        download = self.admin_site.admin_view(self.download_zip)
        return [
            path("<int:packet_id>/download/", download, name="esign_packet_download"),
            *super().get_urls(),
        ]

    def download_zip(self, request: HttpRequest, packet_id: int) -> HttpResponse:
        packet = self.get_queryset(request).filter(pk=packet_id).first()
        if packet is None or not self.has_view_permission(request, packet):
            raise Http404
        try:
            archive = document_group_archive(
                organization=packet.organization, group_eid=packet.document_group.eid
            )
        except ServiceError as error:
            self.message_user(request, error.message, messages.ERROR)
            return HttpResponse(error.message, status=error.status, content_type="text/plain")
        response = HttpResponse(archive.data, content_type="application/zip")
        response["Content-Disposition"] = f'attachment; filename="{archive.filename}.zip"'
        return response

    @admin.action(description="Void: nobody can sign any more (open packets)")
    def void(self, request: HttpRequest, queryset: QuerySet[Packet]) -> None:
        voided = 0
        for packet in queryset:
            try:
                packet_void_now(packet=packet)
            except ServiceError as error:
                self.message_user(request, f"{packet.name}: {error.message}", messages.WARNING)
            else:
                voided += 1
        self.message_user(request, f"{voided} packet(s) voided.")

    @admin.action(description="Seal again now (completed packets not sealed yet)")
    def seal_again(self, request: HttpRequest, queryset: QuerySet[Packet]) -> None:
        count = sum(packet_seal_retry(packet=packet) for packet in queryset)
        self.message_user(request, f"Sealing enqueued for {count} packet(s).")

    @admin.action(description="Email a new link to the signers whose turn it is")
    def resend_signing_emails(self, request: HttpRequest, queryset: QuerySet[Packet]) -> None:
        sent = 0
        for packet in queryset:
            for signer in turn_signers(packet):
                sent += signer_email_resend(signer=signer, requested_by=f"{request.user} (admin)")
        self.message_user(request, f"A new link is on its way to {sent} signer(s).")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Packet]:
        return (
            super()
            .get_queryset(request)
            .filter(organization__in=organizations_of(request))
            .select_related("organization")
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
