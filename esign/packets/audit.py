"""The audit trail's entries: what happened to a packet, who did it, from where.

Every action has a name (stored, and shown to API clients) and a label for people (the admin
and the certificate of completion), translated (the trail in the packet's language, see
esign.packets.languages). Entries are append-only (esign.models.AuditEvent).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass

from django.db import models
from django.utils import translation
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from esign.engine.audit_trail import TrailLabels
from esign.models import Packet, PacketStatus, SignerStatus
from esign.packets.languages import written_language


class AuditAction(models.TextChoices):
    PACKET_CREATED = "packetCreated", _("Packet created")
    PACKET_SENT = "packetSent", _("Packet sent")
    PACKET_DELIVERED = "packetDelivered", _("A signer received the request")
    PACKET_PARTIALLY_SIGNED = "packetPartiallySigned", _("Signed by some signers")
    PACKET_COMPLETED = "packetCompleted", _("Every signer signed")
    PACKET_DECLINED = "packetDeclined", _("Packet declined")
    PACKET_VOIDED = "packetVoided", _("Packet voided")
    PACKET_EXPIRED = "packetExpired", _("Packet expired before everyone signed")
    PACKET_EXTENDED = "packetExtended", _("Expiry date changed by the sender")
    PACKET_REOPENED = "packetReopened", _("Packet re-opened after its expiry")
    PACKET_SEAL_FAILED = "packetSealFailed", _("Sealing postponed")
    PACKET_SEALED = "packetSealed", _("Documents sealed")
    SEAL_RENEWED = "sealRenewed", _("Seal's archive timestamp renewed")
    # A signer's own PAdES signature (signatureLevel advanced or qualified: issue 51).
    SIGNER_CERTIFIED = "signerCertified", _("Signed with their own certificate")
    SIGNER_NOTIFIED = "signerNotified", _("Asked to sign")
    SIGNER_EMAIL_REQUESTED = "signerEmailRequested", _("A new signing link was asked for")
    SIGNER_EMAIL_SENT = "signerEmailSent", _("Signing email sent")
    SIGNER_EMAIL_FAILED = "signerEmailFailed", _("Signing email could not be sent")
    SIGNER_EMAIL_DELIVERED = "signerEmailDelivered", _("Signing email handed to the mail server")
    SIGNING_URL_CREATED = "signingUrlCreated", _("Signing link created")
    SIGNER_VIEWED = "signerViewed", _("Opened the signing link")
    SIGNER_COMPLETED = "signerCompleted", _("Signed")
    SIGNER_DECLINED = "signerDeclined", _("Declined")
    SIGNER_SKIPPED = "signerSkipped", _("No longer asked to sign")
    SIGNER_VOIDED = "signerVoided", _("Request cancelled")
    SIGNER_EXPIRED = "signerExpired", _("Request expired")
    SIGNER_REOPENED = "signerReopened", _("Asked to sign again after the expiry")
    SIGNER_FORWARDED = "signerForwarded", _("Request handed to another person")
    SIGNER_ASSIGNED = "signerAssigned", _("Asked to sign in another signer's place")
    TOKENS_EXPIRED = "tokensExpired", _("Signing links expired")
    SIGNER_CODE_SENT = "signerCodeSent", _("Verification code sent")
    SIGNER_VERIFIED = "signerVerified", _("Verified with a code")
    SIGNER_CODE_LOCKED = "signerCodeLocked", _("Verification code locked after wrong tries")
    SIGNER_ATTACHMENT_ADDED = "signerAttachmentAdded", _("File attached")
    SIGNER_ATTACHMENT_REMOVED = "signerAttachmentRemoved", _("Attached file removed")
    # Approvers and viewers (esign.packets.roles): their moves, named for what they are.
    APPROVER_NOTIFIED = "approverNotified", _("Asked to approve")
    SIGNER_APPROVED = "signerApproved", _("Approved")
    SIGNER_REJECTED = "signerRejected", _("Rejected")
    VIEWER_NOTIFIED = "viewerNotified", _("Sent the documents to read")
    VIEWER_COMPLETED = "viewerCompleted", _("Has the completed documents")
    # allowUpdates (esign.signing.updates): a value the sender filled in, changed by the signer.
    SIGNER_UPDATED_VALUE = "signerUpdatedValue", _("Changed a value the sender filled in")


# The audit action of a signer's move by their role, where it is not the move's own
# (esign.packets.lifecycle): (role, status reached) -> action.
ROLE_ACTIONS: dict[tuple[str, str], AuditAction] = {
    ("approver", "sent"): AuditAction.APPROVER_NOTIFIED,
    ("approver", "completed"): AuditAction.SIGNER_APPROVED,
    ("approver", "declined"): AuditAction.SIGNER_REJECTED,
    ("viewer", "sent"): AuditAction.VIEWER_NOTIFIED,
    ("viewer", "completed"): AuditAction.VIEWER_COMPLETED,
}


def action_label(action: str) -> str:
    """The label of ``action`` for people; an unknown (older) action as it is."""
    try:
        return str(AuditAction(action).label)
    except ValueError:
        return action


def trail_language(packet: Packet) -> AbstractContextManager[None]:
    """The packet's audit trail is written in its language (English without one)."""
    return translation.override(written_language(packet=packet))


