"""The tables the service churns are vacuumed by its workers when PostgreSQL's autovacuum is off.

Every task, delivery, seal and email is a row that is written several times (ready, running,
finished), and the indexes the claims read (core's ready tasks, pending deliveries) keep an
entry for each old version until VACUUM removes it; a bitmap scan never marks such an entry dead,
so without VACUUM every claim reads every row its queue ever held. On a server with autovacuum
off (some CI and hand-tuned setups turn it off), a delivery claim read 4,401 index entries to
find 30 after 1,000 packets (1.9 ms, against 0.15 ms vacuumed), and every claim, seal and sweep
grew slower with each packet: seals a second at 1,000 packets fell to 85% of 300's.

So with autovacuum off, one worker at a time (an advisory lock) runs ``VACUUM (ANALYZE)`` on the
registered tables every TABLE_UPKEEP_SECONDS, from the sweep; ANALYZE also gives the planner row
counts that tables created empty never get. With autovacuum on (PostgreSQL's default) this does
nothing: autovacuum does it by each table's own churn. SQLite: nothing (no such bloat to undo).

An app registers its churned models with :func:`churned`; an ``Outbox`` registers its own.
"""

from __future__ import annotations

from datetime import datetime

from django.apps import apps
from django.conf import settings
from django.db import connection, models

from core.sweeps import sweep

# pg_try_advisory_lock's key: one vacuuming worker at a time ("upkeep" in ASCII).
ADVISORY_LOCK_KEY = 0x7570_6B65_6570
_churned: set[str] = {"django_tasks_database.DBTaskResult"}  # every task's row
_last_run: datetime | None = None  # this process's last upkeep


def churned(*models_: type[models.Model] | str) -> None:
    """Register models (or ``"app.Model"`` labels) whose rows are updated over and over."""
    _churned.update(m if isinstance(m, str) else m._meta.label for m in models_)


def churned_tables() -> list[str]:
    """The registered models' tables, and the rate-limit counters' when they are a table."""
    tables = {apps.get_model(label)._meta.db_table for label in _churned}
    limits = settings.CACHES.get("ratelimit", {})
    if limits.get("BACKEND") == "core.cache.CounterDatabaseCache":
        tables.add(limits["LOCATION"])
    return sorted(tables)


def autovacuum_on() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SHOW autovacuum")
        return cursor.fetchone()[0] == "on"


@sweep("core.table_upkeep")
def tables_upkeep(*, now: datetime) -> int:
    """VACUUM (ANALYZE) the churned tables if due and autovacuum is off; returns 0 (it enqueues
    nothing again: the sweep's count is of lost work)."""
    global _last_run  # noqa: PLW0603 - one clock per process
    interval = settings.TABLE_UPKEEP_SECONDS
    if connection.vendor != "postgresql" or interval <= 0:
        return 0
    if _last_run is not None and (now - _last_run).total_seconds() < interval:
        return 0
    # VACUUM cannot run in a transaction; a sweep called inside one (a test) leaves it.
    if connection.in_atomic_block or autovacuum_on():
        return 0
    _last_run = now
    tables = ", ".join(connection.ops.quote_name(t) for t in churned_tables())
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [ADVISORY_LOCK_KEY])
        if not cursor.fetchone()[0]:  # another worker is at it
            return 0
        try:
            cursor.execute(f"VACUUM (ANALYZE) {tables}")
        finally:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [ADVISORY_LOCK_KEY])
    return 0
