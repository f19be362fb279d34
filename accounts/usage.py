"""API requests counted per key per day (UTC): one upsert per authenticated request."""

from __future__ import annotations

from datetime import date, timedelta

from django.db import connection
from django.utils import timezone

from accounts.models import ApiKey, ApiKeyUsage

_TABLE = ApiKeyUsage._meta.db_table
# One statement, atomic on SQLite (3.24+) and PostgreSQL alike: no read-modify-write race.
_UPSERT = (
    f"INSERT INTO {_TABLE} (api_key_id, day, count) VALUES (%s, %s, 1) "  # noqa: S608 - fixed name
    f"ON CONFLICT (api_key_id, day) DO UPDATE SET count = {_TABLE}.count + 1"
)


def api_key_usage_count(*, api_key: ApiKey, day: date | None = None) -> None:
    """Count one request of ``api_key`` on ``day`` (default: today, UTC)."""
    day = day or timezone.now().date()
    with connection.cursor() as cursor:
        cursor.execute(_UPSERT, [api_key.pk, day])


def api_key_usage(
    *, organization_id: int, days: int = 14, today: date | None = None
) -> tuple[list[date], list[tuple[ApiKey, list[int]]]]:
    """The last ``days`` days (newest first) and, per key of the organization that made any
    request in them, its count on each of those days."""
    today = today or timezone.now().date()
    span = [today - timedelta(days=n) for n in range(days)]
    rows = ApiKeyUsage.objects.filter(
        api_key__organization_id=organization_id, day__gte=span[-1], day__lte=today
    ).values_list("api_key_id", "day", "count")
    counts: dict[int, dict[date, int]] = {}
    for key_id, day, count in rows:
        counts.setdefault(key_id, {})[day] = count
    keys = ApiKey.objects.filter(pk__in=counts).order_by("-created_at")
    return span, [(key, [counts[key.pk].get(day, 0) for day in span]) for key in keys]
