"""The tests' own teardown after a committing test (tests/db_flush.py) leaves every table a test
can write empty and keeps content types and permissions, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import re
from pathlib import Path

from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test import TransactionTestCase

from accounts.models import User
from accounts.services import api_key_create, member_add, organization_create
from tests import db_flush

ROOT = Path(__file__).resolve().parents[1]


def _rows(table: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM {connection.ops.quote_name(table)}")  # noqa: S608
        return int(cursor.fetchone()[0])


def test_the_teardown_is_installed() -> None:
    assert TransactionTestCase._fixture_teardown is db_flush._fixture_teardown


def test_every_written_table_is_emptied_and_content_types_kept(transactional_db: None) -> None:
    content_types, permissions = ContentType.objects.count(), Permission.objects.count()
    assert content_types > 20  # what migrations wrote
    assert permissions > 80
    organization = organization_create(slug="flushed", name="Flushed")
    owner = User.objects.create_user(username="flush-owner", email="o@example.com")
    owner.user_permissions.add(Permission.objects.first())  # an m2m row that refers to a kept one
    member_add(organization=organization, user=owner, role="owner")
    api_key_create(organization=organization, kind="development", name="k", user=owner)
    written = {name for name in db_flush.tables_to_empty("default") if _rows(name)}
    assert {"accounts_organization", "accounts_user", "accounts_apikey"} <= written

    emptied = db_flush.empty_tables("default")

    assert set(emptied) == written
    assert [name for name in db_flush.tables_to_empty("default") if _rows(name)] == []
    assert ContentType.objects.count() == content_types
    assert Permission.objects.count() == permissions
    assert db_flush.empty_tables("default") == []  # nothing left to delete


def test_no_test_needs_djangos_own_teardown() -> None:
    """available_apps and serialized rollbacks rely on flush's post_migrate handling, which the
    tests' teardown does not run."""
    pattern = re.compile(r"\b(available_apps|serialized_rollback)\b")
    users = [
        str(path.relative_to(ROOT))
        for path in ROOT.rglob("*.py")
        if path.name not in {"db_flush.py", "test_db_flush.py"}
        and pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert users == []


def test_kept_tables_exist(db: None) -> None:
    names = set(connection.introspection.django_table_names(only_existing=True))
    assert names >= db_flush.KEPT_TABLES