def trail_labels() -> TrailLabels:
    """The words of the certificate of completion in the active language (the engine knows no
    catalogue)."""
    statuses = {
        PacketStatus.DRAFT: gettext("draft"),
        PacketStatus.SENT: gettext("sent"),
        PacketStatus.DELIVERED: gettext("delivered"),
        PacketStatus.PARTIAL: gettext("partially signed"),
        PacketStatus.DECLINED: gettext("declined"),
        PacketStatus.VOIDED: gettext("voided"),
        PacketStatus.COMPLETED: gettext("completed"),
        PacketStatus.EXPIRED: gettext("expired"),
        SignerStatus.CREATED: gettext("created"),
        SignerStatus.VIEWED: gettext("viewed"),
        SignerStatus.SKIPPED: gettext("skipped"),
        SignerStatus.FORWARDED: gettext("forwarded"),
    }
    return TrailLabels(
        right_to_left=translation.get_language_bidi(),
        title=gettext("Certificate of completion"),
        document_title=gettext("Certificate of completion: {packet}"),
        document_subject=gettext("Audit trail of packet {packet}"),
        packet=gettext("Packet"),
        organization=gettext("Organization"),
        status=gettext("Status"),
        created=gettext("Created"),
        completed=gettext("Completed"),
        sealed_by=gettext("Sealed by"),
        record_made=gettext("This record made"),
        test_packet=gettext("Test packet: its documents are marked as not legally binding."),
        documents=gettext("Documents"),
        documents_note=gettext(
            "SHA-256 of each PDF before anyone signed, and of the sealed PDF delivered to the "
            "signers. A file whose SHA-256 differs is not the one recorded here."
        ),
        one_page=gettext("{count} page"),
        pages=gettext("{count} pages"),
        before_signing=gettext("Before signing"),
        sealed=gettext("Sealed"),
        signers=gettext("Signers"),
        email=gettext("Email"),
        none=gettext("(none)"),
        routing_order=gettext("Routing order"),
        signed=gettext("Signed"),
        not_signed=gettext("(not signed)"),
        adopted_signature=gettext("Adopted signature"),
        none_adopted=gettext("(none adopted)"),
        drawn=gettext("drawn"),
        typed=gettext("typed"),
        packet_history=gettext("Packet history"),
        time=gettext("Time (UTC)"),
        event=gettext("Event"),
        ip_address=gettext("IP address"),
        user_agent=gettext("User agent"),
        detail=gettext("Detail"),
        footer_packet=gettext("packet {packet}"),
        footer_page=gettext("page {page} of {pages}"),
        attachments=gettext("Attached files"),
        attachments_note=gettext(
            "Files the signers attached, as the zip holds them, with the SHA-256 of each. A file "
            "whose SHA-256 differs is not the one recorded here."
        ),
        attached_by=gettext("Attached by {signer}, {time}"),
        role=gettext("Role"),
        signature_level=gettext("Signature level"),
        statuses={str(key): value for key, value in statuses.items()},
    )


@dataclass(frozen=True)
class Client:
    """Where a signer's request came from, for the audit trail."""

    ip: str | None = None
    user_agent: str = ""
