"""core.row_writes.rows_update: what Django's bulk_update writes, always in one UPDATE, a plain
one when the rows hold the same values (bulk_update's CASE per field and row was 47% of the
delivery worker's CPU)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import Organization
from core.row_writes import rows_update
from webhooks.models import WebhookEvent

pytestmark = pytest.mark.django_db


def events(count: int) -> list[WebhookEvent]:
    organization = Organization.objects.create(slug="rows", name="Rows")
    return [
        WebhookEvent.objects.create(
            eid=f"ev{n:03d}", action="webhookTest", data={"n": n}, organization=organization
        )
        for n in range(count)
    ]


def updates(captured: CaptureQueriesContext) -> int:
    return sum(q["sql"].lstrip().upper().startswith("UPDATE") for q in captured.captured_queries)


def test_rows_with_the_same_values_are_one_update() -> None:
    rows = events(10)
    later = timezone.now() + timedelta(days=1)
    for row in rows:
        row.created_at, row.action = later, "weldComplete"

    with CaptureQueriesContext(connection) as captured:
        rows_update(rows, ["created_at", "action"])

    assert updates(captured) == 1
    stored = list(WebhookEvent.objects.order_by("pk").values_list("created_at", "action"))
    assert stored == [(later, "weldComplete")] * 10


def test_rows_that_differ_are_written_each_with_its_own_values() -> None:
    rows = events(4)
    for n, row in enumerate(rows):
        row.action = "weldComplete" if n % 2 else "forgeComplete"
        row.data = {"changed": n}  # a JSON value

    with CaptureQueriesContext(connection) as captured:
        rows_update(rows, ["action"])
        rows_update(rows, ["data"])
        rows_update([], ["action"])

    assert updates(captured) == 2  # one each, however many rows differ
    stored = list(WebhookEvent.objects.order_by("pk").values_list("action", "data"))
    assert stored == [
        ("forgeComplete", {"changed": 0}),
        ("weldComplete", {"changed": 1}),
        ("forgeComplete", {"changed": 2}),
        ("weldComplete", {"changed": 3}),
    ]


def test_only_the_named_fields_are_written() -> None:
    (row,) = events(1)
    row.action, row.eid = "weldComplete", "changed"

    rows_update([row], ["action"])

    assert WebhookEvent.objects.values_list("action", "eid").get() == ("weldComplete", "ev000")
