"""Sealing completed packets: every document, and the audit trail, with the service's seal.

When the last signer finishes, ``signer_complete`` marks the packet's seal pending and enqueues
``esign.tasks.packet_seal_task`` (by its name) in that transaction (a sweep, ``esign.sweeps``,
enqueues it again if a worker dies with it). The task (``packet_seal``) claims the seal, seals
every document once, with the service's certificate (esign.engine.seal; first its verification
mark, esign.sealing.marks, when the packet asked for one), then draws the
certificate of completion (esign.sealing.certificate) and seals it too, and only then marks the
packet sealed: the download (esign.sealing.downloads) serves sealed files or nothing. The key,
the TSAs and the trusted roots are read from the settings by esign.sealing.config.

Retries: when no timestamp authority answers, the HSM is away, or anything else fails, the packet
says so (``seal_status`` retrying, ``seal_error``, ``seal_retry_at``: the packet's seal is an
outbox row, ``esign.lifecycle.SEALS``, moved by its table) and the task is enqueued again after
``SEAL_RETRY_DELAYS``; once they run out the packet is failed and an operator retries
it from the admin (or ``manage.py seal_packets``). Each attempt keeps the documents an earlier one
sealed, and a document is never sealed without a timestamp when TSAs are configured.

Idempotent: sealing a sealed packet does nothing. An attempt holds the packet's seal (a lease
on the packet, ``seal_leased_until``, for ``SEAL_LEASE_SECONDS``) from before its slow work until
it records its outcome, so a second attempt meanwhile leaves it alone; an attempt whose worker
died is found by the sweep once its lease ran out and the seal is enqueued again. Should a slow
attempt outlive its lease, the two each store their result only where nothing is stored yet, so
the first one wins and both agree afterwards. The network (TSAs, revocation data) is never used
inside a database transaction.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.background import enqueue_in_transaction
from core.blobs import blob_save
from core.engine.pdf.document import concatenate
from esign.engine.errors import SealError, SealKeyUnavailable
from esign.engine.seal import Attachment, seal_document
from esign.engine.seal_credentials import SealKey, forget_credentials, load_credentials
from esign.engine.timestamps import FallbackTimeStamper
from esign.links.emails import signer_copies_queue
from esign.models import Packet, PacketDocument, SealedFileVersion
from esign.packets import lifecycle as events
from esign.packets.audit import AuditAction
from esign.packets.documents import document_pdf
from esign.packets.lifecycle import SEALS, audit
from esign.sealing.certificate import audit_trail_pdf
from esign.sealing.config import configured_roots, seal_key, tsa_config
from esign.sealing.marks import marked_pdf
from esign.sealing.qualified import qualified_pending
from esign.sealing.renewal import sealed_versions_prepare
from esign.sealing.signer_signatures import SignerSignatures
from esign.task_names import PACKET_SEAL

logger = logging.getLogger(__name__)

EMBEDDED_TRAIL_NAME = "audit-trail.pdf"
SEALABLE = (Packet.SealStatus.PENDING, Packet.SealStatus.RETRYING, Packet.SealStatus.FAILED)
# How long a seal that waits for a qualified signer's signature rests before the sweep enqueues
# it again (their signature enqueues it at once).
QUALIFIED_RECHECK = timedelta(minutes=15)


def packet_seal_enqueue(packet: Packet) -> None:
    """Mark the completed packet's seal pending and enqueue its sealing, in the transaction that
    completes the packet: the task's row commits with the packet or not at all (an outbox), so a
    process that dies right after the commit still has the packet sealed. A task lost later (a
    worker killed while sealing) is enqueued again by the sweep (``esign.sweeps``)."""
    # The packet in hand moves by the same table as its row (a sealed one refuses, and nothing
    # is written).
    SEALS.move(packet, Packet.SealStatus.PENDING)
    SEALS.move_all(
        Packet.objects.filter(pk=packet.pk), Packet.SealStatus.PENDING, seal_retry_at=None
    )
    enqueue_in_transaction(PACKET_SEAL, packet_id=packet.pk)


def packet_seal_retry(*, packet: Packet) -> bool:
    """An operator's retry of a packet whose sealing failed (or is waiting): enqueue it now."""
    if packet.status != Packet.Status.COMPLETED or packet.seal_status == Packet.SealStatus.SEALED:
        return False
    with transaction.atomic():
        packet_seal_enqueue(packet)
    return True


