"""Bulk send: 1,000 rows -> 1,000 packets created and their signing emails queued.

    python bench/bulk_send.py [--rows 1000] [--rate 25] [--database-url postgres://...]

One shape (a one-page uploaded PDF with a signature field, one email signer named by the row)
and ``--rows`` rows, created as createEtchPacketBatch creates them (every row read first), then
sent by the batch's task as a worker runs it: each chunk claimed from the task table when it is
due, so the pace of the outgoing mail (``--rate`` emails per second, BULK_SEND_EMAILS_PER_SECOND)
is honoured. The emails are queued, not sent (no worker serves them here). Prints the time to
create the batch, the time until every packet exists (goal: at most 60 s for 1,000 rows), the
time the task itself worked, and the database's growth per packet (bytes, and rows by table).

A temporary SQLite database unless ``--database-url`` names an empty PostgreSQL database, and a
temporary data directory for the stored PDFs.
"""

from __future__ import annotations

import argparse
import base64
import io
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _server import prepare_environment  # noqa: E402

TABLES = ["esign_packet", "esign_signer", "esign_packetdocument", "esign_signeremail"]
TABLES += ["esign_auditevent", "webhooks_webhookevent", "webhooks_webhookdelivery"]
TABLES += ["esign_bulkrow", "django_tasks_database_dbtaskresult", "esign_documentgroup"]


def contract() -> bytes:
    from reportlab.pdfgen.canvas import Canvas

    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(612, 792))
    canvas.setFont("Helvetica", 12)
    for line in range(30):
        canvas.drawString(72, 720 - line * 16, f"Clause {line + 1}: " + "terms " * 12)
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def shape() -> dict:
    return {
        "name": "Agreement for {{name}}",
        "files": [
            {
                "id": "agreement",
                "file": {
                    "data": base64.b64encode(contract()).decode(),
                    "filename": "agreement.pdf",
                    "mimetype": "application/pdf",
                },
                "fields": [
                    {
                        "id": "sig",
                        "type": "signature",
                        "pageNum": 0,
                        "rect": {"x": 72, "y": 80, "width": 200, "height": 40},
                    }
                ],
            }
        ],
        "signers": [
            {
                "name": "{{name}}",
                "email": "{{email}}",
                "fields": [{"fileId": "agreement", "fieldId": "sig"}],
            }
        ],
    }


def database_bytes() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("PRAGMA page_count")
            pages = cursor.fetchone()[0]
            cursor.execute("PRAGMA freelist_count")
            free = cursor.fetchone()[0]
            cursor.execute("PRAGMA page_size")
            return (pages - free) * cursor.fetchone()[0]
        cursor.execute("SELECT pg_database_size(current_database())")
        return cursor.fetchone()[0]


def row_counts() -> dict[str, int]:
    from django.db import connection

    counts = {}
    with connection.cursor() as cursor:
        for table in TABLES:
            cursor.execute(f"SELECT COUNT(*) FROM {table}")  # noqa: S608 - our table names
            counts[table] = cursor.fetchone()[0]
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=None, help="emails per second")
    parser.add_argument("--database-url", default=None)
    arguments = parser.parse_args()
    more = {"TASKS_BACKEND": "database", "BULK_SEND_MAX_ROWS": str(max(arguments.rows, 5000))}
    if arguments.rate is not None:
        more["BULK_SEND_EMAILS_PER_SECOND"] = str(arguments.rate)
    data_dir = prepare_environment(arguments.database_url, prefix="bench-bulk-", **more)

    from django.conf import settings
    from django_tasks_db.models import DBTaskResult

    from accounts.services import organization_create
    from esign.bulk.sends import batch_create, batch_send
    from esign.models import BulkBatch, Packet, SignerEmail

    organization = organization_create(slug="bench", name="Bench")
    rows = [
        {"name": f"Signer {n}", "email": f"signer{n}@example.com"} for n in range(arguments.rows)
    ]
    before_bytes, before_rows = database_bytes(), row_counts()

    started = time.perf_counter()
    batch = batch_create(
        organization=organization,
        watermark=False,
        name="bench",
        shape=shape(),
        raw_rows=rows,
        created_by="bench",
    )
    created = time.perf_counter() - started
    task_path = "esign.tasks.bulk_batch_send_task"
    worked = 0.0
    chunks = 0
    while True:
        result = DBTaskResult.objects.ready().filter(task_path=task_path).first()
        if result is None:
            if BulkBatch.objects.get(pk=batch.pk).status != BulkBatch.Status.SENDING:
                break
            time.sleep(0.005)  # the next chunk is not due yet (the mail's pace)
            continue
        result.claim("bench")
        chunk_started = time.perf_counter()
        result.set_successful(batch_send(batch_id=batch.pk))
        worked += time.perf_counter() - chunk_started
        chunks += 1
    total = time.perf_counter() - started
    batch.refresh_from_db()
    after_bytes, after_rows = database_bytes(), row_counts()
    packets = Packet.objects.count()
    queued = SignerEmail.objects.filter(status="pending").count()
    storage = sum(f.stat().st_size for f in (data_dir / "media").rglob("*") if f.is_file())

    rate = settings.BULK_SEND_EMAILS_PER_SECOND
    print(f"bulk send of {arguments.rows} rows ({os.environ['DATABASE_URL'].split(':')[0]})")
    print(f"  rows created / failed: {batch.rows_created} / {batch.rows_failed}")
    print(f"  packets: {packets}; signing emails queued: {queued}")
    print(f"  creating the batch (every row read): {created:.2f} s")
    print(
        f"  every packet created and its email queued: {total:.1f} s "
        f"(goal <= 60 s for 1,000), paced at {rate:g} emails/s in {chunks} chunks"
    )
    print(
        f"  the task's own work: {worked:.1f} s = {1000 * worked / max(packets, 1):.1f} ms "
        f"per packet ({packets / max(worked, 1e-9):.0f} packets/s unpaced)"
    )
    growth = after_bytes - before_bytes
    print(
        f"  database growth: {growth / 1_048_576:.1f} MiB = {growth / max(packets, 1) / 1024:.1f}"
        f" KiB per packet"
    )
    per_packet = {
        table: (after_rows[table] - before_rows[table]) / max(packets, 1) for table in TABLES
    }
    print("  rows per packet: " + ", ".join(f"{t} {n:g}" for t, n in per_packet.items() if n))
    print(f"  stored PDFs: {storage / 1024 / max(packets, 1):.1f} KiB per packet")


if __name__ == "__main__":
    main()
