"""A submission's documents, for its download and its last page: as filled, or, with a signing
step, as signed and sealed; and the zip of them all with a clean name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from core.blobs import blob_read
from core.engine.archive import PdfZip, clean_filename
from core.errors import Conflict
from esign.models import DocumentGroup, Packet, PacketDocument
from esign.sealing import check_sealed, document_group_archive
from workflows.models import Submission
from workflows.submissions.finish import submission_sync
from workflows.submissions.reads import definition_for


@dataclass(frozen=True)
class DocumentFile:
    title: str
    filename: str
    read: Any  # () -> bytes


def submission_files(submission: Submission) -> list[DocumentFile]:
    """The documents of a submission: as filled, or as signed (and sealed, once they are) when
    it had a signing step."""
    if submission.packet_id is not None:
        packet = Packet.objects.get(pk=submission.packet_id)
        return [
            DocumentFile(d.title or d.filename, d.filename, lambda d=d: _signed_pdf(d))
            for d in packet.documents.all()
        ]
    return [
        DocumentFile(d.title, d.filename, lambda d=d: blob_read(d.path, d.sha256))
        for d in submission.documents.all()
    ]


def _signed_pdf(document: PacketDocument) -> bytes:
    """A signed document: sealed, or nothing (SealPending, SealFailed), as the zip."""
    check_sealed(document.packet)
    return blob_read(document.sealed_path, document.sealed_sha256)


def download_name(submission: Submission) -> str:
    """The zip's name: "Demo onboarding - Ada Lovelace" for the title "Demo: onboarding: Ada
    Lovelace" (the workflow's name, then whose it is)."""
    name = definition_for(submission).name or submission.workflow.name
    person = submission.display_title.removeprefix(f"{name}:").strip()
    title = f"{name} - {person}" if person and person != name else name
    return clean_filename(title, submission.eid)


def documents_zip(submission: Submission) -> tuple[bytes, str]:
    """The zip of a completed submission's documents, and its file name.

    With a signing step, it is the signed packet's archive: the sealed PDFs and the sealed
    audit trail (SealPending, a 503 with Retry-After, while they are being sealed)."""
    submission = submission_sync(submission)
    if not submission.is_complete:
        raise Conflict(
            f"The submission is {submission.status}: its documents can be downloaded once it is "
            "completed."
        )
    filename = f"{download_name(submission)}.zip"
    if submission.packet_id is not None:
        group = DocumentGroup.objects.get(packet_id=submission.packet_id)
        sealed = document_group_archive(
            organization=submission.workflow.organization, group_eid=group.eid
        )
        return sealed.data, filename
    archive = PdfZip(when=submission.completed_at or timezone.now())
    for index, document in enumerate(submission_files(submission)):
        archive.add(document.filename, document.read(), default=f"document{index + 1}.pdf")
    return archive.finish(), filename
