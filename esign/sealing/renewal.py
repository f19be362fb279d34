"""Archive timestamp renewal of sealed files (esign.engine.seal_renewal), so that a PAdES-B-LTA
seal stays provable for decades.

Every sealed file of a packet (each document, the merged PDF, the audit trail) has versions
(``SealedFileVersion``): version 1 is the file as sealed; a renewal stores the file again with
the validation data of its last timestamp and a new document timestamp, as the next version.
Nothing is overwritten; downloads serve the newest (esign.sealing.downloads). The newest version
keeps ``renewal_due_at``: ``SEAL_RENEWAL_MARGIN_DAYS`` before its last timestamp's certificates
expire, so the sweep (``esign.sweeps``) finds what is due without reading a PDF, and enqueues
``sealed_file_renew_task`` for it; ``manage.py renew_seals`` renews at once. A renewal that
fails (no TSA answers, revocation data unreachable) is tried again after
``SEAL_RENEWAL_RETRY_SECONDS``, long before the margin runs out. Each renewal is written to the
packet's audit log.

The network (TSA, revocation data) is never used inside a database transaction; two renewals of
the same file racing store one new version (the first), as the row lock decides.

A version's renewal is an outbox row (core.outbox), moved, claimed, retried and recovered through
``RENEWALS`` like a signer's email or a seal: ``renewal_status`` (blank: no timestamp to renew;
``pending`` → ``renewed`` when the next version carries the file on, or ``failed`` when it is too
late), ``renewal_attempts`` (failed ones), ``renewal_retry_at`` (the next attempt after a failure),
``renewal_leased_until`` (the sweep's claim while the task it enqueued waits or runs; one that ran
out is enqueued again) and ``renewal_error``. ``renewal_due_at`` stays what it was, when the last
timestamp must be renewed, and keeps a version out of :meth:`core.outbox.Outbox.due` until then.
Fields were added (migration esign 0019) rather than the primitive bent: the renewal kept its
claim in its retry time and read its status from ``renewal_due_at`` and ``renewal_error``, a second
way of leasing that the primitive would have had to learn. Its retries stay the sweep's (no task
waits for a retry): a failure is recorded by :meth:`core.outbox.Outbox.attempt_failed`.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from core.blobs import blob_delete, blob_read, blob_save
from core.outbox import Moves, Outbox
from esign.engine.errors import SealError
from esign.engine.seal_renewal import renew_seal_pdf, timestamp_expiry
from esign.models import Packet, SealedFileVersion
from esign.packets.audit import AuditAction
from esign.packets.lifecycle import audit
from esign.sealing.config import trust_roots, tsa_config

logger = logging.getLogger(__name__)

R = SealedFileVersion.RenewalStatus
RENEWAL_MOVES = Moves(
    "sealed file's renewal",
    {
        "": frozenset(),  # no timestamp: nothing to renew
        R.PENDING: frozenset({R.RENEWED, R.FAILED}),  # a retry stays pending
        R.RENEWED: frozenset(),
        R.FAILED: frozenset(),
    },
)
RENEWALS = Outbox(
    SealedFileVersion,
    RENEWAL_MOVES,
    waiting=frozenset({R.PENDING}),
    failed=R.FAILED,
    status="renewal_status",
    attempts="renewal_attempts",
    due_at="renewal_retry_at",
    leased_until="renewal_leased_until",
    last_error="renewal_error",
    count_attempts="failed",
)


def _status_for(due: datetime | None) -> str:
    """A new version's renewal status: pending when it has a timestamp to renew."""
    return R.PENDING if due is not None else ""


def renewal_due_at(pdf: bytes) -> datetime | None:
    """When ``pdf`` must be renewed: SEAL_RENEWAL_MARGIN_DAYS before its last timestamp can no
    longer be proven (None: no timestamp, a PAdES-B-B seal)."""
    expiry = timestamp_expiry(pdf)
    if expiry is None:
        return None
    return expiry - timedelta(days=settings.SEAL_RENEWAL_MARGIN_DAYS)


def _sealed_files(packet: Packet) -> list[tuple[str, str, str, str]]:
    """(slot, name for people, path, sha256) of the packet's sealed files as sealing left them."""
    files = [
        (SealedFileVersion.document_slot(d.pk), d.filename, d.sealed_path, d.sealed_sha256)
        for d in packet.documents.all()
        if d.sealed_sha256
    ]
    if packet.merged_sha256:
        files.append(
            (SealedFileVersion.MERGED, packet.name, packet.merged_path, packet.merged_sha256)
        )
    if packet.audit_trail_sha256:
        files.append(
            (
                SealedFileVersion.AUDIT_TRAIL,
                "audit-trail.pdf",
                packet.audit_trail_path,
                packet.audit_trail_sha256,
            )
        )
    return files


def sealed_versions_prepare(
    packet: Packet,
    *,
    pdfs: Mapping[str, bytes] | None = None,
    untimestamped: Collection[str] = (),
) -> list[SealedFileVersion]:
    """Version 1 (unsaved) of each of the sealed packet's files that has none yet, with when it
    is due for renewal, read from the file (from ``pdfs``, by SHA-256, or from storage). Sealing
    prepares them before, and saves them in, the transaction that marks the packet sealed.
    ``untimestamped``: SHA-256s of files the caller knows carry no timestamp (sealed at
    PAdES-B-B): nothing to renew, and nothing to read."""
    pdfs = pdfs or {}
    known = set(packet.sealed_versions.values_list("slot", flat=True)) if packet.pk else set()
    versions = []
    for slot, _name, path, sha in _sealed_files(packet):
        if slot in known:
            continue
        due = (
            None if sha in untimestamped else renewal_due_at(pdfs.get(sha) or blob_read(path, sha))
        )
        versions.append(
            SealedFileVersion(
                packet=packet,
                slot=slot,
                version=1,
                path=path,
                sha256=sha,
                renewal_due_at=due,
                renewal_status=_status_for(due),
            )
        )
    return versions


