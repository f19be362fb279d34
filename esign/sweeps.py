"""The sweeps of e-signature (core.sweeps): seals whose attempt or task was lost (a packet
completed and not yet sealed, whose attempt's lease ran out, or that is due with no task that
will seal it), archive timestamp renewals that are due (esign.sealing.renewal), signers' emails
whose task was lost (esign.links.emails), reminders, and packets past their expiry
(esign.sending.expiry), bulk sends whose task was lost (esign.bulk.sends)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from core.background import enqueue_in_transaction
from core.claims import claim_one
from core.row_writes import rows_update
from core.sweeps import sweep, task_results_lost_fail, task_unfinished, without_unfinished_task
from core.table_upkeep import churned
from core.tasks_registry import task_path
from esign.links.emails import signer_emails_recover, signer_reminders_queue
from esign.models import BulkBatch, DocumentGroup, Packet, PacketDocument, SealedFileVersion, Signer
from esign.packets.lifecycle import SEALS
from esign.sealing.renewal import RENEWALS, renewals_due, sealed_versions_record
from esign.sending.expiry import packets_expire
from esign.task_names import BULK_BATCH_SEND, PACKET_SEAL, SEALED_FILE_RENEW, SIGNER_EMAIL

SWEEP_BATCH = 1000


# Written at each signature and again by the seal (the packets, emails and renewals are
# outboxes, registered by core.outbox): vacuumed when autovacuum is off (core.table_upkeep).
churned(Signer, PacketDocument, DocumentGroup)


@sweep("esign.seals")
def seals_sweep(*, now: datetime) -> int:
    """Hand back the seals whose attempt was lost (core.outbox's recovery of ``SEALS``): an
    attempt whose lease (``SEAL_LEASE_SECONDS``) ran out died with its worker, and a packet due
    for longer than that (pending, or retrying past its retry time) that no attempt holds and no
    task will seal lost its task; each gets its task enqueued again. Each kind is claimed as a
    set (``SELECT ... FOR UPDATE SKIP LOCKED``: a packet another sweep holds is skipped, so only
    one enqueues it) and handled in a fixed number of queries, whatever its size. A seal task
    still running after the lease was lost with its worker: it is marked failed (any packet's,
    as the emails' and the webhooks' sweeps do). Returns how many packets were enqueued again."""
    lease = timedelta(seconds=settings.SEAL_LEASE_SECONDS)
    path = task_path(PACKET_SEAL)
    task_results_lost_fail(task_path=path, started_before=now - lease)

    def recover(packets: list[Packet], abandoned: bool) -> int:
        ids = [packet.pk for packet in packets]
        # Saved with their lease released; a pending seal is then due from now (core.outbox:
        # its ``updated_at``, the clock auto_now reads), so one whose task still waits in the
        # queue is looked at again a lease later.
        Packet.objects.filter(pk__in=ids).update(seal_leased_until=None, updated_at=timezone.now())
        # Unless its attempt was abandoned, a seal task queued, or running since less than the
        # lease (those running longer were marked failed above), will claim the seal, or is
        # about to: not lost.
        lost = (
            packets
            if abandoned
            else without_unfinished_task(packets, task_path=path, kwarg="packet_id", running=True)
        )
        for packet in lost:
            enqueue_in_transaction(
                PACKET_SEAL, packet_id=packet.pk, attempt=packet.seal_attempts + 1
            )
        return len(lost)

    recovered = SEALS.recover(now=now, grace=lease, handle_all=recover, limit=SWEEP_BATCH)
    return recovered.abandoned + recovered.lost


# Packets whose sealed files' versions are recorded per sweep (each costs a read of its PDFs).
RECORD_BATCH = 50
# Set once a sweep of this process found no packet left without versions: sealing records them
# in the transaction that marks a packet sealed, so only packets sealed before versions existed
# lack them, and the query (an anti-join over every sealed packet) need not run every sweep.
_versions_recorded = False


def _record_older_versions() -> None:
    global _versions_recorded  # noqa: PLW0603 - once per process
    if _versions_recorded:
        return
    unrecorded = list(
        Packet.objects.filter(
            seal_status=Packet.SealStatus.SEALED, sealed_versions__isnull=True
        ).order_by("pk")[:RECORD_BATCH]
    )
    for packet in unrecorded:
        sealed_versions_record(packet)
    _versions_recorded = len(unrecorded) < RECORD_BATCH


@sweep("esign.seal_renewals")
def seal_renewals_sweep(*, now: datetime) -> int:
    """Enqueue the renewal of every sealed file whose archive timestamp is due (its newest
    version's ``renewal_due_at`` has come, and any retry's time), one task per file. Enqueuing
    claims the file (core.outbox, ``RENEWALS``) for ``SEAL_LEASE_SECONDS``, so a renewal is not
    enqueued twice while it waits or runs; a claim that ran out was lost with its worker, and the
    recovery enqueues that renewal again. Also records the versions of packets sealed before
    renewal existed (until none is left, once per process). Returns how many renewals were
    enqueued."""
    _record_older_versions()
    lease = timedelta(seconds=settings.SEAL_LEASE_SECONDS)

    def enqueue(versions: list[SealedFileVersion]) -> None:
        RENEWALS.claim(versions, now=now, lease=lease)
        for version in versions:
            enqueue_in_transaction(SEALED_FILE_RENEW, version_id=version.pk)

    def recover(versions: list[SealedFileVersion], abandoned: bool) -> int:
        # Claims that ran out (abandoned: their leases released), or retries due for longer than
        # a lease that no sweep took yet (the due ones below would take them): enqueued again
        # when due, as the due ones are (a forced renewal may have failed before it was due);
        # the others keep their lease released.
        due = [v for v in versions if v.renewal_due_at is not None and v.renewal_due_at <= now]
        if abandoned:
            waiting = [v for v in versions if v not in due]
            rows_update(waiting, ["renewal_leased_until"])
        if due:
            enqueue(due)
        return len(due)

    recovered = RENEWALS.recover(now=now, grace=lease, handle_all=recover, limit=SWEEP_BATCH)
    version_ids = list(
        renewals_due(now=now).order_by("renewal_due_at").values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    enqueued = recovered.abandoned + recovered.lost
    for version_id in version_ids:
        with claim_one(renewals_due(now=now), version_id) as claimed:
            if claimed is None:
                continue  # renewed meanwhile, or another sweep has it
            enqueue([claimed])
            enqueued += 1
    return enqueued


@sweep("esign.emails")
def emails_sweep(*, now: datetime) -> int:
    """Enqueue again the signers' emails whose task was lost; returns how many. An email task
    still running after the lease was lost with its worker: it is marked failed."""
    started_before = now - timedelta(seconds=settings.SIGNER_EMAIL_LEASE_SECONDS)
    task_results_lost_fail(task_path=task_path(SIGNER_EMAIL), started_before=started_before)
    return signer_emails_recover(now=now)


@sweep("esign.reminders")
def reminders_sweep(*, now: datetime) -> int:
    """Queue the reminders due (packets with reminder_days); returns how many."""
    return signer_reminders_queue(now=now)


@sweep("esign.expiry")
def expiry_sweep(*, now: datetime) -> int:
    """Expire the open packets past their expiresAt (esign.sending.expiry); returns how many."""
    return packets_expire(now=now, limit=SWEEP_BATCH)


@sweep("esign.bulk_sends")
def bulk_sends_sweep(*, now: datetime) -> int:
    """Enqueue again every bulk send that is sending, due, and has no live task (none ready,
    none running for less than ``BULK_SEND_LEASE_SECONDS``): its worker died in the middle of a
    chunk. The rows it had done are skipped (esign.bulk.sends). Returns how many."""
    started_before = now - timedelta(seconds=settings.BULK_SEND_LEASE_SECONDS)
    path = task_path(BULK_BATCH_SEND)
    task_results_lost_fail(task_path=path, started_before=started_before)
    due = BulkBatch.objects.filter(status=BulkBatch.Status.SENDING).filter(
        Q(next_run_at__isnull=True) | Q(next_run_at__lte=now)
    )

    def live(batch_id: int) -> bool:  # a task waits, or runs within the lease
        return task_unfinished(
            task_path=path, running=True, started_since=started_before, batch_id=batch_id
        )

    enqueued = 0
    for batch_id in due.order_by("pk").values_list("pk", flat=True)[:SWEEP_BATCH]:
        if live(batch_id):
            continue
        with claim_one(due, batch_id) as batch:
            if batch is None or live(batch_id):
                continue  # finished meanwhile, or another sweep has it
            enqueue_in_transaction(BULK_BATCH_SEND, batch_id=batch_id)
            enqueued += 1
    return enqueued
