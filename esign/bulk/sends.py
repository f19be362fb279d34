"""Bulk sends (an extension): one packet shape, many rows, one packet per row.

A batch is createEtchPacket's arguments (the shape) whose strings may hold ``{{column}}``
placeholders, and rows of values by column. Each row's packet is the shape with the row's values
put in, read by the same parser (esign.packets.inputs) and made by the same service
(esign.sending.packets) as createEtchPacket's: nothing about packets is decided here. What a row
takes (values by column) and its messages are declared in esign.engine.bulk_rows.

Every row is read when the batch is created, so a row's wrong email or missing name, or a
template that is not the organization's, refuses the whole batch (a ValidationError naming
``rows.N.<argument>``, or ``packet.<argument>`` for the shape's own) and nothing is stored.
What only making the documents finds (a template's fill value refused) fails that row alone,
at send time.

The rows are sent by a background task (esign.tasks.bulk_batch_send_task), in chunks paced by
the outgoing mail's rate (``BULK_SEND_EMAILS_PER_SECOND``): each chunk enqueues the next one for
when the emails it queued have had their time. A row's packet is written and the row marked done
in one transaction, so a task resumed after its worker died (the sweep enqueues it again after
``BULK_SEND_LEASE_SECONDS``) skips the rows done and never sends one twice.

A batch's status and its rows' move only by the tables ``BATCH_MOVES`` and ``ROW_MOVES`` below
(core.outbox.Moves; a move they do not allow raises MoveRefused and writes nothing). A batch and
its rows are no outbox rows of their own (core.outbox.Outbox): the batch's task is its lease
(the sweep, esign.sweeps, enqueues again a sending batch whose task is gone), and a row is done
once, in the transaction that writes its packet, or failed.

- batch: ``draft`` (uploaded in the admin, previewed) → ``sending`` (:func:`batch_start`) →
  ``completed`` (every row has its outcome); ``cancelled`` (staff stopped it) from a draft or
  while sending. A batch made by the API starts ``sending``.
- row: ``pending`` → ``created`` (its packet is written) or ``failed`` (its problems).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import Organization
from core.background import enqueue_in_transaction
from core.engine.input_checks import text_problem
from core.engine.problems import Problem
from core.errors import Conflict, FieldError, ServiceError, ValidationFailed
from core.lookups import get_by_eid
from core.outbox import Moves
from core.tasks_registry import task_named
from esign.bulk_models import BulkBatch, BulkRow
from esign.engine.bulk_rows import PLACEHOLDER, read_rows
from esign.models import SignerEmail
from esign.packets.inputs import PacketInput, parse_packet_input
from esign.sending.packets import packet_prepare, packet_store
from esign.task_names import BULK_BATCH_SEND
from templates_app.services import template_list
from webhooks.services import check_webhook_url

logger = logging.getLogger(__name__)


# A chunk also ends after this many seconds of work, whatever the mail's pace allows: the next
# chunk's task is then enqueued, and a worker is never held by one batch for long.
CHUNK_WORK_SECONDS = 20.0
INTERNAL_ERROR = "The packet could not be created (an internal error, logged); try this row again."
# A cancelled batch stops within this many rows.
CANCEL_CHECK_ROWS = 10

Batch, Row = BulkBatch.Status, BulkRow.Status
BATCH_MOVES = Moves(
    "bulk send",
    {
        Batch.DRAFT: frozenset({Batch.SENDING, Batch.CANCELLED}),
        Batch.SENDING: frozenset({Batch.COMPLETED, Batch.CANCELLED}),
        Batch.COMPLETED: frozenset(),
        Batch.CANCELLED: frozenset(),
    },
)
ROW_MOVES = Moves(
    "bulk send's row",
    {
        Row.PENDING: frozenset({Row.CREATED, Row.FAILED}),
        Row.CREATED: frozenset(),
        Row.FAILED: frozenset(),
    },
)


# --- the shape and its rows ---------------------------------------------------------------------


def _walk(value: Any, path: str) -> Iterable[tuple[str, str]]:
    """Every string of ``value`` with its path (``signers.0.email``)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _walk(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, f"{path}.{index}" if path else str(index))


def shape_columns(shape: Mapping[str, Any]) -> dict[str, str]:
    """The columns the shape's placeholders name, each with the first path naming it."""
    named: dict[str, str] = {}
    for path, text in _walk(shape, ""):
        for match in PLACEHOLDER.finditer(text):
            named.setdefault(match.group(1), path)
    return named


