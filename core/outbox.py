"""Outbox rows: a row that stands for work a task does later (a signer's email, a webhook
delivery, a packet's seal, a sealed file's archive timestamp renewal), and the one way to claim
it, finish it, retry or fail it, and recover it when its worker died.

Such a row is written in the transaction that makes the work due, with its task
(``core.background``). What the work needs besides the row's own data is, in each model, a field
for each of these roles (:class:`Outbox` names them, so a model keeps its own column names):

- ``status``: moved only through the model's table of moves (:class:`Moves`); a move the table
  does not allow raises :class:`MoveRefused` and changes nothing. Rows still to do have one of
  ``waiting``; ``failed`` is where they go when the retries ran out.
- ``attempts``: how many attempts were made (counted when an attempt is claimed) or failed
  (counted at the failure, for work that an attempt lost with its worker should not use up: a
  seal is tried again as if that attempt had not been made).
- ``due_at``: when the next attempt is due (cleared, when it may be null, once nothing is due).
  A row still to do whose ``due_at`` is null (a seal pending since its packet completed) has been
  due since it last changed: its ``updated_at`` (which :meth:`Outbox.move_all` sets too).
- ``leased_until``: set while an attempt is under way (:meth:`Outbox.claim`, by the attempt
  before its slow work); an attempt whose lease ran out was lost with its worker, and
  :meth:`Outbox.recover` (a sweep) hands the row back.
- ``last_error``: what the last failed attempt said.

Not an abstract model with these fields: a packet's seal lives on the packet, beside the
packet's own ``status``, and the columns keep the names that the admin, the GraphQL types and the
tests read (``attempt_count``, ``next_attempt_at``, ``claimed_until``, ``seal_retry_at``,
``seal_leased_until``).

The caller holds the row's lock (``select_for_update``) and saves the fields the methods set
(:attr:`Outbox.fields`, plus its own), in the transaction that records the outcome with its
audit entry and events: the moves are the rows' lifecycle, as ``esign.packets.lifecycle`` is the
packet's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cached_property
from typing import Any, Literal

from django.core.exceptions import FieldDoesNotExist
from django.db import models, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from core.background import RETRY_JITTER, TaskRef, retry_later
from core.errors import Conflict
from core.row_writes import rows_update
from core.table_upkeep import churned


class MoveRefused(Conflict):
    """A status change the row's table of moves does not allow; nothing was written."""


@dataclass(frozen=True)
class Moves:
    """The statuses a status may become: ``{status: {statuses it may become}}``. A status that
    may stay as it is (a seal retried again) lists itself.

    An :class:`Outbox` moves its rows' status through its table; a row that is no outbox (a bulk
    send and its rows, a generate job: work whose task is its own lease) moves through its table
    alone, by :meth:`move` (a row the caller locked) or :meth:`move_all` (a compare-and-set)."""

    name: str  # what moves ("webhook delivery"), for the refusal's message
    table: Mapping[str, frozenset[str]]

    def allows(self, current: str, to: str) -> bool:
        return to in self.table.get(current, frozenset())

    def check(self, current: str, to: str) -> None:
        if not self.allows(current, to):
            raise MoveRefused(
                f"The {self.name} is {current or 'not started'}; it cannot become {to}."
            )

    def sources(self, to: str) -> list[str]:
        """The statuses from which ``to`` may be reached."""
        return [status for status, targets in self.table.items() if to in targets]

    def move(self, row: Any, to: str, *, field: str = "status") -> None:
        """Set the row's ``field`` to ``to`` (saved by the caller); MoveRefused, and nothing set,
        if the table does not allow it."""
        self.check(getattr(row, field), to)
        setattr(row, field, to)

    def move_all(self, rows: QuerySet[Any], to: str, *, field: str = "status", **also: Any) -> int:
        """Move every row of ``rows`` that may become ``to`` (one UPDATE, with ``also``): a
        compare-and-set, the others are left as they are. Returns how many moved."""
        allowed = rows.filter(**{f"{field}__in": self.sources(to)})
        return allowed.update(**{field: to, **also})


# A recovery's handler: the rows of one kind (their lease ran out: the attempt was abandoned; or
# they were due long ago with no lease: their task was lost), claimed at once; how many count.
RecoverAll = Callable[[list[Any], bool], int]


