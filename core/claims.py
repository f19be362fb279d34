"""A sweep's claim of one row: lock it by id, skipping it if another process holds it.

A sweep (core.sweeps) reads the ids of the rows it may act on, then takes them one at a time,
each in its own transaction, so that one row's work commits (or fails) alone::

    for packet_id in list(due.order_by("pk").values_list("pk", flat=True)[:limit]):
        with claim_one(due, packet_id) as packet:
            if packet is None:
                continue  # changed meanwhile, or another sweep has it
            ...  # act on the locked packet; committed when the block ends

The row is read again through the sweep's own queryset under the lock, so a row that no longer
matches it (signed, finished, extended since the ids were read) is not returned, and neither is
one another process has locked (``SELECT ... FOR UPDATE SKIP LOCKED``: never waited for, so a
sweep takes no part in a deadlock). Where the database has no row locks (SQLite), Django leaves
the lock out and the row is read as it is; SQLite lets one writer at a time in any case.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

from django.db import models, transaction
from django.db.models import QuerySet

M = TypeVar("M", bound=models.Model)


@contextmanager
def claim_one(rows: QuerySet[M], pk: object) -> Iterator[M | None]:
    """In a transaction (committed when the block ends, rolled back if it raises): the row of
    ``rows`` whose primary key is ``pk``, locked, or None when ``rows`` no longer holds it or
    another transaction has it locked."""
    with transaction.atomic():
        yield rows.select_for_update(skip_locked=True).filter(pk=pk).first()
