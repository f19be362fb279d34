"""Admin for e-signature packets: read-only views of packets, their signers and audit log.

Scoped like every admin of an organization's rows (``accounts.staff_admin``): staff see the
packets of organizations they belong to (superusers all) and download their sealed documents;
only an owner or admin of the packet's organization voids it, emails new links, seals it again
or deletes it. Packets are created through the API; what happened to them is shown, never
edited. A packet's page offers what the user can do to it as buttons (download the sealed
documents, void, email the signers whose turn it is a new link), the same as the list's actions.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.utils.html import format_html
from django.views.decorators.http import require_POST

from accounts.staff_admin import OrganizationOwnedAdmin, manages, may_manage
from core.admin_context import RowContextAdmin
from core.admin_pages import own_pages
from core.blobs import blob_read
from core.engine.archive import safe_filename
from core.errors import RateLimited, ServiceError, ValidationFailed
from core.responses import file_response
from esign.links.emails import gets_emails, signer_email_resend
from esign.models import (
    Packet,
    Signer,
    SignerAttachment,
)
from esign.packet_inlines import AuditInline, DocumentInline, SealedVersionInline, SignerInline
from esign.packets.attachment_fields import packet_attachments, readable_size
from esign.packets.lifecycle import OPEN_PACKET
from esign.sealing.downloads import document_group_archive
from esign.sealing.seal import packet_seal_retry
from esign.sending.packets import packet_delete, packet_void_now
from esign.signing.forwarding import reassignable_signers, signer_reassign_now
from esign.signing.turns import turn_signers


class ReassignForm(forms.Form):
    """Whose turn goes to whom (esign.signing.forwarding); the service checks the name and
    address."""

    signer = forms.ChoiceField(label="Signer")
    name = forms.CharField(label="New signer's name", max_length=255)
    email = forms.CharField(
        label="New signer's email", max_length=254, required=False, widget=forms.EmailInput
    )

    def __init__(self, *args: Any, signers: list[Signer], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["signer"].choices = [
            (str(s.pk), f"{s.name} <{s.email}> ({s.status})" if s.email else s.name)
            for s in signers
        ]


@admin.register(Packet)
class PacketAdmin(RowContextAdmin, OrganizationOwnedAdmin):
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
        "attached_files",
        "is_test",
        "webhook_url",
        "created_at",
        "sent_at",
        "completed_at",
        # Sealing (esign.sealing.seal): pending, sealed, retrying (when) or failed (why).
        "seal_status",
        "sealed_at",
        "seal_failures",
        "seal_retry_at",
        "seal_error",
        "audit_trail_sha256",
        "merge_pdfs",
        "merged_sha256",
    ]
    fields = readonly_fields
    inlines = [DocumentInline, SealedVersionInline, SignerInline, AuditInline]
    actions = ["seal_again", "resend_signing_emails", "void"]
    change_form_template = "admin/esign/packet/change_form.html"

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        """Sealing's counters and times once they mean something: no "0 failed attempts" or
        empty retry time on a sealed packet, no merged file's hash when nothing is merged."""
        fields = list(super().get_fields(request, obj))
        if obj is None:
            return fields
        empty = {
            "sealed_at": obj.sealed_at is None,
            "seal_failures": not obj.seal_attempts,
            "seal_retry_at": obj.seal_retry_at is None,
            "seal_error": not obj.seal_error,
            "audit_trail_sha256": not obj.audit_trail_sha256,
            "merged_sha256": not obj.merge_pdfs,
        }
        return [name for name in fields if not empty.get(name, False)]

    @admin.display(description="failed sealing attempts")
    def seal_failures(self, obj: Packet) -> int:
        return obj.seal_attempts

    @admin.display(description="signed documents")
    def download(self, obj: Packet) -> str:
        if obj.status != Packet.Status.COMPLETED:
            return f"Once every signer has signed (the packet is {obj.status})."
        if obj.seal_status != Packet.SealStatus.SEALED:
            return f"Once sealed (sealing: {obj.seal_status or 'not started'})."
        url = reverse("admin:esign_packet_download", args=[obj.pk])
        return format_html('<a href="{}">Download the sealed documents (zip)</a>', url)

    @admin.display(description="attached files")
    def attached_files(self, obj: Packet) -> str:
        """The files signers attached (esign.signing.attachments): each a download, its SHA-256 in
        full (what the audit trail lists)."""
        rows = [
            format_html(
                '<li><a href="{}">{}</a> ({}, {}): {} <code>{}</code></li>',
                reverse("admin:esign_packet_attachment", args=[obj.pk, attached.pk]),
                attached.filename,
                readable_size(attached.size),
                signer.name,
                field.label,
                attached.sha256,
            )
            for signer, field, attached in packet_attachments(obj)
        ]
        if not rows:
            return "-"
        return format_html("<ul>{}</ul>", format_html("".join(["{}"] * len(rows)), *rows))

    def get_urls(self) -> list[Any]:
        pages = [
            (
                "<int:packet_id>/attachments/<int:attachment_id>/",
                self.attachment_file,
                "attachment",
            ),
            ("<int:packet_id>/download/", self.download_zip, "download"),
            ("<int:packet_id>/void/", self.void_one, "void"),
            ("<int:packet_id>/resend/", self.resend_one, "resend"),
            ("<int:packet_id>/reassign/", self.reassign_one, "reassign"),
        ]
        return [
            *own_pages(self, "esign_packet", pages),
            *super().get_urls(),
        ]

    def _packet(self, request: HttpRequest, packet_id: int, *, act: bool = False) -> Packet:
        packet: Packet = self.owned_row(request, packet_id, act=act)
        return packet

    def row_context(self, request: HttpRequest, packet: Packet) -> dict[str, Any]:
        """The packet's page (core.admin_context): its tools on top."""
        return {"packet_tools": self._tools(request, packet)}

    def _tools(self, request: HttpRequest, packet: Packet) -> dict[str, str]:
        """The buttons of a packet's page, only those that can do something now, for this user."""
        tools = {}
        if packet.status == Packet.Status.COMPLETED and (
            packet.seal_status == Packet.SealStatus.SEALED
        ):
            tools["download"] = reverse("admin:esign_packet_download", args=[packet.pk])
        if packet.status in OPEN_PACKET and may_manage(request, packet.organization):
            tools["void"] = reverse("admin:esign_packet_void", args=[packet.pk])
            if any(gets_emails(signer) for signer in turn_signers(packet)):
                tools["resend"] = reverse("admin:esign_packet_resend", args=[packet.pk])
        if may_manage(request, packet.organization) and reassignable_signers(packet):
            tools["reassign"] = reverse("admin:esign_packet_reassign", args=[packet.pk])
        return tools

    def attachment_file(
        self, request: HttpRequest, packet_id: int, attachment_id: int
    ) -> HttpResponse:
        """A file a signer of the packet attached, for whoever may see the packet."""
        packet = self._packet(request, packet_id)
        attached = SignerAttachment.objects.filter(pk=attachment_id, signer__packet=packet).first()
        if attached is None:
            raise Http404
        return file_response(
            blob_read(attached.path, attached.sha256),
            filename=safe_filename(attached.filename, "attachment"),
            content_type=attached.content_type,
        )

    def download_zip(self, request: HttpRequest, packet_id: int) -> HttpResponse:
        packet = self._packet(request, packet_id)
        try:
            archive = document_group_archive(
                organization=packet.organization, group_eid=packet.document_group.eid
            )
        except ServiceError as error:
            self.message_user(request, error.message, messages.ERROR)
            return HttpResponse(error.message, status=error.status, content_type="text/plain")
        return file_response(
            archive.data, filename=f"{archive.filename}.zip", content_type="application/zip"
        )

    @admin.action(
        description="Void: nobody can sign any more (open packets)", permissions=["manage"]
    )
    def void(self, request: HttpRequest, queryset: QuerySet[Packet]) -> None:
        if not manages(request, {packet.organization for packet in queryset}):
            return
        voided = sum(self._void(request, packet) for packet in queryset)
        self.message_user(request, f"{voided} packet(s) voided.")

    def _void(self, request: HttpRequest, packet: Packet) -> bool:
        try:
            packet_void_now(packet=packet)
        except ServiceError as error:
            self.message_user(request, f"{packet.name}: {error.message}", messages.WARNING)
            return False
        return True

    def _back(self, packet: Packet) -> HttpResponseRedirect:
        return HttpResponseRedirect(reverse("admin:esign_packet_change", args=[packet.pk]))

    def void_one(self, request: HttpRequest, packet_id: int) -> HttpResponse:
        """The packet page's "Void" button: a page that asks first (voiding cannot be undone),
        whose button posts here."""
        packet = self._packet(request, packet_id, act=True)
        if request.method != "POST":
            context = {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "packet": packet,
                "title": f"Void {packet.name}?",
                "signers": turn_signers(packet),
            }
            return TemplateResponse(request, "admin/esign/packet/void_confirm.html", context)
        if self._void(request, packet):
            self.message_user(request, f"{packet.name} was voided: nobody can sign it any more.")
        return self._back(packet)

    def reassign_one(self, request: HttpRequest, packet_id: int) -> HttpResponse:
        """The packet page's "Reassign a signer": a form (the signer, the new name and email)
        that hands that signer's turn to someone else (esign.signing.forwarding), audited with the
        user; a refusal is shown on the form, and nothing changes."""
        packet = self._packet(request, packet_id, act=True)
        signers = reassignable_signers(packet)
        form = ReassignForm(request.POST or None, signers=signers)
        status = 200
        if request.method == "POST" and form.is_valid():
            signer = next(s for s in signers if str(s.pk) == form.cleaned_data["signer"])
            try:
                successor = signer_reassign_now(
                    signer=signer,
                    name=form.cleaned_data["name"],
                    email=form.cleaned_data["email"],
                    requested_by=f"{request.user} (admin)",
                )
            except ValidationFailed as invalid:
                for problem in invalid.fields:
                    field = problem.property if problem.property in form.fields else None
                    form.add_error(field, problem.message)
            except ServiceError as error:
                form.add_error(None, error.message)
            else:
                self.message_user(request, f"{signer.name}'s turn was handed to {successor.name}.")
                return self._back(packet)
        if request.method == "POST":
            status = 400
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "packet": packet,
            "title": f"Reassign a signer of {packet.name}",
            "form": form,
        }
        return TemplateResponse(request, "admin/esign/packet/reassign.html", context, status=status)

    @admin.action(
        description="Seal again now (completed packets not sealed yet)", permissions=["manage"]
    )
    def seal_again(self, request: HttpRequest, queryset: QuerySet[Packet]) -> None:
        if not manages(request, {packet.organization for packet in queryset}):
            return
        count = sum(packet_seal_retry(packet=packet) for packet in queryset)
        self.message_user(request, f"Sealing enqueued for {count} packet(s).")

    @admin.action(
        description="Email a new link to the signers whose turn it is", permissions=["manage"]
    )
    def resend_signing_emails(self, request: HttpRequest, queryset: QuerySet[Packet]) -> None:
        if not manages(request, {packet.organization for packet in queryset}):
            return
        sent = sum(len(self._resend(request, packet)[0]) for packet in queryset)
        self.message_user(request, f"A new link is on its way to {sent} signer(s).")

    def _resend(self, request: HttpRequest, packet: Packet) -> tuple[list[Signer], int]:
        """The signers whose turn it is who were sent a new link (audited with the user), and
        how many were not, having been sent as many as they may be (esign.links.limits): each
        of those is named in a message."""
        sent, capped = [], 0
        for signer in turn_signers(packet):
            try:
                if signer_email_resend(signer=signer, requested_by=f"{request.user} (admin)"):
                    sent.append(signer)
            except RateLimited as limited:
                self.message_user(request, limited.message, messages.ERROR)
                capped += 1
        return sent, capped

    @method_decorator(require_POST)
    def resend_one(self, request: HttpRequest, packet_id: int) -> HttpResponse:
        """The packet page's "Email a new link" button."""
        packet = self._packet(request, packet_id, act=True)
        sent, capped = self._resend(request, packet)
        if sent:
            names = ", ".join(signer.name for signer in sent)
            self.message_user(request, f"A new signing link is on its way to {names}.")
        elif not capped:
            self.message_user(
                request,
                "No link sent: nobody whose turn it is gets emails, or one is on its way already.",
                messages.WARNING,
            )
        return self._back(packet)

    def has_add_permission(self, request: HttpRequest) -> bool:
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


# Bulk sends have an admin of their own (upload, preview, progress, results); so have qualified
# signers' providers (issue 51).
from esign import signature_admin  # noqa: E402, F401
from esign.bulk import admin as bulk_admin  # noqa: E402, F401
