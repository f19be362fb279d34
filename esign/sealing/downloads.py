"""Downloading a completed packet's documents: sealed, or nothing.

The zip holds the sealed PDFs (or the one merged PDF, with mergePDFs) and the sealed audit
trail; until the seal is done (esign.sealing.seal) a download says when to come back.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils import timezone

from accounts.models import Organization
from core.blobs import blob_read
from core.engine.archive import PdfZip, safe_filename
from core.errors import Conflict, RetryLater, ServiceError
from esign.engine.attachment_files import KINDS
from esign.models import Packet, SealedFileVersion, Signer
from esign.packets.attachment_fields import packet_attachments
from esign.packets.lookups import document_group_get
from esign.sealing.renewal import newest_versions

AUDIT_TRAIL_NAME = "audit-trail.pdf"
ATTACHMENTS_FOLDER = "attachments"
KINDS_BY_TYPE = dict(KINDS.values())
# What a client is told to wait while the first attempt runs.
PENDING_RETRY_AFTER_SECONDS = 5


class SealPending(RetryLater):
    """The packet is completed but its documents are still being sealed: try again shortly."""

    name = "SealPendingError"
    status = 503
    default_message = "The documents are being sealed; try again shortly."


class SealFailed(ServiceError):
    """Every attempt to seal failed; the operators retry it."""

    name = "SealFailedError"
    status = 503
    default_message = (
        "The documents could not be sealed; the service's operators have been told and will "
        "seal them again."
    )


@dataclass(frozen=True)
class Archive:
    filename: str  # without quotes: safe inside a double-quoted Content-Disposition
    data: bytes


def check_sealed(packet: Packet) -> None:
    """The one rule of every download of a packet's documents: sealed, or nothing. Before
    completion Conflict; completed but not sealed yet SealPending (with how long to wait), or
    SealFailed."""
    if packet.status != Packet.Status.COMPLETED:
        raise Conflict(
            f"The packet is {packet.status}: its documents can be downloaded once every "
            "signer has signed."
        )
    if packet.seal_status == Packet.SealStatus.FAILED:
        reason = packet.seal_error_message or "an unexpected error"
        raise SealFailed(
            f"The documents could not be sealed: {reason.rstrip('.')} "
            f"({packet.seal_error_code or 'unexpected'}). The service's operators have been "
            "told and will seal them again."
        )
    if packet.seal_status != Packet.SealStatus.SEALED:
        wait = PENDING_RETRY_AFTER_SECONDS
        if packet.seal_retry_at is not None:
            wait = max(wait, int((packet.seal_retry_at - timezone.now()).total_seconds()) + 1)
        raise SealPending(
            wait,
            "Every signer has signed; the documents are being sealed with the service's "
            f"certificate. Try again in {wait} seconds.",
        )


def document_group_archive(
    *, organization: Organization, group_eid: str, signer: Signer | None = None
) -> Archive:
    """The zip of a completed packet's sealed PDFs and its sealed audit trail, and the files its
    signers attached; with ``signer`` (a signer's own copy), only the files they attached:
    another signer's ID photo is not theirs to have (the audit trail names it and its hash).

    Another organization's group is as absent as a missing one (NotFound); before completion
    Conflict; completed but not sealed yet SealPending (with how long to wait), or SealFailed.
    """
    group = document_group_get(organization=organization, eid=group_eid)
    packet = group.packet
    check_sealed(packet)
    archive = PdfZip(when=packet.sealed_at or timezone.now(), reserved=[AUDIT_TRAIL_NAME])
    # Each file's newest version: renewed archive timestamps (esign.sealing.renewal) included.
    newest = newest_versions(packet)

    def sealed(slot: str, path: str, sha: str) -> bytes:
        version = newest.get(slot)
        return blob_read(version.path, version.sha256) if version else blob_read(path, sha)

    if packet.merged_sha256:  # mergePDFs: the documents as one PDF, named for the packet
        archive.add(
            packet.name,
            sealed(SealedFileVersion.MERGED, packet.merged_path, packet.merged_sha256),
            default=group.eid,
        )
    for document in [] if packet.merged_sha256 else packet.documents.all():
        archive.add(
            document.filename,
            sealed(
                SealedFileVersion.document_slot(document.pk),
                document.sealed_path,
                document.sealed_sha256,
            ),
            default=f"{document.alias_id}.pdf",
        )
    # Extension: the files signers attached (esign.signing.attachments), as they were attached.
    for by, field, attached in packet_attachments(packet):
        if signer is not None and by.pk != signer.pk:
            continue
        archive.add_file(
            f"{by.name} - {field.label} - {attached.filename}",
            blob_read(attached.path, attached.sha256),
            extension=KINDS_BY_TYPE.get(attached.content_type, ""),
            folder=ATTACHMENTS_FOLDER,
        )
    archive.add_reserved(
        AUDIT_TRAIL_NAME,
        sealed(SealedFileVersion.AUDIT_TRAIL, packet.audit_trail_path, packet.audit_trail_sha256),
    )
    return Archive(safe_filename(packet.name, group.eid), archive.finish())