def shape_fill(value: Any, values: Mapping[str, str]) -> Any:
    """``value`` with every ``{{column}}`` replaced by the row's value (blank when it has none).
    A string that is one placeholder and nothing else becomes the value itself."""
    if isinstance(value, str):
        if "{{" not in value:
            return value
        return PLACEHOLDER.sub(lambda m: values.get(m.group(1), ""), value)
    if isinstance(value, Mapping):
        return {key: shape_fill(item, values) for key, item in value.items()}
    if isinstance(value, list):
        return [shape_fill(item, values) for item in value]
    return value


def _columns_of(rows: list[dict[str, str]]) -> list[str]:
    seen: dict[str, None] = {}
    for row in rows:
        for column in row:
            seen.setdefault(column, None)
    return list(seen)


def row_packet_input(shape: Mapping[str, Any], values: Mapping[str, str]) -> PacketInput:
    """The row's createEtchPacket arguments, read as createEtchPacket reads them."""
    return parse_packet_input(shape_fill(shape, values))


def _prefixed(fields: Iterable[FieldError], prefix: str) -> list[Problem]:
    return [Problem(".".join(p for p in (prefix, f.property) if p), f.message) for f in fields]


def _template_problems(
    organization: Organization, shape: Mapping[str, Any], named: list[tuple[int, int, str]]
) -> tuple[list[Problem], dict[int, list[Problem]]]:
    """The templates the rows' packets name (row, file, eid) that are not ``organization``'s, in
    createEtchPacket's words: another organization's is as absent as a missing one (its being
    is never told). The shape's problem when its file names the template itself, else the row's."""
    eids = {eid for _, _, eid in named}
    templates = template_list(organization=organization).filter(eid__in=eids)
    owned = set(templates.values_list("eid", flat=True))
    files = shape.get("files") or []  # a list of objects: every row's packet was read
    in_shape: dict[int, Problem] = {}
    by_row: dict[int, list[Problem]] = {}
    for row, file, eid in (n for n in named if n[2] not in owned):
        message = f"No template with eid {eid!r}."  # createEtchPacket's (esign.sending.packets)
        if PLACEHOLDER.search(str(files[file].get("castEid"))):
            by_row.setdefault(row, []).append(Problem(f"rows.{row}.files.{file}.castEid", message))
        else:
            in_shape.setdefault(file, Problem(f"packet.files.{file}.castEid", message))
    return list(in_shape.values()), by_row


def batch_problems(
    shape: Any, rows: list[dict[str, str]], *, organization: Organization
) -> tuple[list[Problem], dict[int, list[Problem]]]:
    """What is wrong with the shape itself (named ``packet.<path>``), and with each row's packet
    (by row index, named ``rows.N.<argument>``), a template that is not ``organization``'s
    included. Reads every row: no document is made."""
    if not isinstance(shape, Mapping):
        return [Problem("packet", "Must be createEtchPacket's arguments (an object).")], {}
    shape_problems: list[Problem] = []
    columns = set(_columns_of(rows))
    for column, path in shape_columns(shape).items():
        if column not in columns:
            shape_problems.append(Problem(f"packet.{path}", f"No row has the column {column!r}."))
    if shape_problems:
        return shape_problems, {}
    by_row: dict[int, list[Problem]] = {}
    named: list[tuple[int, int, str]] = []  # (row, file, template eid)
    for index, values in enumerate(rows):
        try:
            packet_input = row_packet_input(shape, values)
        except ValidationFailed as invalid:
            by_row[index] = _prefixed(invalid.fields, f"rows.{index}")
            continue
        named += [(index, i, f.cast_eid) for i, f in enumerate(packet_input.files) if f.cast_eid]
    in_shape, templates_by_row = _template_problems(organization, shape, named)
    for index, listed in templates_by_row.items():
        by_row.setdefault(index, []).extend(listed)
    return in_shape, by_row


# --- creating a batch ---------------------------------------------------------------------------


