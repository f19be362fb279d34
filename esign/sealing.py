"""Sealing completed packets, their audit trail, and the download of what was sealed.

When the last signer finishes, ``signer_complete`` marks the packet's seal pending and enqueues
``esign.tasks.packet_seal_task`` in that transaction (a sweep, ``esign.sweeps``, enqueues it again
if a worker dies with it). The task (``packet_seal``) seals every document once,
with the service's certificate (esign.engine.seal), then draws the certificate of completion
(esign.engine.audit_trail) and seals it too, and only then marks the packet sealed: the download
serves sealed files or nothing.

Retries: when no timestamp authority answers, the HSM is away, or anything else fails, the packet
says so (``seal_status`` retrying, ``seal_error``, ``seal_retry_at``) and the task is enqueued
again after ``SEAL_RETRY_DELAYS``; once they run out the packet is failed and an operator retries
it from the admin (or ``manage.py seal_packets``). Each attempt keeps the documents an earlier one
sealed, and a document is never sealed without a timestamp when TSAs are configured.

Idempotent: sealing a sealed packet does nothing; two attempts racing each store their result
only where nothing is stored yet, so the first one wins and both agree afterwards. The network
(TSAs, revocation data) is never used inside a database transaction.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import secrets
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from asn1crypto import x509 as asn1_x509
from django.conf import settings
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone

from accounts.models import Organization
from core.background import enqueue_in_transaction, retry_later
from core.blobs import blob_read, blob_save
from core.engine.archive import PdfZip, safe_filename
from core.engine.pdf.document import concatenate
from core.errors import Conflict, NotFound, ServiceError
from core.resources import font_library
from esign.audit import AuditAction, action_label, audit
from esign.documents import document_pdf
from esign.emails import signer_copies_queue
from esign.engine.audit_trail import (
    TIME_FORMAT,
    AuditTrail,
    TrailDocument,
    TrailEvent,
    TrailSigner,
    draw_audit_trail,
)
from esign.engine.seal import (
    FallbackTimeStamper,
    Pkcs11Key,
    SealCredentials,
    SealError,
    SealKey,
    SealKeyUnavailable,
    SoftwareKey,
    TsaConfig,
    forget_credentials,
    load_credentials,
    seal_pdf,
)
from esign.engine.seal_keys import certificates_from_pem, create_development_pki, roots_of
from esign.engine.seal_verify import verify_pdf
from esign.models import AuditEvent, DocumentGroup, Packet, PacketDocument
from esign.stamping import HANDWRITING_FONT
from esign.tasks import packet_seal_task

logger = logging.getLogger(__name__)

AUDIT_TRAIL_NAME = "audit-trail.pdf"
# What a client is told to wait while the first attempt runs.
PENDING_RETRY_AFTER_SECONDS = 5
SEALABLE = (Packet.SealStatus.PENDING, Packet.SealStatus.RETRYING, Packet.SealStatus.FAILED)


class SealPending(ServiceError):
    """The packet is completed but its documents are still being sealed: try again shortly."""

    name = "SealPendingError"
    status = 503
    default_message = "The documents are being sealed; try again shortly."

    def __init__(self, retry_after_seconds: int, message: str | None = None) -> None:
        self.retry_after_seconds = retry_after_seconds
        super().__init__(message)


class SealFailed(ServiceError):
    """Every attempt to seal failed; the operators retry it."""

    name = "SealFailedError"
    status = 503
    default_message = (
        "The documents could not be sealed; the service's operators have been told and will "
        "seal them again."
    )


# --- the key, the TSAs, the roots ---------------------------------------------------------------


def seal_key() -> SealKey:
    """The seal's key as the settings name it: an HSM token, or the development key."""
    chain = _read_optional(settings.SEAL_CERT_CHAIN_FILE)
    if settings.SEAL_PKCS11_MODULE:
        return Pkcs11Key(
            module=settings.SEAL_PKCS11_MODULE,
            token_label=settings.SEAL_PKCS11_TOKEN_LABEL,
            key_label=settings.SEAL_PKCS11_KEY_LABEL,
            cert_label=settings.SEAL_PKCS11_CERT_LABEL,
            pin=settings.SEAL_PKCS11_PIN,
            chain_pem=chain,
        )
    return _development_key(Path(settings.SEAL_DEV_DIR))


def _read_optional(path: str) -> bytes:
    return Path(path).read_bytes() if path else b""