def packet_seal(*, packet_id: int, attempt: int = 1) -> str:
    """Seal packet ``packet_id``'s documents and audit trail; what happened, for the task result.

    Safe to run again at any time: a sealed packet is left as it is, and one that another
    attempt holds (its lease) is left to it.
    """
    if qualified_pending(packet_id):
        # A qualified signer is signing with their provider; their signature, once made,
        # enqueues the seal (esign.sealing.qualified). Due again only later, so that the sweep
        # does not enqueue it every lease meanwhile.
        Packet.objects.filter(pk=packet_id, seal_status=Packet.SealStatus.PENDING).update(
            seal_retry_at=timezone.now() + QUALIFIED_RECHECK
        )
        return "waiting for a qualified signer's signature"
    claimed = _claim(packet_id, timezone.now())
    if isinstance(claimed, str):
        return claimed
    packet = claimed
    key: SealKey | None = None
    try:
        key = seal_key()
        level = _seal_everything(packet, key)
    except SealError as error:
        if isinstance(error, SealKeyUnavailable) and key is not None:
            forget_credentials(key)  # the next attempt opens a new session
        outcome = _record_failure(
            packet,
            attempt,
            error.code,
            str(error),
            error.log_detail,
            retryable=error.retryable,
        )
        log = logger.warning if error.kind == "unavailable" else logger.error
        log(
            "seal: packet %s not sealed (%s: %s); %s",
            packet.eid,
            error.code,
            error.log_detail,
            outcome,
        )
        return outcome
    except Exception as error:
        if key is not None:
            forget_credentials(key)
        _record_failure(packet, attempt, "unexpected", "An unexpected error.", repr(error))
        raise  # recorded as a failed task, with its traceback
    return f"sealed ({level})"


def _claim(packet_id: int, now: datetime) -> Packet | str:
    """Take the packet's seal for this attempt (SEALS's lease, ``SEAL_LEASE_SECONDS``) before
    the slow work, or say why not. The outcome, sealed or failed, releases it; an attempt lost
    with its worker leaves it to run out, and the sweep (``esign.sweeps``) enqueues the seal
    again."""
    with transaction.atomic():
        packet = (
            Packet.objects.select_for_update(of=("self",))
            .select_related("organization")
            .filter(pk=packet_id)
            .first()
        )
        if packet is None:
            return "gone"
        if packet.status != Packet.Status.COMPLETED:
            return f"not completed ({packet.status})"
        if packet.seal_status == Packet.SealStatus.SEALED:
            return "already sealed"
        if SEALS.leased(packet, now):
            return "being sealed by another attempt"
        SEALS.claim([packet], now=now, lease=timedelta(seconds=settings.SEAL_LEASE_SECONDS))
    return packet


def _seal_everything(packet: Packet, key: SealKey) -> str:
    tsa = tsa_config()
    # One for the whole attempt: a TSA that failed is not asked again until the next attempt.
    timestamper = FallbackTimeStamper(tsa) if tsa is not None else None
    roots = configured_roots()
    # The advanced signers' own signatures, in routing order, before the seal covers them. Made
    # ready before the seal's key is opened: opening the signer CA's token may initialize the
    # PKCS#11 library again (a token it had not seen), which ends every session opened before.
    signatures = SignerSignatures(
        packet, timestamper=timestamper, trust_roots=roots, location=_service_name()
    )
    credentials = load_credentials(key)
    reason = f"Sealed by {_service_name()} once every signer had signed"
    levels: list[str] = []
    sealed_pdfs: dict[str, bytes] = {}  # by SHA-256: when each is due for renewal
    untimestamped: set[str] = set()
    # SEAL_EMBED_AUDIT_TRAIL: each document carries its evidence, the certificate of completion
    # as it stands before the seal (the sealed files' hashes cannot be in it yet), sealed with it.
    evidence: tuple[Attachment, ...] = ()
    if settings.SEAL_EMBED_AUDIT_TRAIL:
        evidence = (
            Attachment(
                filename=EMBEDDED_TRAIL_NAME,
                data=audit_trail_pdf(packet, credentials=credentials, before_seal=True),
                description="Certificate of completion of the packet, made before the seal",
            ),
        )

    def seal(pdf: bytes, attachments: tuple[Attachment, ...] = ()) -> bytes:
        result = seal_document(
            pdf,
            credentials=credentials,
            signing_time=timezone.now(),
            tsa=timestamper,
            trust_roots=roots,
            reason=reason,
            location=_service_name(),
            attachments=attachments,
        )
        # The level from what the seal step embedded (not by verifying the file again: that was
        # a sixth of a seal's time; tests/esign/test_seal_level.py checks that they agree).
        levels.append(result.level if result.level in PADES_LEVELS else "unknown")
        sealed = result.pdf
        sha = hashlib.sha256(sealed).hexdigest()
        sealed_pdfs[sha] = sealed
        if result.level == "PAdES-B-B":
            untimestamped.add(sha)  # no timestamp to renew: its file need not be read for one
        return sealed

    prefix = f"packets/{packet.organization.eid}/{packet.eid}"
    for document in packet.documents.all():
        if document.sealed_sha256:
            continue  # sealed by an earlier attempt
        pdf = signatures.sign(marked_pdf(packet, document, document_pdf(document)), document)
        path, sha = blob_save(prefix=prefix, data=seal(pdf, evidence))
        if PacketDocument.objects.filter(pk=document.pk, sealed_sha256="").update(
            sealed_path=path, sealed_sha256=sha
        ):
            signatures.record(document)
    if packet.merge_pdfs:
        _seal_merged(packet, prefix, lambda pdf: seal(signatures.sign(pdf, None), evidence))
    trail = audit_trail_pdf(packet, credentials=credentials)
    trail_path, trail_sha = blob_save(prefix=prefix, data=seal(trail))
    # What the files reach (the weakest of this attempt's), as embedded, never what was asked
    # for.
    level = min(levels, key=PADES_LEVELS.index)
    # Version 1 of each sealed file, with when its archive timestamp is due for renewal
    # (esign.sealing.renewal), read from the files here, outside the transaction.
    sealed = Packet.objects.get(pk=packet.pk)
    sealed.audit_trail_path, sealed.audit_trail_sha256 = trail_path, trail_sha
    versions = sealed_versions_prepare(sealed, pdfs=sealed_pdfs, untimestamped=untimestamped)
    with transaction.atomic():
        locked = Packet.objects.select_for_update().get(pk=packet.pk)
        if locked.seal_status == Packet.SealStatus.SEALED:
            return level  # another attempt finished first; its trail stands
        locked.audit_trail_path, locked.audit_trail_sha256 = trail_path, trail_sha
        locked.sealed_at = timezone.now()
        SEALS.finish(locked, Packet.SealStatus.SEALED, now=locked.sealed_at)
        locked.seal_level = level
        locked.seal_error = locked.seal_error_code = locked.seal_error_message = ""
        locked.save(
            update_fields=[
                *SEALS.fields,
                "audit_trail_path",
                "audit_trail_sha256",
                "sealed_at",
                "seal_level",
                "seal_error_code",
                "seal_error_message",
            ]
        )
        SealedFileVersion.objects.bulk_create(versions, ignore_conflicts=True)
        audit(packet=locked, action=AuditAction.PACKET_SEALED, detail={"level": level})
        events.packet_sealed(locked)
        # Each signer's copy of the sealed documents, by email (enableEmails), sent by the worker.
        signer_copies_queue(locked)
    return level


