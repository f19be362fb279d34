"""Bulk sends at the wire: createEtchPacketBatch makes one packet per row from one shape (through
createEtchPacket's own parser and service), etchPacketBatch reports each row's outcome, a row's
problem refuses the whole batch with nothing stored, a row whose documents cannot be made fails
alone, the rows go out paced by the mail's rate, and the results download as CSV that no
spreadsheet runs."""

from __future__ import annotations

import base64
import csv
import io
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from django_tasks_db.models import DBTaskResult
from pypdf import PdfReader

from esign.bulk.results import csv_safe, results_csv
from esign.bulk.sends import batch_send
from esign.models import AuditEvent, BulkBatch, BulkRow, Packet, SignerEmail
from esign.sealing.certificate import audit_trail_pdf
from templates_app.models import PdfTemplate
from tests.esign.conftest import contract_pdf
from tests.pdfcheck import words
from webhooks.models import WebhookEvent

CREATE_BATCH = """
mutation Batch($packet: JSON!, $rows: [JSON!]!, $name: String) {
  createEtchPacketBatch(packet: $packet, rows: $rows, name: $name) {
    eid name status columns rowsTotal rowsCreated rowsFailed rowsPending
  }
}
"""
BATCH = """
query Batch($eid: String!, $status: String) {
  etchPacketBatch(eid: $eid) {
    eid status rowsTotal rowsCreated rowsFailed rowsPending finishedAt
    rows(status: $status) { index status values packetEid errors { property message } }
  }
}
"""
CANCEL = "mutation C($eid: String!) { cancelEtchPacketBatch(eid: $eid) { status rowsPending } }"


def uploaded_shape(**overrides: Any) -> dict[str, Any]:
    """One uploaded PDF, one email signer named by the row."""
    shape: dict[str, Any] = {
        "name": "Agreement for {{name}}",
        "files": [
            {
                "id": "agreement",
                "file": {
                    "data": base64.b64encode(contract_pdf(1)).decode(),
                    "filename": "agreement.pdf",
                    "mimetype": "application/pdf",
                },
                "fields": [
                    {
                        "id": "sig",
                        "type": "signature",
                        "pageNum": 0,
                        "rect": {"x": 72, "y": 100, "width": 200, "height": 40},
                    }
                ],
            }
        ],
        "signers": [
            {
                "id": "client",
                "name": "{{ name }}",
                "email": "{{email}}",
                "fields": [{"fileId": "agreement", "fieldId": "sig"}],
            }
        ],
    }
    shape.update(overrides)
    return shape


def template_shape(template: PdfTemplate) -> dict[str, Any]:
    """The demo template filled with the row's name and amount; the signer named by the row."""
    return {
        "name": "Invoice {{name}}",
        "files": [
            {
                "id": "invoice",
                "castEid": template.eid,
                "fields": [
                    {
                        "id": "sig",
                        "type": "signature",
                        "pageNum": 0,
                        "rect": {"x": 72, "y": 60, "width": 200, "height": 30},
                    }
                ],
            }
        ],
        "data": {"payloads": {"invoice": {"data": {"title": "{{name}}", "amount": "{{amount}}"}}}},
        "signers": [
            {
                "name": "{{name}}",
                "email": "{{email}}",
                "fields": [{"fileId": "invoice", "fieldId": "sig"}],
            }
        ],
    }


ROWS = [
    {"name": "Ada Lovelace", "email": "ada@example.com"},
    {"name": "Charles Babbage", "email": "charles@example.com"},
    {"name": "Mary Somerville", "email": "mary@example.com"},
]


def send_all(eid: str) -> None:
    """What the worker does with the batch's task, chunk after chunk, without the pacing's
    waits (the pace is tested on its own)."""
    batch = BulkBatch.objects.get(eid=eid)
    for _ in range(100):
        batch_send(batch_id=batch.pk)
        batch.refresh_from_db()
        if batch.status != BulkBatch.Status.SENDING:
            return
    pytest.fail("the batch never finished")


