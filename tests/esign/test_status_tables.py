"""The tables of moves of e-signature's work that was set by hand (issue 37, item 2): a bulk
send and its rows, a sealed file's renewal, a packet's seal enqueued again. A move a table does
not allow raises MoveRefused and writes nothing; an UPDATE of many rows leaves those that may not
move."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from accounts.models import Organization
from core.errors import Conflict
from core.outbox import MoveRefused
from esign.bulk.sends import BATCH_MOVES, ROW_MOVES, batch_cancel
from esign.models import BulkBatch, BulkRow, Packet, SealedFileVersion
from esign.sealing.renewal import RENEWAL_MOVES, RENEWALS
from esign.sealing.seal import packet_seal_enqueue
from webhooks.models import DELIVERY_MOVES

pytestmark = pytest.mark.django_db

Batch, Row, Renewal = BulkBatch.Status, BulkRow.Status, SealedFileVersion.RenewalStatus


def test_a_finished_bulk_send_and_its_rows_refuse_to_move_and_nothing_is_written(
    organization: Organization,
) -> None:
    batch = BulkBatch.objects.create(
        organization=organization, name="b", status=Batch.COMPLETED, shape={}
    )
    created = BulkRow.objects.create(batch=batch, index=0, status=Row.CREATED)
    pending = BulkRow.objects.create(batch=batch, index=1)

    with pytest.raises(MoveRefused, match="bulk send is completed; it cannot become sending"):
        BATCH_MOVES.move(batch, Batch.SENDING)
    with pytest.raises(MoveRefused, match="bulk send's row is created; it cannot become failed"):
        ROW_MOVES.move(created, Row.FAILED)

    assert (batch.status, created.status) == (Batch.COMPLETED, Row.CREATED)
    assert BulkBatch.objects.get().status == Batch.COMPLETED
    assert BulkRow.objects.get(pk=created.pk).status == Row.CREATED
    # As a compare-and-set over many rows: the pending one moves, the created one is left.
    assert ROW_MOVES.move_all(batch.rows.all(), Row.FAILED) == 1
    assert dict(batch.rows.values_list("pk", "status")) == {
        created.pk: Row.CREATED,
        pending.pk: Row.FAILED,
    }
    # The service asks the same table: a finished batch is not cancelled.
    with pytest.raises(Conflict, match="only one sending can be cancelled"):
        batch_cancel(batch=batch)
    assert BulkBatch.objects.get().finished_at is None


def test_the_bulk_tables_allow_what_the_sends_do() -> None:
    assert BATCH_MOVES.sources(Batch.CANCELLED) == [Batch.DRAFT, Batch.SENDING]
    assert BATCH_MOVES.sources(Batch.SENDING) == [Batch.DRAFT]
    assert ROW_MOVES.sources(Row.CREATED) == [Row.PENDING]
    assert not ROW_MOVES.allows(Row.FAILED, Row.CREATED)  # a row done is never done again


def test_an_ended_renewal_refuses_to_move_and_nothing_is_written(complete: Any) -> None:
    _, packet = complete()
    renewed = SealedFileVersion.objects.create(
        packet=packet,
        slot="merged",
        version=1,
        path="p",
        sha256="0" * 64,
        renewal_status=Renewal.RENEWED,
    )
    no_timestamp = SealedFileVersion.objects.create(
        packet=packet, slot="audit-trail", version=1, path="q", sha256="1" * 64
    )

    with pytest.raises(MoveRefused, match="sealed file's renewal is renewed; it cannot become"):
        RENEWALS.fail(renewed, now=timezone.now())
    with pytest.raises(MoveRefused, match="renewal is not started; it cannot become renewed"):
        RENEWALS.finish(no_timestamp, Renewal.RENEWED, now=timezone.now())

    assert RENEWALS.move_all(SealedFileVersion.objects.all(), Renewal.FAILED) == 0
    assert sorted(SealedFileVersion.objects.values_list("renewal_status", flat=True)) == [
        "",
        Renewal.RENEWED,
    ]
    assert RENEWAL_MOVES.sources(Renewal.FAILED) == [Renewal.PENDING]


def test_a_sealed_packets_seal_is_not_enqueued_again_and_nothing_is_written(
    complete: Any,
) -> None:
    _, packet = complete()
    Packet.objects.filter(pk=packet.pk).update(seal_status=Packet.SealStatus.SEALED)
    packet.refresh_from_db()
    tasks = DBTaskResult.objects.count()

    refused = pytest.raises(MoveRefused, match="packet's seal is sealed; it cannot become pending")
    with refused, transaction.atomic():
        packet_seal_enqueue(packet)

    assert packet.seal_status == Packet.SealStatus.SEALED
    assert Packet.objects.get(pk=packet.pk).seal_status == Packet.SealStatus.SEALED
    assert DBTaskResult.objects.count() == tasks


def test_only_a_new_delivery_is_skipped() -> None:
    assert DELIVERY_MOVES.sources("skipped") == ["pending"]
    with pytest.raises(MoveRefused):
        DELIVERY_MOVES.check("delivered", "skipped")