DEV_KEY, DEV_CERT, DEV_CA = "seal-key.pem", "seal-cert.pem", "ca-cert.pem"


def _development_key(directory: Path) -> SoftwareKey:
    """The development key, made on first use: built in a directory of its own and renamed into
    place, so that a server and a worker starting together end up with the same key."""
    if not (directory / DEV_KEY).exists():
        if not settings.DEBUG:
            logger.warning(
                "seal: no HSM is configured (SEAL_PKCS11_MODULE); creating a DEVELOPMENT seal key "
                "in %s. Documents sealed with it are not trusted anywhere else.",
                directory,
            )
        pki = create_development_pki(now=timezone.now())
        directory.parent.mkdir(parents=True, exist_ok=True)
        building = directory.parent / f".{directory.name}-{secrets.token_hex(4)}"
        building.mkdir(mode=0o700)
        for name, data in ((DEV_KEY, pki.key_pem), (DEV_CERT, pki.cert_pem), (DEV_CA, pki.ca_pem)):
            descriptor = os.open(building / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "wb") as file:
                file.write(data)
        try:
            building.rename(directory)
        except OSError:  # another process was first: use its key
            shutil.rmtree(building, ignore_errors=True)
    return SoftwareKey(
        key_pem=(directory / DEV_KEY).read_bytes(),
        cert_pem=(directory / DEV_CERT).read_bytes(),
        chain_pem=(directory / DEV_CA).read_bytes(),
    )


def seal_credentials() -> SealCredentials:
    return load_credentials(seal_key())


def tsa_config() -> TsaConfig | None:
    urls = tuple(url.strip() for url in settings.SEAL_TSA_URLS if url.strip())
    if not urls:
        return None
    return TsaConfig(urls=urls, deadline_seconds=settings.SEAL_TSA_TIMEOUT_SECONDS)


@functools.lru_cache(maxsize=4)
def _roots_in(path: str, modified: float) -> tuple[asn1_x509.Certificate, ...]:
    return tuple(certificates_from_pem(Path(path).read_bytes()))


def configured_roots() -> list[asn1_x509.Certificate]:
    """The roots of SEAL_TRUST_ROOTS_FILE (TSAs' roots, earlier seal CAs)."""
    path = settings.SEAL_TRUST_ROOTS_FILE
    if not path:
        return []
    return list(_roots_in(path, Path(path).stat().st_mtime))


def trust_roots() -> list[asn1_x509.Certificate]:
    """What verification trusts: the seal's own roots and the configured ones.

    With an HSM and SEAL_CERT_CHAIN_FILE the roots come from that file, so a web server needs
    no session on the HSM to verify; without the file they are read from the token, and an HSM
    that cannot be reached then leaves only the configured roots (logged).
    """
    key = seal_key()
    own: list[asn1_x509.Certificate] = []
    if isinstance(key, Pkcs11Key) and key.chain_pem:
        own = roots_of(certificates_from_pem(key.chain_pem))
    else:
        try:
            own = load_credentials(key).roots
        except SealKeyUnavailable as error:
            logger.warning("verify: the seal's roots are unknown (%s)", error.log_detail)
    roots = {c.sha256: c for c in [*own, *configured_roots()]}
    return list(roots.values())


# --- sealing ------------------------------------------------------------------------------------


def packet_seal_enqueue(packet: Packet) -> None:
    """Mark the completed packet's seal pending and enqueue its sealing, in the transaction that
    completes the packet: the task's row commits with the packet or not at all (an outbox), so a
    process that dies right after the commit still has the packet sealed. A task lost later (a
    worker killed while sealing) is enqueued again by the sweep (``esign.sweeps``)."""
    Packet.objects.filter(pk=packet.pk).update(
        seal_status=Packet.SealStatus.PENDING, seal_retry_at=None
    )
    packet.seal_status = Packet.SealStatus.PENDING
    enqueue_in_transaction(packet_seal_task, packet_id=packet.pk)


def packet_seal_retry(*, packet: Packet) -> bool:
    """An operator's retry of a packet whose sealing failed (or is waiting): enqueue it now."""
    if packet.status != Packet.Status.COMPLETED or packet.seal_status == Packet.SealStatus.SEALED:
        return False
    with transaction.atomic():
        packet_seal_enqueue(packet)
    return True