@pytest.fixture
def create_batch(graphql: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    def create(shape: dict[str, Any], rows: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
        return graphql(CREATE_BATCH, {"packet": shape, "rows": rows, **more})

    return create


def test_one_packet_per_row_with_the_rows_values(create_batch, graphql) -> None:
    created = create_batch(uploaded_shape(), ROWS, name="Spring agreements")
    assert "errors" not in created, created
    batch = created["data"]["createEtchPacketBatch"]
    assert batch["status"] == "sending"
    assert batch["name"] == "Spring agreements"
    assert batch["columns"] == ["name", "email"]
    assert (batch["rowsTotal"], batch["rowsCreated"], batch["rowsPending"]) == (3, 0, 3)
    assert DBTaskResult.objects.filter(task_path="esign.tasks.bulk_batch_send_task").count() == 1

    send_all(batch["eid"])

    answer = graphql(BATCH, {"eid": batch["eid"]})["data"]["etchPacketBatch"]
    assert answer["status"] == "completed"
    assert (answer["rowsCreated"], answer["rowsFailed"], answer["rowsPending"]) == (3, 0, 0)
    assert answer["finishedAt"]
    eids = [row["packetEid"] for row in answer["rows"]]
    assert len(set(eids)) == 3
    assert all(eids)
    for row, eid in zip(ROWS, eids, strict=True):
        packet = Packet.objects.get(eid=eid)
        assert packet.name == f"Agreement for {row['name']}"
        signer = packet.signers.get()
        assert (signer.name, signer.email) == (row["name"], row["email"])
        assert packet.status == "sent"
        # The trail says which bulk send and row made it.
        created_event = AuditEvent.objects.get(packet=packet, action="packetCreated")
        assert created_event.detail["bulkSend"] == batch["eid"]
    assert [r["index"] for r in answer["rows"]] == [0, 1, 2]
    assert AuditEvent.objects.get(packet__eid=eids[1], action="packetCreated").detail["row"] == 2
    # Each packet's signing email queued, and its webhook event, as for createEtchPacket.
    assert SignerEmail.objects.count() == 3
    assert WebhookEvent.objects.filter(action="documentGroupCreate").count() == 3


def test_a_templates_values_come_from_the_row(create_batch, demo_template) -> None:
    rows = [
        {"name": "Ada Lovelace", "email": "ada@example.com", "amount": 1234.5},
        {"name": "Charles Babbage", "email": "charles@example.com", "amount": "12"},
    ]
    batch = create_batch(template_shape(demo_template), rows)["data"]["createEtchPacketBatch"]
    send_all(batch["eid"])
    row = BulkRow.objects.get(batch__eid=batch["eid"], index=0)
    assert row.status == "created", row.errors
    document = row.packet.documents.get()
    from django.core.files.storage import default_storage

    with default_storage.open(document.current_path) as stored:
        text = PdfReader(io.BytesIO(stored.read())).pages[0].extract_text()
    assert "Ada Lovelace" in text
    assert "1,234.50" in text


def test_a_rows_problems_refuse_the_whole_batch(create_batch) -> None:
    rows = [
        {"name": "Ada Lovelace", "email": "ada@example.com"},
        {"name": "", "email": "charles@example"},
        {"name": "Mary Somerville", "email": "mary@example.com", "note": {"nested": 1}},
    ]
    result = create_batch(uploaded_shape(), rows)
    assert not (result.get("data") or {}).get("createEtchPacketBatch"), result
    error = result["errors"][0]
    assert error["extensions"]["code"] == "ValidationError"
    fields = {(f["property"], f["message"]) for f in error["extensions"]["fields"]}
    properties = {p for p, _ in fields}
    assert "rows.1.signers.0.name" in properties
    assert "rows.1.signers.0.email" in properties
    assert ("rows.2.note", "Must be text, a number or a boolean.") in fields
    assert not any(p.startswith("rows.0") for p in properties)
    assert BulkBatch.objects.count() == BulkRow.objects.count() == 0
    assert Packet.objects.count() == 0
    assert not DBTaskResult.objects.filter(task_path="esign.tasks.bulk_batch_send_task").exists()


def test_a_placeholder_no_row_has_is_named_in_the_shape(create_batch) -> None:
    shape = uploaded_shape()
    shape["signers"][0]["email"] = "{{mail}}"
    result = create_batch(shape, ROWS)
    fields = result["errors"][0]["extensions"]["fields"]
    assert fields == [
        {"property": "packet.signers.0.email", "message": "No row has the column 'mail'."}
    ]
    assert BulkBatch.objects.count() == 0


@pytest.mark.parametrize(
    ("rows", "property"),
    [([], "rows"), ([{"name": "A", "email": "a@example.com"}] * 3, "rows"), (["x"], "rows.0")],
)
def test_rows_that_are_not_rows(create_batch, settings, rows, property) -> None:
    settings.BULK_SEND_MAX_ROWS = 2
    result = create_batch(uploaded_shape(), rows)
    assert [f["property"] for f in result["errors"][0]["extensions"]["fields"]] == [property]
    assert BulkBatch.objects.count() == 0


def test_a_row_whose_documents_cannot_be_made_fails_alone(
    create_batch, graphql, demo_template
) -> None:
    rows = [
        {"name": "Ada Lovelace", "email": "ada@example.com", "amount": "10"},
        {"name": "Charles Babbage", "email": "charles@example.com", "amount": "lots"},
        {"name": "Mary Somerville", "email": "mary@example.com", "amount": "30"},
    ]
    batch = create_batch(template_shape(demo_template), rows)["data"]["createEtchPacketBatch"]
    send_all(batch["eid"])
    answer = graphql(BATCH, {"eid": batch["eid"]})["data"]["etchPacketBatch"]
    assert answer["status"] == "completed"
    assert (answer["rowsCreated"], answer["rowsFailed"]) == (2, 1)
    failed = graphql(BATCH, {"eid": batch["eid"], "status": "failed"})["data"]["etchPacketBatch"]
    [row] = failed["rows"]
    assert row["index"] == 1
    assert row["packetEid"] is None
    assert row["errors"][0]["property"] == "data.payloads.invoice.data.amount"
    assert Packet.objects.count() == 2


def test_another_organizations_batch_is_not_found(
    create_batch, graphql, client_for, other_api_key
) -> None:
    batch = create_batch(uploaded_shape(), ROWS)["data"]["createEtchPacketBatch"]
    other = client_for(other_api_key)
    result = graphql(BATCH, {"eid": batch["eid"]}, client=other)
    assert result["errors"][0]["extensions"]["code"] == "NotFoundError"
    result = graphql(CANCEL, {"eid": batch["eid"]}, client=other)
    assert result["errors"][0]["extensions"]["code"] == "NotFoundError"
    assert BulkBatch.objects.get().status == "sending"


def test_cancelling_stops_the_rows_still_waiting(create_batch, graphql, settings) -> None:
    settings.BULK_SEND_EMAILS_PER_SECOND = 1
    settings.BULK_SEND_CHUNK_SECONDS = 1
    batch = create_batch(uploaded_shape(), ROWS)["data"]["createEtchPacketBatch"]
    batch_send(batch_id=BulkBatch.objects.get().pk)  # one row (one email per chunk)
    answer = graphql(CANCEL, {"eid": batch["eid"]})["data"]["cancelEtchPacketBatch"]
    assert answer == {"status": "cancelled", "rowsPending": 2}
    assert batch_send(batch_id=BulkBatch.objects.get().pk) == "nothing to do"
    assert Packet.objects.count() == 1
    again = graphql(CANCEL, {"eid": batch["eid"]})
    assert again["errors"][0]["extensions"]["code"] == "ConflictError"


def test_chunks_are_paced_by_the_mails_rate(create_batch, settings) -> None:
    """Two emails a second, chunks of one second: each chunk sends two rows and enqueues the
    next for one second after it started (the clock the task reads is moved, not waited for)."""
    settings.BULK_SEND_EMAILS_PER_SECOND = 2
    settings.BULK_SEND_CHUNK_SECONDS = 1
    rows = [{"name": f"Signer {n}", "email": f"s{n}@example.com"} for n in range(5)]
    create_batch(uploaded_shape(), rows)
    batch = BulkBatch.objects.get()
    DBTaskResult.objects.all().delete()
    start = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
    batch_send(batch_id=batch.pk, now=start)
    batch.refresh_from_db()
    assert batch.rows_created == 2
    assert batch.next_run_at == start + timedelta(seconds=1)
    [task] = DBTaskResult.objects.filter(task_path="esign.tasks.bulk_batch_send_task")
    assert task.run_after == start + timedelta(seconds=1)
    batch_send(batch_id=batch.pk, now=start + timedelta(seconds=1))
    batch.refresh_from_db()
    assert (batch.rows_created, batch.next_run_at) == (4, start + timedelta(seconds=2))
    batch_send(batch_id=batch.pk, now=start + timedelta(seconds=2))
    batch.refresh_from_db()
    assert (batch.rows_created, batch.status) == (5, "completed")


def test_a_row_done_is_never_done_again(create_batch) -> None:
    """Another run of the task (a duplicate, or one resumed after a crash) skips rows done."""
    create_batch(uploaded_shape(), ROWS)
    batch = BulkBatch.objects.get()
    send_all(batch.eid)
    BulkBatch.objects.filter(pk=batch.pk).update(status="sending")
    BulkRow.objects.filter(batch=batch, index=2).update(status="pending", packet=None)
    batch_send(batch_id=batch.pk)
    assert Packet.objects.count() == 4  # only row 2 again: rows 0 and 1 were done
    assert SignerEmail.objects.count() == 4


def test_the_results_csv_never_runs_a_formula(create_batch) -> None:
    rows = [
        {"name": '=HYPERLINK("http://evil")', "email": "ada@example.com", "note": "+1"},
        {"name": "Charles Babbage", "email": "charles@example.com", "note": "@SUM(A1)"},
        {"name": "Mary Somerville", "email": "mary@example.com", "note": "-2"},
    ]
    create_batch(uploaded_shape(), rows)
    batch = BulkBatch.objects.get()
    send_all(batch.eid)
    text = results_csv(batch).decode("utf-8-sig")
    table = list(csv.reader(io.StringIO(text)))
    assert table[0] == ["row", "status", "packetEid", "errors", "name", "email", "note"]
    assert table[1][4] == '\'=HYPERLINK("http://evil")'
    assert [line[6] for line in table[1:]] == ["'+1", "'@SUM(A1)", "'-2"]
    assert [line[1] for line in table[1:]] == ["created"] * 3
    assert table[1][2] == BulkRow.objects.get(index=0).packet_eid
    assert csv_safe("plain") == "plain"


@pytest.mark.parametrize(
    ("language", "expected"), [("", "1 document; bulk send {eid}, row 2"), ("es", "envío masivo")]
)
def test_the_certificate_of_completion_names_the_bulk_send_and_row(
    create_batch, language, expected
) -> None:
    create_batch(uploaded_shape(language=language), ROWS)
    batch = BulkBatch.objects.get()
    send_all(batch.eid)
    packet = BulkRow.objects.get(index=1).packet
    pdf = audit_trail_pdf(packet, credentials=SimpleNamespace(subject="Test seal"))  # type: ignore[arg-type]
    text = " ".join(w.text for page in words(pdf) for w in page)
    assert expected.format(eid=batch.eid) in text
    assert f"{batch.eid}, " + ("row 2" if not language else "fila 2") in text


def test_a_webhook_url_no_delivery_could_reach_is_refused_once(create_batch) -> None:
    result = create_batch(uploaded_shape(webhookURL="http://127.0.0.1/hook"), ROWS)
    [field] = result["errors"][0]["extensions"]["fields"]
    assert field["property"] == "packet.webhookURL"
    assert "FETCH_ALLOW_HOSTS" in field["message"]
    assert BulkBatch.objects.count() == 0


def test_a_fault_on_one_row_fails_that_row_only(create_batch, monkeypatch) -> None:
    """A bug met by one row (not a refusal) fails it with a generic error; the batch goes on
    instead of being resumed on that row for ever."""
    import esign.bulk.sends

    original = esign.bulk.sends.packet_prepare

    def prepare(**arguments: Any):
        if arguments["packet_input"].signers[0].name == "Charles Babbage":
            raise RuntimeError("a bug")
        return original(**arguments)

    monkeypatch.setattr(esign.bulk.sends, "packet_prepare", prepare)
    create_batch(uploaded_shape(), ROWS)
    batch = BulkBatch.objects.get()
    send_all(batch.eid)
    batch.refresh_from_db()
    assert (batch.status, batch.rows_created, batch.rows_failed) == ("completed", 2, 1)
    failed = BulkRow.objects.get(status="failed")
    assert failed.index == 1
    assert "internal error" in failed.errors[0]["message"]


@pytest.mark.parametrize("key", ["signers", "files"])
def test_a_shape_whose_list_is_not_a_list_is_named_not_a_500(create_batch, key) -> None:
    """createEtchPacket's lists are typed by GraphQL; a batch's shape is any JSON (the fuzz test
    found a number for signers answered 500)."""
    shape = uploaded_shape()
    shape[key] = 2147483647

    result = create_batch(shape, ROWS)

    error = result["errors"][0]
    assert error["extensions"]["code"] == "ValidationError"
    # Every row's packet is the shape filled with the row's values: each row says it.
    assert {"property": f"rows.0.{key}", "message": "Must be a list."} in error["extensions"][
        "fields"
    ]
    assert BulkBatch.objects.count() == 0
