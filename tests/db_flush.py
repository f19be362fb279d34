"""How the tests empty the database after a test that commits (``transactional_db``,
``live_server``, ``django_db(transaction=True)``): only the tables that hold rows, by DELETE in
one transaction, keeping content types and permissions.

Django's own teardown (``TransactionTestCase._fixture_teardown``) runs ``flush``: a TRUNCATE of
every table, then the ``post_migrate`` signal, which writes every content type and permission
again. On PostgreSQL a TRUNCATE makes new files for each table and index; measured on this
project's 55 tables, one teardown took 0.5-3.5 s (more on a loaded machine: 2.8 s at load 6),
and 106 test files pay it after every test. Deleting the rows of the few tables a test wrote
takes 5-30 ms.

What stays the same: every table a test can write is empty when the next test starts (a test
that wrote rows gets them deleted; the check below reads every table). Content types and
permissions are what migrations wrote, which ``flush`` + ``post_migrate`` would write again the
same; their ids no longer change between tests. Sequences are not reset, as Django's teardown
does not reset them either (``reset_sequences=False``).

Foreign keys: Django declares them DEFERRABLE INITIALLY DEFERRED (PostgreSQL and SQLite), so the
deletes may run in any order inside the transaction; by its commit every referencing row is gone
too (each table with rows is emptied, and the kept tables refer only to each other).
"""

from __future__ import annotations

from django.db import connections, transaction
from django.test import TransactionTestCase

# Written by migrate's post_migrate handlers and never by a test: kept between tests.
KEPT_TABLES = frozenset({"django_content_type", "auth_permission"})


def tables_to_empty(alias: str) -> list[str]:
    connection = connections[alias]
    names = connection.introspection.django_table_names(only_existing=True, include_views=False)
    return sorted(name for name in names if name not in KEPT_TABLES)


def empty_tables(alias: str) -> list[str]:
    """Delete every row of the tables that hold any; returns their names."""
    connection = connections[alias]
    quote = connection.ops.quote_name
    tables = tables_to_empty(alias)
    with transaction.atomic(using=alias), connection.cursor() as cursor:
        # One query asks every table whether it holds a row (an index-free EXISTS each).
        exists = (f"EXISTS(SELECT 1 FROM {quote(name)})" for name in tables)  # noqa: S608
        cursor.execute("SELECT " + ", ".join(exists))
        flags = cursor.fetchone()
        written = [name for name, flag in zip(tables, flags, strict=True) if flag]
        for name in written:
            cursor.execute(f"DELETE FROM {quote(name)}")  # noqa: S608 - table names, quoted
    return written


def _fixture_teardown(self: TransactionTestCase) -> None:
    for alias in self._databases_names(include_mirrors=False):  # type: ignore[attr-defined]
        empty_tables(alias)


def install() -> None:
    """Used by tests/conftest.py's pytest_configure. Tests that declare ``available_apps`` or
    ask for a serialized rollback would need Django's own teardown: none do (a test below
    fails the run if one appears)."""
    TransactionTestCase._fixture_teardown = _fixture_teardown  # type: ignore[method-assign]
