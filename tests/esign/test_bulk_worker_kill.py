"""A bulk send survives its worker killed half-way through a chunk: the sweep of another worker
resumes it once the chunk's lease ran out, and at the end every row has exactly one packet and
one signing email, none twice and none lost. Real ``manage.py worker`` processes on a database
shared with this test (SQLite file or PostgreSQL)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from django.db.models import Count
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from esign.models import BulkBatch, BulkRow, Packet, SignerEmail
from tests.core.test_tasks import shared_database_url  # noqa: F401 - a fixture
from tests.core.test_worker import start_task_worker  # noqa: F401 - a fixture
from tests.esign.test_bulk_send import CREATE_BATCH, uploaded_shape
from tests.esign.test_seal_outbox import kill, wait_for, worker_ready

pytestmark = pytest.mark.slow

ROWS = 60
# One chunk for the whole batch (the mail's pace allows it), so the kill lands inside it; a lost
# chunk is resumed two seconds after it started; the sweep runs twice a second.
FAST = {
    "BULK_SEND_EMAILS_PER_SECOND": "1000",
    "BULK_SEND_CHUNK_SECONDS": "1",
    "BULK_SEND_LEASE_SECONDS": "2",
    "TASKS_SWEEP_SECONDS": "0.5",
}


def test_killing_the_worker_half_way_sends_every_row_once(
    shared_database_url: str,  # noqa: F811
    start_task_worker: Callable,  # noqa: F811
    graphql,
    tmp_path: Path,
) -> None:
    outbox = tmp_path / "mail"
    outbox.mkdir()
    mail = {"EMAIL_URL": f"filemail:///{outbox}"}
    first = worker_ready(
        start_task_worker, shared_database_url, tmp_path, worker_id="a", **mail, **FAST
    )
    rows = [{"name": f"Signer {n}", "email": f"signer{n}@example.com"} for n in range(ROWS)]
    result = graphql(CREATE_BATCH, {"packet": uploaded_shape(), "rows": rows})
    assert "errors" not in result, result
    batch = BulkBatch.objects.get()

    def created() -> int:
        return BulkRow.objects.filter(batch=batch, status="created").count()

    # The waits guard against a hang, they measure nothing: at load 10+ a worker gets a tenth of
    # a core, and 60 rows with their emails take minutes.
    wait_for(lambda: created() >= ROWS // 4, "a quarter of the rows", 300, tmp_path)
    kill(first)
    done_at_kill = created()
    assert done_at_kill < ROWS, "the worker finished before it was killed: nothing was tested"
    lost = DBTaskResult.objects.get(task_path="esign.tasks.bulk_batch_send_task")
    assert lost.status == TaskResultStatus.RUNNING  # killed inside the chunk

    start_task_worker(shared_database_url, worker_id="b", **mail, **FAST)
    wait_for(
        lambda: BulkBatch.objects.get().status == "completed",
        "the batch to complete",
        300,
        tmp_path,
    )
    wait_for(
        lambda: not SignerEmail.objects.exclude(status="sent").exists(),
        "every email to be sent",
        300,
        tmp_path,
    )

    batch.refresh_from_db()
    assert (batch.rows_created, batch.rows_failed) == (ROWS, 0)
    # One packet per row, none twice: the packets are the rows' own, each with one email.
    assert Packet.objects.count() == ROWS
    packet_ids = set(BulkRow.objects.values_list("packet_id", flat=True))
    assert len(packet_ids) == ROWS
    assert packet_ids == set(Packet.objects.values_list("pk", flat=True))
    assert SignerEmail.objects.count() == ROWS
    per_packet = SignerEmail.objects.values("signer__packet").annotate(n=Count("id"))
    assert {row["n"] for row in per_packet} == {1}
    addresses = sorted(Packet.objects.values_list("signers__email", flat=True))
    assert addresses == sorted(row["email"] for row in rows)
    # What the mail server got (the file backend may write several messages to one file).
    text = "".join(path.read_text() for path in outbox.iterdir())
    recipients = sorted(line[4:] for line in text.splitlines() if line.startswith("To: "))
    assert recipients == sorted(row["email"] for row in rows)
    statuses = DBTaskResult.objects.filter(task_path="esign.tasks.bulk_batch_send_task")
    assert TaskResultStatus.FAILED in set(statuses.values_list("status", flat=True))  # the lost