def sealed_versions_record(packet: Packet) -> int:
    """Record version 1 of each of a sealed packet's files that has none yet; returns how many.
    For packets sealed before versions existed (the sweep and ``manage.py renew_seals``)."""
    rows = sealed_versions_prepare(packet)
    SealedFileVersion.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


def newest_versions(packet: Packet) -> dict[str, SealedFileVersion]:
    """The newest version of each of the packet's sealed files, by slot."""
    newest: dict[str, SealedFileVersion] = {}
    for row in packet.sealed_versions.order_by("slot", "version"):
        newest[row.slot] = row
    return newest


def renewals_due(*, now: datetime) -> QuerySet[SealedFileVersion]:
    """The newest versions whose renewal is due, not waiting for a retry, and not claimed."""
    return RENEWALS.due(now).filter(renewal_due_at__lte=now)


def _ended(version: SealedFileVersion | None) -> str | None:
    """What became of a version (locked) whose renewal ended meanwhile (None: still pending)."""
    if version is None:
        return "gone"  # its packet was removed
    if version.renewal_status == R.PENDING:
        return None
    return (
        "renewed by another attempt" if version.renewal_status == R.RENEWED else "nothing to renew"
    )


def _locked(version: SealedFileVersion) -> SealedFileVersion | None:
    return SealedFileVersion.objects.select_for_update().filter(pk=version.pk).first()


def _name_of(row: SealedFileVersion) -> str:
    for slot, name, _path, _sha in _sealed_files(row.packet):
        if slot == row.slot:
            return name
    return row.slot


def _forget_unnamed(path: str) -> None:
    """Remove the renewed file at ``path`` unless a version names it (the very same bytes)."""
    if not SealedFileVersion.objects.filter(path=path).exists():
        blob_delete(path)


def sealed_file_renew(*, version_id: int, force: bool = False) -> str:
    """Renew the archive timestamp of sealed file version ``version_id`` (if it is still the
    newest and due, or with ``force`` whenever it is the newest with a timestamp); what happened,
    for the task result. Safe to run again at any time."""
    now = timezone.now()
    row = SealedFileVersion.objects.select_related("packet__organization").filter(pk=version_id)
    version = row.first()
    if version is None:
        return "gone"
    if version.renewal_due_at is None:
        return "nothing to renew"  # renewed already (a newer version exists), or PAdES-B-B
    if not force and version.renewal_due_at > now:
        return f"not due until {version.renewal_due_at.isoformat()}"
    packet = version.packet
    tsa = tsa_config()
    try:
        if tsa is None:
            raise SealError("No timestamp authority is configured (SEAL_TSA_URLS).")
        renewed = renew_seal_pdf(
            blob_read(version.path, version.sha256), now=now, tsa=tsa, trust_roots=trust_roots()
        )
        due = renewal_due_at(renewed)
    except SealError as error:
        detail = f"{error.code}: {error}" + (f" ({error.log_detail})" if error.log_detail else "")
        # Too late (not retryable): trying again cannot help, the renewal fails.
        retry_at = (
            now + timedelta(seconds=settings.SEAL_RENEWAL_RETRY_SECONDS)
            if error.retryable
            else None
        )
        with transaction.atomic():
            locked = _locked(version)
            ended = _ended(locked)
            if locked is None or ended is not None:
                return ended or "gone"
            RENEWALS.attempt_failed(locked, error=detail, retry_at=retry_at, now=now)
            if retry_at is None:
                locked.renewal_due_at = None  # not tried again
            locked.save(update_fields=[*RENEWALS.fields, "renewal_due_at"])
        if retry_at is None:
            logger.error(
                "seal renewal: %s of packet %s cannot be renewed (%s)",
                version.slot,
                packet.eid,
                detail,
            )
            return "failed"
        logger.warning(
            "seal renewal: %s of packet %s not renewed (%s); retrying at %s",
            version.slot,
            packet.eid,
            detail,
            retry_at.isoformat(),
        )
        return f"retrying at {retry_at.isoformat()}"
    path, sha = blob_save(prefix=f"packets/{packet.organization.eid}/{packet.eid}", data=renewed)
    with transaction.atomic():
        locked = _locked(version)
        ended = _ended(locked)
        if locked is None or ended is not None:
            # Another attempt carried the file on meanwhile: the file written here (a timestamp
            # of its own) is left to no row. Removed after the commit: storage is no database.
            transaction.on_commit(lambda: _forget_unnamed(path))
            return ended or "gone"
        SealedFileVersion.objects.create(
            packet=packet,
            slot=version.slot,
            version=version.version + 1,
            path=path,
            sha256=sha,
            created_at=now,
            renewal_due_at=due,
            renewal_status=_status_for(due),
        )
        RENEWALS.finish(locked, R.RENEWED, now=now)  # no retry due, the lease released
        locked.renewal_due_at = None
        locked.renewal_error = ""
        locked.save(update_fields=[*RENEWALS.fields, "renewal_due_at"])
        audit(
            packet=packet,
            action=AuditAction.SEAL_RENEWED,
            detail={
                "file": _name_of(version),
                "version": version.version + 1,
                "sha256": sha,
                "nextRenewal": due.isoformat() if due else None,
            },
        )
    logger.info(
        "seal renewal: %s of packet %s is version %d", version.slot, packet.eid, version.version + 1
    )
    return f"renewed (version {version.version + 1})"