def batch_create(
    *,
    organization: Organization,
    watermark: bool,
    name: str,
    shape: Any,
    raw_rows: Any,
    created_by: str,
    draft: bool = False,
) -> BulkBatch:
    """A batch of ``organization`` whose rows are sent by the background task. Every row is
    read first: any problem (the shape's, a row's) is a ValidationFailed naming them all, and
    nothing is stored. A ``draft`` (the admin's upload, previewed before it is sent) keeps its
    rows' problems on the rows instead, and is sent by :func:`batch_start`; only the shape's
    problems, or rows that are not rows, refuse it."""
    rows, problems = read_rows(raw_rows, settings.BULK_SEND_MAX_ROWS)
    name = (name or "").strip()
    if text_problem(name) or len(name) > 255 or "\n" in name:
        problems.append(Problem("name", "Must be one line of at most 255 characters."))
    by_row: dict[int, list[Problem]] = {}
    if rows:  # every row's problems at once, a wrong value's included
        shape_problems, by_row = batch_problems(shape, rows, organization=organization)
        problems += shape_problems
    if draft:
        row_problems = [p for p in problems if p.path.startswith("rows.")]
        problems = [p for p in problems if not p.path.startswith("rows.")]
        for problem in row_problems:  # a value the reading refused: that row's problem
            index = int(problem.path.split(".")[1])
            by_row.setdefault(index, []).insert(0, problem)
        # A row's problems are named within the row (signers.0.email), as its send's are.
        by_row = {
            index: [Problem(p.path.removeprefix(f"rows.{index}."), p.message) for p in listed]
            for index, listed in by_row.items()
        }
    else:
        for listed in by_row.values():
            problems += listed
    if problems or not rows:
        raise ValidationFailed.from_problems(
            problems or [Problem("rows", "Give at least one row.")]
        )
    webhook_url = shape.get("webhookURL")
    if isinstance(webhook_url, str) and webhook_url and "{{" not in webhook_url:
        # Checked once here (it may resolve the host name), as createEtchPacket checks it.
        check_webhook_url(webhook_url, property="packet.webhookURL")
    with transaction.atomic():
        batch = BulkBatch.objects.create(
            organization=organization,
            name=name or str(shape.get("name") or "Bulk send")[:255],
            status=BulkBatch.Status.DRAFT if draft else BulkBatch.Status.SENDING,
            shape=dict(shape),
            columns=_columns_of(rows),
            watermark=watermark,
            created_by=created_by[:200],
            rows_total=len(rows),
            next_run_at=None if draft else timezone.now(),
        )
        BulkRow.objects.bulk_create(
            (
                BulkRow(
                    batch=batch,
                    index=index,
                    values=values,
                    errors=[
                        {"property": p.path, "message": p.message} for p in by_row.get(index, [])
                    ],
                )
                for index, values in enumerate(rows)
            ),
            batch_size=500,
        )
        if not draft:
            enqueue_in_transaction(BULK_BATCH_SEND, batch_id=batch.pk)
    return batch


def batch_start(*, batch: BulkBatch) -> BulkBatch:
    """Send a draft: its rows with problems are failed with them, the others sent by the task.
    Conflict unless it is a draft."""
    with transaction.atomic():
        batch = BulkBatch.objects.select_for_update().get(pk=batch.pk)
        if batch.status != Batch.DRAFT:
            raise Conflict(f"The bulk send is {batch.status} already.")
        invalid = batch.rows.exclude(errors=[])  # the pending ones among them move
        failed = ROW_MOVES.move_all(invalid, Row.FAILED, finished_at=timezone.now())
        batch.rows_failed = failed
        BATCH_MOVES.move(batch, Batch.SENDING)
        batch.next_run_at = timezone.now()
        batch.save(update_fields=["rows_failed", "status", "next_run_at"])
        enqueue_in_transaction(BULK_BATCH_SEND, batch_id=batch.pk)
    return batch


def batch_get(*, organization: Organization, eid: str) -> BulkBatch:
    """The organization's batch; another organization's is as absent as a missing one."""
    return get_by_eid(BulkBatch.objects.all(), "bulk send", eid, organization=organization)


def batch_cancel(*, batch: BulkBatch) -> BulkBatch:
    """Stop sending: the rows still waiting stay so (the packets made are kept). Conflict when
    the batch is finished already."""
    with transaction.atomic():
        batch = BulkBatch.objects.select_for_update().get(pk=batch.pk)
        if not BATCH_MOVES.allows(batch.status, Batch.CANCELLED):
            raise Conflict(f"The bulk send is {batch.status}: only one sending can be cancelled.")
        BATCH_MOVES.move(batch, Batch.CANCELLED)
        batch.finished_at = timezone.now()
        batch.next_run_at = None
        batch.save(update_fields=["status", "finished_at", "next_run_at"])
    return batch


# --- sending (the task) -------------------------------------------------------------------------


def _chunk_emails() -> int:
    """How many emails one chunk may queue: the mail's rate over a chunk's seconds."""
    rate = settings.BULK_SEND_EMAILS_PER_SECOND
    return max(1, math.ceil(rate * settings.BULK_SEND_CHUNK_SECONDS))


def _row_fail(row: BulkRow, fields: list[dict[str, str]]) -> None:
    with transaction.atomic():
        updated = ROW_MOVES.move_all(
            BulkRow.objects.filter(pk=row.pk), Row.FAILED, errors=fields, finished_at=timezone.now()
        )
        if updated:
            BulkBatch.objects.filter(pk=row.batch_id).update(rows_failed=F("rows_failed") + 1)


def _wire_errors(error: ServiceError) -> list[dict[str, str]]:
    if isinstance(error, ValidationFailed):
        return [f.as_wire() for f in error.fields]
    return [{"property": "", "message": f"{error.name}: {error.message}"}]