@dataclass(frozen=True)
class Recovered:
    abandoned: int  # rows whose attempt's lease ran out, handed back
    lost: int  # rows due long ago that no attempt had taken, handed back


@dataclass(frozen=True)
class Outbox:
    """The outbox fields of ``model`` by role, its table of moves, and the moves of its work."""

    model: type[models.Model]
    moves: Moves
    waiting: frozenset[str]  # statuses of rows whose work is still to do
    failed: str  # where a row goes once its retries ran out (or cannot help)
    retrying: str | None = None  # the status of a row whose retry is scheduled; None: it stays
    status: str = "status"
    attempts: str = "attempts"
    due_at: str = "due_at"
    leased_until: str = "leased_until"
    last_error: str = "last_error"
    count_attempts: Literal["claimed", "failed"] = "claimed"

    def __post_init__(self) -> None:
        churned(self.model)  # its rows move through their statuses: vacuumed (core.table_upkeep)

    @cached_property  # not at import: the model's fields are complete once its module is read
    def fields(self) -> tuple[str, ...]:
        """The fields these methods may set, to save with the row (``update_fields``)."""
        names = [self.status, self.attempts, self.due_at, self.leased_until, self.last_error]
        try:
            self.model._meta.get_field("updated_at")
            names.append("updated_at")
        except FieldDoesNotExist:
            pass
        return tuple(names)

    # --- status ---------------------------------------------------------------------------------

    def move(self, row: Any, to: str) -> None:
        """Set the row's status to ``to`` (saved by the caller); MoveRefused if the table does
        not allow it."""
        self.moves.move(row, to, field=self.status)

    def move_all(self, rows: QuerySet[Any], to: str, **also: Any) -> int:
        """Move every row of ``rows`` that may become ``to`` (one UPDATE, with ``also``); the
        others are left as they are. Returns how many moved."""
        touched = dict.fromkeys(self._touched(), timezone.now())  # due since now, if it is due
        return self.moves.move_all(rows, to, field=self.status, **touched, **also)

    # --- the work -------------------------------------------------------------------------------

    def due(self, now: datetime) -> QuerySet[Any]:
        """Rows whose work is to do now and that no attempt holds."""
        rows = self.model._default_manager.filter(**{f"{self.status}__in": self.waiting})
        rows = rows.filter(
            Q(**{f"{self.due_at}__isnull": True}) | Q(**{f"{self.due_at}__lte": now})
        )
        return rows.filter(**{f"{self.leased_until}__isnull": True})

    def leased(self, row: Any, now: datetime) -> bool:
        """Whether an attempt holds the row (its lease has not run out)."""
        until = getattr(row, self.leased_until)
        return until is not None and until > now

    def claim(self, rows: Sequence[Any], *, now: datetime, lease: timedelta) -> None:
        """Take ``rows`` (locked by the caller) for one attempt each, until ``now + lease``, and
        save that (one UPDATE): a second claim of the same rows finds them leased."""
        for row in rows:
            if self.count_attempts == "claimed":
                setattr(row, self.attempts, getattr(row, self.attempts) + 1)
            setattr(row, self.leased_until, now + lease)
            self._touch(row, now)
        written = [self.leased_until, *self._touched()]
        if self.count_attempts == "claimed":
            written.append(self.attempts)
        rows_update(rows, written)

    def finish(self, row: Any, to: str, *, now: datetime) -> None:
        """The work is done (or ended): move to ``to``, release the lease, nothing more is due."""
        self.move(row, to)
        self._release(row)
        self._nothing_due(row)
        self._touch(row, now)

    def fail(self, row: Any, *, now: datetime) -> None:
        """No more attempts: move to ``failed``."""
        self.finish(row, self.failed, now=now)

    def retry_or_fail(
        self,
        row: Any,
        *,
        error: str,
        task: TaskRef,
        kwargs: Mapping[str, Any],
        attempt: int,
        delays: Sequence[float],
        jitter: float = RETRY_JITTER,
        now: datetime,
        retryable: bool = True,
    ) -> datetime | None:
        """Record a failed attempt (number ``attempt``) and enqueue the next one after
        ``delays`` (``core.background.retry_later``, in the caller's transaction); once they ran
        out, or when the error cannot go away by itself (not ``retryable``), fail the row. The
        time of the retry, or None when the row failed."""
        retry_at = None
        if retryable:
            retry_at = retry_later(
                task, kwargs=kwargs, attempt=attempt, delays=delays, jitter=jitter, now=now
            )
        self.attempt_failed(row, error=error, retry_at=retry_at, now=now)
        return retry_at

    def attempt_failed(
        self, row: Any, *, error: str, retry_at: datetime | None, now: datetime
    ) -> None:
        """Record a failed attempt: the row is due again at ``retry_at`` (released, and moved to
        ``retrying`` if there is one), or fails when it is None. :meth:`retry_or_fail` enqueues
        the retry's task first; work that its sweep retries (no task waits for the retry: an
        archive timestamp renewal) calls this alone."""
        if self.count_attempts == "failed":
            setattr(row, self.attempts, getattr(row, self.attempts) + 1)
        setattr(row, self.last_error, error[: self._max_length(self.last_error)])
        if retry_at is None:
            self.fail(row, now=now)
            return
        if self.retrying is not None:
            self.move(row, self.retrying)
        self._release(row)
        setattr(row, self.due_at, retry_at)
        self._touch(row, now)

    def recover(
        self,
        *,
        now: datetime,
        grace: timedelta,
        handle_all: RecoverAll,
        limit: int = 1000,
    ) -> Recovered:
        """Hand back the rows whose work was lost, with their lease released (rows another
        process holds are skipped): first those whose attempt's lease ran out (``abandoned``:
        its worker died), then those due for longer than ``grace`` that no attempt holds (their
        task was lost, or waits in a long queue: the handler may look). At most ``limit`` of
        each, by ascending pk. Safe in several processes at once.

        ``handle_all(rows, abandoned)``: each kind's rows are claimed at once, one
        ``SELECT ... FOR UPDATE SKIP LOCKED`` in one transaction, and handed over together; the
        handler saves them in bulk (and enqueues their tasks again, or fails them) and returns
        how many count. A sweep's cost is then a few queries, whatever the backlog (one
        transaction per row, each with its own look at the task table, took half of every
        worker's time once 1,000 deliveries waited behind seals)."""
        waiting = self.model._default_manager.filter(**{f"{self.status}__in": self.waiting})
        since = now - grace
        overdue = Q(**{f"{self.due_at}__lt": since})
        if self._touched():  # due with no due time: since it was last moved
            overdue |= Q(**{f"{self.due_at}__isnull": True, "updated_at__lt": since})
        counts = []
        for abandoned in (True, False):
            if abandoned:
                rows = waiting.filter(**{f"{self.leased_until}__lt": now})
            else:
                rows = waiting.filter(overdue, **{f"{self.leased_until}__isnull": True})
            counts.append(self._recover_all(rows, abandoned, handle_all, limit))
        return Recovered(abandoned=counts[0], lost=counts[1])

    def _recover_all(
        self, rows: QuerySet[Any], abandoned: bool, handle_all: RecoverAll, limit: int
    ) -> int:
        with transaction.atomic():
            # Only this table's rows are locked (``of``), and never waited for (SKIP LOCKED):
            # the sweep cannot take part in a deadlock with a delivery or another sweep.
            claimed = list(
                rows.select_for_update(skip_locked=True, of=("self",)).order_by("pk")[:limit]
            )
            if not claimed:
                return 0
            for row in claimed:
                self._release(row)
            return handle_all(claimed, abandoned)

    # --- helpers --------------------------------------------------------------------------------

    def _release(self, row: Any) -> None:
        setattr(row, self.leased_until, None)

    def _nothing_due(self, row: Any) -> None:
        if getattr(self.model._meta.get_field(self.due_at), "null", False):
            setattr(row, self.due_at, None)  # else (never null) it keeps the last due time

    def _touched(self) -> list[str]:
        return ["updated_at"] if "updated_at" in self.fields else []

    def _touch(self, row: Any, now: datetime) -> None:
        if self._touched():
            row.updated_at = now

    def _max_length(self, name: str) -> int | None:
        return getattr(self.model._meta.get_field(name), "max_length", None)
