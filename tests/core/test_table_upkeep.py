"""The tables the service churns are vacuumed by the sweep when PostgreSQL's autovacuum is off
(core.table_upkeep): at most every TABLE_UPKEEP_SECONDS by the clock the sweep is given, never
inside a transaction, one worker at a time, and not at all with autovacuum on. PostgreSQL only
(CI runs it; SQLite has no such bloat): the vacuums are counted by PostgreSQL's own statistics."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from django.db import connection, transaction

from core import table_upkeep
from core.sweeps import sweeps_registered

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="VACUUM is PostgreSQL's (CI runs it)"
    ),
]
NOW = datetime(2031, 5, 6, 7, 0, tzinfo=UTC)
TASKS = "django_tasks_database_dbtaskresult"


@pytest.fixture
def autovacuum_off(monkeypatch: pytest.MonkeyPatch, settings: Any) -> None:
    """A server with autovacuum off, as CI's (read, not changed: the test's server is shared)."""
    settings.TABLE_UPKEEP_SECONDS = 30
    monkeypatch.setattr(table_upkeep, "_last_run", None)
    monkeypatch.setattr(table_upkeep, "autovacuum_on", lambda: False)


def vacuums(table: str = TASKS) -> tuple[int, int]:
    """The table's vacuums and analyzes so far (VACUUM (ANALYZE) counts one of each)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT vacuum_count, analyze_count FROM pg_stat_user_tables WHERE relname = %s",
            [table],
        )
        vacuumed, analyzed = cursor.fetchone()
    return vacuumed, analyzed


def plus_one(counts: tuple[int, int]) -> tuple[int, int]:
    return counts[0] + 1, counts[1] + 1


def test_the_churned_tables_are_vacuumed_when_due(autovacuum_off: None) -> None:
    assert "core.table_upkeep" in sweeps_registered()
    before = {table: vacuums(table) for table in table_upkeep.churned_tables()}

    assert table_upkeep.tables_upkeep(now=NOW) == 0  # it enqueues nothing again
    after = {table: vacuums(table) for table in before}

    assert after == {table: plus_one(counts) for table, counts in before.items()}
    # The queues' tables, the outboxes' (seals, emails, renewals, deliveries), the attempts, the
    # signers and documents written at each signature, and the rate-limit counters.
    assert {
        TASKS,
        "webhooks_webhookdelivery",
        "webhooks_webhookattempt",
        "esign_packet",
        "esign_signeremail",
        "esign_signer",
        "esign_packetdocument",
        "api_rate_limit_cache",
    } <= set(before)


def test_at_most_once_an_interval(autovacuum_off: None) -> None:
    table_upkeep.tables_upkeep(now=NOW)
    first = vacuums()

    table_upkeep.tables_upkeep(now=NOW + timedelta(seconds=29))
    assert vacuums() == first
    table_upkeep.tables_upkeep(now=NOW + timedelta(seconds=30))
    assert vacuums() == plus_one(first)


def test_nothing_inside_a_transaction_or_with_autovacuum_on(
    autovacuum_off: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = vacuums()
    with transaction.atomic():
        assert table_upkeep.tables_upkeep(now=NOW) == 0  # VACUUM would fail in one
    monkeypatch.setattr(table_upkeep, "autovacuum_on", lambda: True)
    table_upkeep.tables_upkeep(now=NOW)

    assert vacuums() == before


def test_one_worker_at_a_time(autovacuum_off: None) -> None:
    """While another worker holds the upkeep's lock, this one leaves it to that one."""
    settings_dict = connection.settings_dict
    other = psycopg.connect(
        host=settings_dict["HOST"],
        port=settings_dict["PORT"],
        user=settings_dict["USER"],
        password=settings_dict["PASSWORD"] or None,
        dbname=settings_dict["NAME"],
        autocommit=True,
    )
    before = vacuums()
    try:
        other.execute("SELECT pg_advisory_lock(%s)", [table_upkeep.ADVISORY_LOCK_KEY])
        table_upkeep.tables_upkeep(now=NOW)
        assert vacuums() == before
    finally:
        # Let go before closing: a closed session's locks go when its server process has
        # ended, which may be after the next line has tried for the lock (CI lost it once).
        other.execute("SELECT pg_advisory_unlock(%s)", [table_upkeep.ADVISORY_LOCK_KEY])
        other.close()
    table_upkeep.tables_upkeep(now=NOW + timedelta(seconds=60))
    assert vacuums() == plus_one(before)


def test_off_at_zero(autovacuum_off: None, settings: Any) -> None:
    settings.TABLE_UPKEEP_SECONDS = 0
    before = vacuums()
    table_upkeep.tables_upkeep(now=NOW)
    assert vacuums() == before
