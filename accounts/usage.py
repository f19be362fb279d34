"""API requests counted per key per day (UTC).

Off the request's path: a request adds one to a counter of its process, and the process writes
its counters (one upsert per key and day) at most every ``API_KEY_USAGE_FLUSH_SECONDS``, when a
request comes after that long, before the usage is read (:func:`api_key_usage`) and when it
exits. A process killed outright loses at most that many seconds of its counts: they are usage
statistics, not limits (those are accounts.ratelimit's).
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
from collections import Counter
from datetime import date, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from accounts.models import ApiKey, ApiKeyUsage

_TABLE = ApiKeyUsage._meta.db_table
# One statement, atomic on SQLite (3.24+) and PostgreSQL alike: no read-modify-write race.
# From the key's row: a key deleted since (its organization deleted) counts nothing, no error.
_KEYS = ApiKey._meta.db_table
_UPSERT = (
    f"INSERT INTO {_TABLE} (api_key_id, day, count) "  # noqa: S608 - fixed names
    f"SELECT id, %s, %s FROM {_KEYS} WHERE id = %s "
    f"ON CONFLICT (api_key_id, day) DO UPDATE SET count = {_TABLE}.count + %s"
)


logger = logging.getLogger(__name__)

_pending: Counter[tuple[int, date]] = Counter()
_lock = threading.Lock()
_last_flush = time.monotonic()


def api_key_usage_count(*, api_key: ApiKey, day: date | None = None) -> None:
    """Count one request of ``api_key`` on ``day`` (default: today, UTC), in this process; the
    counts are written every ``API_KEY_USAGE_FLUSH_SECONDS`` (at once when it is 0)."""
    day = day or timezone.now().date()
    with _lock:
        _pending[(api_key.pk, day)] += 1
        due = time.monotonic() - _last_flush >= settings.API_KEY_USAGE_FLUSH_SECONDS
    if due:
        api_key_usage_flush()


def api_key_usage_flush() -> None:
    """Write this process's counts (one upsert per key and day) and start again from zero."""
    global _last_flush
    with _lock:
        counts = dict(_pending)
        _pending.clear()
        _last_flush = time.monotonic()
    if not counts:
        return
    try:
        # A savepoint: a failure here never spoils the transaction of the request it runs in.
        with transaction.atomic(), connection.cursor() as cursor:
            for (key_id, day), count in counts.items():
                cursor.execute(_UPSERT, [day, count, key_id, count])
    except Exception:
        with _lock:  # tried again at the next flush
            _pending.update(counts)
        logger.exception("API key usage counts not written; kept for the next try")


def _flush_at_exit() -> None:
    try:
        api_key_usage_flush()
    except Exception:  # noqa: BLE001 - the process is exiting: nothing else to do
        logger.warning("API key usage counts lost at exit", exc_info=True)


atexit.register(_flush_at_exit)


def api_key_usage(
    *, organization_id: int, days: int = 14, today: date | None = None
) -> tuple[list[date], list[tuple[ApiKey, list[int]]]]:
    """The last ``days`` days (newest first) and, per key of the organization that made any
    request in them, its count on each of those days."""
    api_key_usage_flush()  # this process's own counts first
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