def packet_seal(*, packet_id: int, attempt: int = 1) -> str:
    """Seal packet ``packet_id``'s documents and audit trail; what happened, for the task result.

    Safe to run again at any time: a sealed packet is left as it is.
    """
    packet = Packet.objects.select_related("organization").filter(pk=packet_id).first()
    if packet is None:
        return "gone"
    if packet.status != Packet.Status.COMPLETED:
        return f"not completed ({packet.status})"
    if packet.seal_status == Packet.SealStatus.SEALED:
        return "already sealed"
    key: SealKey | None = None
    try:
        key = seal_key()
        level = _seal_everything(packet, key)
    except SealError as error:
        if isinstance(error, SealKeyUnavailable) and key is not None:
            forget_credentials(key)  # the next attempt opens a new session
        outcome = _record_failure(packet, attempt, error.code, str(error), error.log_detail)
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


def _seal_everything(packet: Packet, key: SealKey) -> str:
    credentials = load_credentials(key)
    tsa = tsa_config()
    # One for the whole attempt: a TSA that failed is not asked again until the next attempt.
    timestamper = FallbackTimeStamper(tsa) if tsa is not None else None
    roots = configured_roots()
    reason = f"Sealed by {_service_name()} once every signer had signed"
    levels: list[str] = []

    def seal(pdf: bytes) -> bytes:
        sealed = seal_pdf(
            pdf,
            credentials=credentials,
            signing_time=timezone.now(),
            tsa=timestamper,
            trust_roots=roots,
            reason=reason,
            location=_service_name(),
        )
        levels.append(_level_of(sealed, [*credentials.roots, *roots]))
        return sealed

    prefix = f"packets/{packet.organization.eid}/{packet.eid}"
    for document in packet.documents.all():
        if document.sealed_sha256:
            continue  # sealed by an earlier attempt
        path, sha = blob_save(prefix=prefix, data=seal(document_pdf(document)))
        PacketDocument.objects.filter(pk=document.pk, sealed_sha256="").update(
            sealed_path=path, sealed_sha256=sha
        )
    if packet.merge_pdfs:
        _seal_merged(packet, prefix, seal)
    trail = draw_audit_trail(
        audit_trail_of(packet, credentials=credentials),
        fonts=font_library(),
        handwriting_font=HANDWRITING_FONT,
    )
    trail_path, trail_sha = blob_save(prefix=prefix, data=seal(trail))
    # What the files really reach, read back from them (the weakest of this attempt's), never
    # what was asked for.
    level = min(levels, key=PADES_LEVELS.index)
    with transaction.atomic():
        locked = Packet.objects.select_for_update().get(pk=packet.pk)
        if locked.seal_status == Packet.SealStatus.SEALED:
            return level  # another attempt finished first; its trail stands
        locked.audit_trail_path, locked.audit_trail_sha256 = trail_path, trail_sha
        locked.seal_status = Packet.SealStatus.SEALED
        locked.sealed_at = timezone.now()
        locked.seal_retry_at = None
        locked.seal_error = ""
        locked.save(
            update_fields=[
                "audit_trail_path",
                "audit_trail_sha256",
                "seal_status",
                "sealed_at",
                "seal_retry_at",
                "seal_error",
                "updated_at",
            ]
        )
        audit(packet=locked, action=AuditAction.PACKET_SEALED, detail={"level": level})
        # Each signer's copy of the sealed documents, by email (enableEmails), sent by the worker.
        signer_copies_queue(locked)
    return level


PADES_LEVELS = ["unknown", "PAdES-B-B", "PAdES-B-T", "PAdES-B-LT", "PAdES-B-LTA"]


def _level_of(sealed: bytes, roots: list[asn1_x509.Certificate]) -> str:
    """The PAdES level of the seal (the file's last signature), as verification reads it."""
    signatures = verify_pdf(sealed, trust_roots=roots).signatures
    level = signatures[-1].level if signatures else None
    if level is None or level not in PADES_LEVELS:
        return "unknown"
    return level


def _seal_merged(packet: Packet, prefix: str, seal: Callable[[bytes], bytes]) -> None:
    """mergePDFs: every document's pages, in order, in one PDF sealed like the others (each
    document is sealed on its own too, and the audit trail names them)."""
    documents = list(packet.documents.all())
    if len(documents) < 2:
        return  # one document is already one PDF
    if Packet.objects.filter(pk=packet.pk).exclude(merged_sha256="").exists():
        return  # merged by an earlier attempt
    merged = concatenate([document_pdf(document) for document in documents])
    path, sha = blob_save(prefix=prefix, data=seal(merged))
    Packet.objects.filter(pk=packet.pk, merged_sha256="").update(
        merged_path=path, merged_sha256=sha
    )


