"""The e-signature sweeps claim a set, not a row at a time (issue 52, item 6).

A seal sweep over packets whose seal tasks wait behind a long queue costs the same few queries
for 5 or 50 (it looked at the task table once per packet, in a transaction of its own); over
attempts whose worker died, only the enqueues grow with the set (a task row each, and its NOTIFY
on PostgreSQL). Either way a packet is enqueued once: a second sweep finds its task waiting.
The signers' emails' sweep likewise (it took a transaction per email, and enqueued an email
again even while its task waited).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.conf import settings
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from accounts.models import Organization
from core.background import enqueue_in_transaction
from esign.models import Packet, Signer, SignerEmail
from esign.sweeps import emails_sweep, seals_sweep
from esign.task_names import PACKET_SEAL, SIGNER_EMAIL

pytestmark = pytest.mark.django_db

SEAL_TASK = "esign.tasks.packet_seal_task"
EMAIL_TASK = "esign.tasks.signer_email_task"
Seal = Packet.SealStatus
Query = dict[str, Any]


def lease() -> timedelta:
    return timedelta(seconds=settings.SEAL_LEASE_SECONDS)


def completed(organization: Organization, count: int, **seal_fields: object) -> list[Packet]:
    """``count`` completed packets whose seal is pending (a packet row is all the sweep reads)."""
    Packet.objects.bulk_create(
        Packet(
            organization=organization,
            name=f"Packet {n}",
            status=Packet.Status.COMPLETED,
            seal_status=Seal.PENDING,
            **seal_fields,
        )
        for n in range(count)
    )
    return list(Packet.objects.order_by("pk"))


def seal_tasks() -> list[dict[str, int]]:
    tasks = DBTaskResult.objects.filter(task_path=SEAL_TASK).order_by("enqueued_at")
    return [task.args_kwargs["kwargs"] for task in tasks]


def swept(now: datetime, sweep: Callable[..., int] = seals_sweep) -> tuple[int, list[Query]]:
    with CaptureQueriesContext(connection) as queries:
        enqueued = sweep(now=now)
    return enqueued, queries.captured_queries


def enqueues(queries: list[Query]) -> list[Query]:
    """The queries that enqueue a task: its row, and its NOTIFY on PostgreSQL."""
    return [q for q in queries if q["sql"].startswith(("INSERT", "NOTIFY"))]


def query_counts_for_5_and_50(one_size: Callable[[int], int]) -> list[int]:
    """What ``one_size(size)`` counts of a sweep's queries over 5 and over 50 rows, each run from
    empty packet and task tables."""
    counts = []
    for size in (5, 50):
        Packet.objects.all().delete()
        DBTaskResult.objects.all().delete()
        counts.append(one_size(size))
    return counts


def test_a_seal_sweep_over_5_or_50_waiting_packets_costs_the_same_few_queries(
    organization: Organization,
) -> None:
    def one_size(size: int) -> int:
        packets = completed(organization, size)
        with transaction.atomic():  # each seal's task waits in the queue, behind others
            for packet in packets:
                enqueue_in_transaction(PACKET_SEAL, packet_id=packet.pk)
        now = timezone.now() + 2 * lease()  # due for longer than a lease: the sweep looks

        enqueued, queries = swept(now)

        # Not lost: none enqueued again, none left leased, each looked at again a lease later.
        assert enqueued == 0
        assert seal_tasks() == [{"packet_id": packet.pk} for packet in packets]
        assert not Packet.objects.filter(seal_leased_until__isnull=False).exists()
        assert Packet.objects.filter(seal_status=Seal.PENDING).count() == size
        return len(queries)

    counts = query_counts_for_5_and_50(one_size)
    assert counts[0] == counts[1] <= 10, counts


def test_a_seal_sweep_over_abandoned_attempts_claims_them_at_once_and_enqueues_each_once(
    organization: Organization,
) -> None:
    def one_size(size: int) -> int:
        now = timezone.now()
        # Attempts claimed the seals, and their worker died: the leases ran out.
        packets = completed(organization, size, seal_leased_until=now - timedelta(seconds=1))

        enqueued, queries = swept(now)
        inserts = [q for q in queries if q["sql"].startswith("INSERT")]

        assert enqueued == size
        assert len(inserts) == size
        assert seal_tasks() == [{"packet_id": p.pk, "attempt": 1} for p in packets]
        assert list(
            Packet.objects.values_list("seal_status", "seal_leased_until").order_by().distinct()
        ) == [(Seal.PENDING, None)]
        # The next sweeps find each packet's task waiting: not enqueued a second time.
        assert seals_sweep(now=now) == 0
        assert seals_sweep(now=now + 2 * lease()) == 0
        assert len(seal_tasks()) == size
        return len(queries) - len(enqueues(queries))

    counts = query_counts_for_5_and_50(one_size)
    assert counts[0] == counts[1] <= 10, counts


def test_a_seal_sweep_enqueues_only_the_packets_whose_task_was_lost(
    organization: Organization,
) -> None:
    packets = completed(organization, 4)
    with transaction.atomic():
        for packet in packets[:2]:
            enqueue_in_transaction(PACKET_SEAL, packet_id=packet.pk)
    now = timezone.now() + 2 * lease()
    running = DBTaskResult.objects.get(args_kwargs__kwargs__packet_id=packets[1].pk)
    running.status = "RUNNING"  # a worker took it, within its lease: about to claim the seal
    running.started_at = now - lease() / 2
    running.save(update_fields=["status", "started_at"])
    packets[3].seal_status = Seal.SEALED  # done: not the sweep's
    packets[3].save(update_fields=["seal_status"])

    assert seals_sweep(now=now) == 1

    assert seal_tasks() == [
        {"packet_id": packets[0].pk},
        {"packet_id": packets[1].pk},
        {"packet_id": packets[2].pk, "attempt": 1},
    ]


# --- the signers' emails ------------------------------------------------------------------------


def email_lease() -> timedelta:
    return timedelta(seconds=settings.SIGNER_EMAIL_LEASE_SECONDS)


def pending_emails(organization: Organization, count: int, **fields: object) -> list[SignerEmail]:
    """``count`` pending signing emails to a signer whose turn it is (rows are all the sweep
    reads)."""
    packet = Packet.objects.create(organization=organization, name="P", status=Packet.Status.SENT)
    signer = Signer.objects.create(
        packet=packet, alias_id="client", name="Ada", email="ada@example.com"
    )
    SignerEmail.objects.bulk_create(SignerEmail(signer=signer, **fields) for _ in range(count))
    return list(SignerEmail.objects.order_by("pk"))


def email_tasks() -> list[dict[str, int]]:
    tasks = DBTaskResult.objects.filter(task_path=EMAIL_TASK).order_by("enqueued_at")
    return [task.args_kwargs["kwargs"] for task in tasks]


def test_an_email_sweep_over_5_or_50_waiting_emails_costs_the_same_few_queries(
    organization: Organization,
) -> None:
    def one_size(size: int) -> int:
        now = timezone.now()
        rows = pending_emails(organization, size, due_at=now - 2 * email_lease())
        with transaction.atomic():  # each email's task waits in the queue, behind others
            for email in rows:
                enqueue_in_transaction(SIGNER_EMAIL, email_id=email.pk, attempt=1)

        enqueued, queries = swept(now, emails_sweep)

        # Not lost: none enqueued a second time; each due from now, looked at a lease later.
        assert enqueued == 0
        assert email_tasks() == [{"email_id": e.pk, "attempt": 1} for e in rows]
        assert set(SignerEmail.objects.values_list("due_at", "claimed_until")) == {(now, None)}
        assert emails_sweep(now=now + email_lease() / 2) == 0
        return len(queries)

    counts = query_counts_for_5_and_50(one_size)
    assert counts[0] == counts[1] <= 10, counts


def test_an_email_sweep_over_abandoned_sends_claims_them_at_once_and_enqueues_each_once(
    organization: Organization,
) -> None:
    def one_size(size: int) -> int:
        now = timezone.now()
        # Sends claimed the emails, and their worker died: the leases ran out.
        rows = pending_emails(
            organization, size, attempts=1, claimed_until=now - timedelta(seconds=1)
        )

        enqueued, queries = swept(now, emails_sweep)

        assert enqueued == size
        assert email_tasks() == [{"email_id": e.pk, "attempt": 1} for e in rows]
        assert set(SignerEmail.objects.values_list("status", "claimed_until")) == {
            (SignerEmail.Status.PENDING, None)
        }
        # The next sweeps find each email's task waiting: not enqueued a second time.
        assert emails_sweep(now=now) == 0
        assert emails_sweep(now=now + 2 * email_lease()) == 0
        assert len(email_tasks()) == size
        return len(queries) - len(enqueues(queries))

    counts = query_counts_for_5_and_50(one_size)
    assert counts[0] == counts[1] <= 10, counts