def _row_send(batch: BulkBatch, row: BulkRow) -> int:
    """Make the row's packet; the number of signing emails it queued. The slow part (its
    documents) runs outside any transaction; the packet, its emails, webhooks and the row's
    outcome commit together, so a row done is never done again."""
    try:
        packet_input = row_packet_input(batch.shape, row.values)
        prepared = packet_prepare(
            organization=batch.organization, watermark=batch.watermark, packet_input=packet_input
        )
    except ServiceError as error:
        _row_fail(row, _wire_errors(error))
        return 0
    except DatabaseError:
        raise  # the database, not the row: the task fails and the sweep resumes the batch
    except Exception:
        # A fault of ours on this row must not stop the batch for ever (the sweep would run it
        # again and again): the row fails, the log has the trace.
        logger.exception("bulk send %s: row %s could not be made", batch.eid, row.index)
        _row_fail(row, [{"property": "", "message": INTERNAL_ERROR}])
        return 0
    try:
        with transaction.atomic():
            locked = BulkRow.objects.select_for_update().filter(pk=row.pk).first()
            if locked is None or not ROW_MOVES.allows(locked.status, Row.CREATED):
                prepared.discard()  # another run of the task did it meanwhile
                return 0
            packet = packet_store(
                prepared, created_detail={"bulkSend": batch.eid, "row": row.index + 1}
            )
            ROW_MOVES.move(locked, Row.CREATED)
            locked.packet = packet
            locked.packet_eid = packet.eid
            locked.finished_at = timezone.now()
            locked.save(update_fields=["status", "packet", "packet_eid", "finished_at"])
            BulkBatch.objects.filter(pk=batch.pk).update(rows_created=F("rows_created") + 1)
    except ServiceError as error:
        prepared.discard()
        _row_fail(row, _wire_errors(error))
        return 0
    except DatabaseError:
        prepared.discard()
        raise
    except Exception:
        prepared.discard()
        logger.exception("bulk send %s: row %s could not be stored", batch.eid, row.index)
        _row_fail(row, [{"property": "", "message": INTERNAL_ERROR}])
        return 0
    except BaseException:
        prepared.discard()
        raise
    return SignerEmail.objects.filter(signer__packet=packet).count()


def batch_send(*, batch_id: int, now: datetime | None = None) -> str:
    """One chunk of the batch: its waiting rows in order, until the chunk's emails are queued;
    then the next chunk is enqueued for when those emails have had their time at
    ``BULK_SEND_EMAILS_PER_SECOND``. Idempotent: rows done are skipped, a finished or cancelled
    batch is left as it is."""
    started = now or timezone.now()
    batch = BulkBatch.objects.select_related("organization").filter(pk=batch_id).first()
    if batch is None or batch.status != BulkBatch.Status.SENDING:
        return "nothing to do"
    budget = _chunk_emails()
    emails = rows = 0
    deadline = time.monotonic() + CHUNK_WORK_SECONDS
    pending = batch.rows.filter(status=BulkRow.Status.PENDING).order_by("index")
    # The chunk's rows are read at once (each is locked and checked again as it is sent): at
    # most one per email of the budget. Rows that queue no email (embedded signers) end the
    # chunk after ``budget`` rows, and the next one is due at once.
    for row in pending[:budget]:
        if emails >= budget or time.monotonic() >= deadline:
            break
        if (
            rows % CANCEL_CHECK_ROWS == 0
            and not BulkBatch.objects.filter(pk=batch.pk, status=BulkBatch.Status.SENDING).exists()
        ):
            return "cancelled"
        emails += _row_send(batch, row)
        rows += 1
    with transaction.atomic():
        locked = BulkBatch.objects.select_for_update().get(pk=batch.pk)
        if locked.status != BulkBatch.Status.SENDING:
            return f"{rows} rows, then {locked.status}"
        if not pending.exists():
            BATCH_MOVES.move(locked, Batch.COMPLETED)
            locked.finished_at = timezone.now()
            locked.next_run_at = None
            locked.save(update_fields=["status", "finished_at", "next_run_at"])
            return f"{rows} rows, completed"
        run_after = started + timedelta(seconds=emails / settings.BULK_SEND_EMAILS_PER_SECOND)
        locked.next_run_at = run_after
        locked.save(update_fields=["next_run_at"])
        task = task_named(BULK_BATCH_SEND)
        if task.get_backend().supports_defer and run_after > timezone.now():
            task = task.using(run_after=run_after)
        enqueue_in_transaction(task, batch_id=batch.pk)
    return f"{rows} rows, {emails} emails; next chunk at {run_after.isoformat()}"