def _record_failure(
    packet: Packet, attempt: int, code: str, message: str, detail: str | None
) -> str:
    with transaction.atomic():
        locked = Packet.objects.select_for_update().get(pk=packet.pk)
        if locked.seal_status == Packet.SealStatus.SEALED:
            return "sealed by another attempt"
        retry_at = retry_later(
            packet_seal_task,
            kwargs={"packet_id": packet.pk},
            attempt=attempt,
            delays=settings.SEAL_RETRY_DELAYS,
        )
        locked.seal_attempts += 1
        locked.seal_error = f"{code}: {message}" + (f" ({detail})" if detail else "")
        locked.seal_error = locked.seal_error[:2000]
        locked.seal_retry_at = retry_at
        locked.seal_status = (
            Packet.SealStatus.RETRYING if retry_at is not None else Packet.SealStatus.FAILED
        )
        locked.save(
            update_fields=[
                "seal_attempts",
                "seal_error",
                "seal_retry_at",
                "seal_status",
                "updated_at",
            ]
        )
        audit(
            packet=locked,
            action=AuditAction.PACKET_SEAL_FAILED,
            detail={"attempt": attempt, "error": code, "willRetry": retry_at is not None},
        )
    if retry_at is None:
        logger.error("seal: packet %s failed for good after %d attempts", packet.eid, attempt)
        return "failed"
    return f"retrying at {retry_at.isoformat()}"


def _service_name() -> str:
    return re.sub(r"^https?://", "", settings.PUBLIC_BASE_URL)


# --- the audit trail ----------------------------------------------------------------------------


def _when(value: datetime | None) -> str:
    return value.astimezone(UTC).strftime(TIME_FORMAT) if value else ""


def _event(event: AuditEvent) -> TrailEvent:
    detail = event.detail or {}
    text = ""
    if event.action == "signerDeclined" and detail.get("reason"):
        text = f"reason: {detail['reason']}"
    elif event.action == "packetCreated" and "documents" in detail:
        text = f"{detail['documents']} document(s)"
    elif event.action == "packetSealFailed":
        text = f"attempt {detail.get('attempt')}: {detail.get('error')}"
    return TrailEvent(
        at=_when(event.at),
        action=action_label(event.action),
        ip=event.ip or "",
        user_agent=event.user_agent,
        detail=text,
    )


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
            )
        )
    return AuditTrail(
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


# --- the download -------------------------------------------------------------------------------


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
        raise SealFailed()
    if packet.seal_status != Packet.SealStatus.SEALED:
        wait = PENDING_RETRY_AFTER_SECONDS
        if packet.seal_retry_at is not None:
            wait = max(wait, int((packet.seal_retry_at - timezone.now()).total_seconds()) + 1)
        raise SealPending(
            wait,
            "Every signer has signed; the documents are being sealed with the service's "
            f"certificate. Try again in {wait} seconds.",
        )


def document_group_archive(*, organization: Organization, group_eid: str) -> Archive:
    """The zip of a completed packet's sealed PDFs and its sealed audit trail.

    Another organization's group is as absent as a missing one (NotFound); before completion
    Conflict; completed but not sealed yet SealPending (with how long to wait), or SealFailed.
    """
    try:
        group = DocumentGroup.objects.select_related("packet").get(
            packet__organization=organization, eid=group_eid
        )
    except DocumentGroup.DoesNotExist:
        raise NotFound(f"No document group with eid '{group_eid}'.") from None
    packet = group.packet
    check_sealed(packet)
    archive = PdfZip(when=packet.sealed_at or timezone.now(), reserved=[AUDIT_TRAIL_NAME])
    if packet.merged_sha256:  # mergePDFs: the documents as one PDF, named for the packet
        archive.add(
            packet.name, blob_read(packet.merged_path, packet.merged_sha256), default=group.eid
        )
    for document in [] if packet.merged_sha256 else packet.documents.all():
        archive.add(
            document.filename,
            blob_read(document.sealed_path, document.sealed_sha256),
            default=f"{document.alias_id}.pdf",
        )
    archive.add_reserved(
        AUDIT_TRAIL_NAME, blob_read(packet.audit_trail_path, packet.audit_trail_sha256)
    )
    return Archive(safe_filename(packet.name, group.eid), archive.finish())
