"""The seal's lease on its packet (esign.packets.lifecycle.SEALS, core.outbox), in one process: an
attempt holds the seal until it records its outcome, a second attempt meanwhile leaves it alone,
and the sweep (esign.sweeps.seals_sweep) hands the seal back once the lease ran out, or once a
pending seal's task was lost, never while an attempt or a queued task will seal it. The real
workers killed mid-seal are tests/esign/test_seal_outbox.py."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from esign.models import Packet
from esign.packets.lifecycle import SEALS
from esign.sealing.seal import packet_seal
from esign.sweeps import seals_sweep

pytestmark = pytest.mark.django_db

SEAL_TASK = "esign.tasks.packet_seal_task"


def seal_kwargs() -> list[dict[str, int]]:
    tasks = DBTaskResult.objects.filter(task_path=SEAL_TASK).order_by("enqueued_at")
    return [task.args_kwargs["kwargs"] for task in tasks]


def lease() -> timedelta:
    return timedelta(seconds=settings.SEAL_LEASE_SECONDS)


def test_a_held_seal_is_left_alone_until_its_lease_ran_out_then_enqueued_again(complete) -> None:
    _, packet = complete()
    DBTaskResult.objects.all().delete()  # the completion's task is the one that died below
    now = timezone.now()
    with transaction.atomic():  # an attempt claims the seal, and its worker dies
        SEALS.claim([Packet.objects.select_for_update().get(pk=packet.pk)], now=now, lease=lease())

    assert packet_seal(packet_id=packet.pk) == "being sealed by another attempt"
    assert seals_sweep(now=now + lease() - timedelta(seconds=1)) == 0  # the lease holds

    assert seals_sweep(now=now + lease() + timedelta(seconds=1)) == 1
    packet.refresh_from_db()
    assert (packet.seal_status, packet.seal_leased_until, packet.seal_attempts) == (
        "pending",
        None,
        0,  # a lost attempt does not use up a retry
    )
    assert seal_kwargs() == [{"packet_id": packet.pk, "attempt": 1}]
    assert seals_sweep(now=now + 2 * lease() + timedelta(seconds=2)) == 0  # its task is queued

    assert packet_seal(packet_id=packet.pk, attempt=1) == "sealed (PAdES-B-B)"
    packet.refresh_from_db()
    assert (packet.seal_status, packet.seal_leased_until) == ("sealed", None)
    assert seals_sweep(now=now + 3 * lease()) == 0


def test_a_pending_seal_whose_task_was_lost_is_enqueued_again_after_the_lease(complete) -> None:
    _, packet = complete()
    assert seal_kwargs() == [{"packet_id": packet.pk}]
    now = timezone.now()
    assert seals_sweep(now=now + 2 * lease()) == 0  # its task is queued: not lost

    DBTaskResult.objects.all().delete()  # the task lost before it claimed the seal
    assert seals_sweep(now=now) == 0  # due since the completion, just now
    assert seals_sweep(now=now + lease() + timedelta(seconds=1)) == 1

    assert seal_kwargs() == [{"packet_id": packet.pk, "attempt": 1}]
    assert seals_sweep(now=now + 2 * lease()) == 0  # enqueued once
