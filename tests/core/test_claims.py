"""core.claims: a sweep's claim of one row by id, in a transaction of its own, skipping a row that
no longer matches the sweep's queryset or that another transaction holds (the last on PostgreSQL,
where rows are locked; SQLite has no row locks)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from django.db import connection, transaction

from accounts.models import Organization
from core.claims import claim_one

row_locks = pytest.mark.skipif(
    not connection.features.has_select_for_update_skip_locked,
    reason="the database has no row locks (SQLite)",
)


@pytest.mark.django_db
def test_the_row_is_returned_in_a_transaction_that_commits_when_the_block_ends(
    organization: Organization,
) -> None:
    rows = Organization.objects.filter(slug="acme")
    outside = connection.in_atomic_block

    with claim_one(rows, organization.pk) as claimed:
        assert claimed == organization
        assert connection.in_atomic_block
        assert claimed is not None
        claimed.name = "Acme Renamed"
        claimed.save(update_fields=["name"])

    assert connection.in_atomic_block == outside
    organization.refresh_from_db()
    assert organization.name == "Acme Renamed"


@pytest.mark.django_db
def test_a_row_the_queryset_no_longer_holds_is_none(organization: Organization) -> None:
    rows = Organization.objects.filter(slug="acme")
    Organization.objects.filter(pk=organization.pk).update(slug="acme-moved")

    with claim_one(rows, organization.pk) as claimed:
        assert claimed is None
    with claim_one(rows, organization.pk + 1000) as claimed:
        assert claimed is None


@pytest.mark.django_db
def test_what_the_block_did_is_rolled_back_when_it_raises(organization: Organization) -> None:
    def sweep() -> None:
        with claim_one(Organization.objects.all(), organization.pk) as claimed:
            assert claimed is not None
            claimed.name = "Never Saved"
            claimed.save(update_fields=["name"])
            raise RuntimeError("the sweep failed")

    with pytest.raises(RuntimeError, match="the sweep failed"):
        sweep()

    organization.refresh_from_db()
    assert organization.name == "Acme Inc."


@contextmanager
def another_transaction(work: Callable[[], None]) -> Iterator[None]:
    """Runs ``work`` in a transaction on another connection (a thread), which stays open until
    the block ends."""
    ready, done = threading.Event(), threading.Event()
    failures: list[BaseException] = []

    def run() -> None:
        try:
            with transaction.atomic():
                work()
                ready.set()
                done.wait(30)
        except BaseException as error:  # noqa: BLE001 - reported by the test's thread
            failures.append(error)
            ready.set()
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    assert ready.wait(30)
    try:
        yield
    finally:
        done.set()
        thread.join(30)
    assert failures == []


@row_locks
@pytest.mark.django_db(transaction=True)
def test_a_row_another_transaction_has_locked_is_skipped_not_waited_for(
    organization: Organization,
) -> None:
    def lock() -> None:
        Organization.objects.select_for_update().get(pk=organization.pk)

    with (
        another_transaction(lock),
        claim_one(Organization.objects.all(), organization.pk) as claimed,
    ):
        assert claimed is None

    with claim_one(Organization.objects.all(), organization.pk) as claimed:
        assert claimed == organization  # once the other transaction has ended


@row_locks
@pytest.mark.django_db(transaction=True)
def test_the_claimed_row_stays_locked_until_the_block_ends(organization: Organization) -> None:
    seen: list[list[int]] = []

    def look() -> None:
        rows = Organization.objects.select_for_update(skip_locked=True).filter(pk=organization.pk)
        seen.append(list(rows.values_list("pk", flat=True)))

    with claim_one(Organization.objects.all(), organization.pk) as claimed:
        assert claimed == organization
        with another_transaction(look):
            pass
    with another_transaction(look):
        pass

    assert seen == [[], [organization.pk]]
