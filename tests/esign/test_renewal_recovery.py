"""The renewal sweep recovers abandoned claims as a set (core.outbox ``recover``, issue 52, item
6): a sweep whose task was lost with its worker left its claim; once the lease ran out the next
sweep takes every such file at once, enqueues again those that are due and releases the others,
in the same few queries for 4 files or 20 (only the enqueues, one task row each, grow)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from esign.models import SealedFileVersion
from esign.sweeps import seal_renewals_sweep

pytestmark = pytest.mark.django_db


def abandoned_claims(packet: Any, count: int) -> tuple[set[int], set[int]]:
    """``count`` files whose renewal a dead worker's sweep had claimed: half due, half not due
    yet (a forced renewal that failed before its time). Their ids: (due, not due)."""
    now = timezone.now()
    SealedFileVersion.objects.filter(packet=packet).delete()
    rows = SealedFileVersion.objects.bulk_create(
        SealedFileVersion(
            packet=packet,
            slot=f"document-{n}",
            version=1,
            path=f"x/{n}.pdf",
            sha256="0" * 64,
            renewal_status=SealedFileVersion.RenewalStatus.PENDING,
            renewal_due_at=now - timedelta(days=1) if n % 2 else now + timedelta(days=30),
            renewal_leased_until=now - timedelta(seconds=1),
        )
        for n in range(count)
    )
    due = {row.pk for row in rows if is_due(row, now)}
    return due, {row.pk for row in rows} - due


def is_due(row: SealedFileVersion, now: datetime) -> bool:
    return row.renewal_due_at is not None and row.renewal_due_at <= now


def test_abandoned_renewal_claims_are_recovered_as_a_set(complete: Any) -> None:
    _, packet = complete()
    seal_renewals_sweep(now=timezone.now())  # once a process, it also records older versions
    counts = []
    for size in (4, 20):
        DBTaskResult.objects.all().delete()
        due, not_due = abandoned_claims(packet, size)
        now = timezone.now()
        with CaptureQueriesContext(connection) as queries:
            enqueued = seal_renewals_sweep(now=now)
        work = [q for q in queries if not q["sql"].startswith(("INSERT", "NOTIFY"))]
        counts.append(len(work))

        assert enqueued == len(due) == size // 2
        tasks = DBTaskResult.objects.filter(task_path="esign.tasks.sealed_file_renew_task")
        assert {t.args_kwargs["kwargs"]["version_id"] for t in tasks} == due
        rows = SealedFileVersion.objects.filter(packet=packet)
        assert {r.pk for r in rows if r.renewal_leased_until is None} == not_due
        leases = [r.renewal_leased_until for r in rows if r.pk in due]
        assert all(lease is not None and lease > now for lease in leases)  # claimed again
        assert seal_renewals_sweep(now=now) == 0  # and not enqueued twice

    assert counts[0] == counts[1], counts