PADES_LEVELS = ["unknown", "PAdES-B-B", "PAdES-B-T", "PAdES-B-LT", "PAdES-B-LTA"]


def _seal_merged(packet: Packet, prefix: str, seal: Callable[[bytes], bytes]) -> None:
    """mergePDFs: every document's pages, in order, in one PDF sealed like the others (each
    document is sealed on its own too, and the audit trail names them)."""
    documents = list(packet.documents.all())
    if len(documents) < 2:
        return  # one document is already one PDF
    if Packet.objects.filter(pk=packet.pk).exclude(merged_sha256="").exists():
        return  # merged by an earlier attempt
    # Each document's pages with its own mark (verificationStamp), as sealed on its own.
    merged = concatenate(
        [marked_pdf(packet, document, document_pdf(document)) for document in documents]
    )
    path, sha = blob_save(prefix=prefix, data=seal(merged))
    Packet.objects.filter(pk=packet.pk, merged_sha256="").update(
        merged_path=path, merged_sha256=sha
    )


def _record_failure(
    packet: Packet,
    attempt: int,
    code: str,
    message: str,
    detail: str | None,
    *,
    retryable: bool = True,
) -> str:
    """Record a failed attempt; retry it later unless the retries ran out or the error cannot
    go away by itself (a revoked certificate: failed at once, for an operator)."""
    with transaction.atomic():
        locked = Packet.objects.select_for_update().get(pk=packet.pk)
        if locked.seal_status == Packet.SealStatus.SEALED:
            return "sealed by another attempt"
        error = f"{code}: {message}" + (f" ({detail})" if detail else "")
        retry_at = SEALS.retry_or_fail(
            locked,
            error=error[:2000],
            task=PACKET_SEAL,
            kwargs={"packet_id": packet.pk},
            attempt=attempt,
            delays=settings.SEAL_RETRY_DELAYS,
            now=timezone.now(),
            retryable=retryable,
        )
        locked.seal_error_code, locked.seal_error_message = code[:64], message[:500]
        locked.save(update_fields=[*SEALS.fields, "seal_error_code", "seal_error_message"])
        audit(
            packet=locked,
            action=AuditAction.PACKET_SEAL_FAILED,
            detail={"attempt": attempt, "error": code, "willRetry": retry_at is not None},
        )
        if retry_at is None:  # no more automatic attempts: the integrator is told
            events.packet_seal_failed(locked)
    if retry_at is None:
        logger.error("seal: packet %s failed for good after %d attempts", packet.eid, attempt)
        return "failed"
    return f"retrying at {retry_at.isoformat()}"


def _service_name() -> str:
    return re.sub(r"^https?://", "", settings.PUBLIC_BASE_URL)
