"""A database cache whose increments are atomic, for counters shared by several processes.

Django's DatabaseCache implements incr() as get-then-set, so two processes counting the same
rate-limit window can both read 3 and both write 4. Here the read and the write happen inside
one transaction with the row locked (SELECT ... FOR UPDATE on PostgreSQL; on SQLite the
IMMEDIATE transaction mode set in settings takes the database write lock at BEGIN).
"""

from __future__ import annotations

import base64
import pickle
from datetime import UTC, datetime
from typing import Any

from django.core.cache.backends.db import DatabaseCache
from django.db import connections, router, transaction


class CounterDatabaseCache(DatabaseCache):
    def incr(self, key: Any, delta: int = 1, version: int | None = None) -> int:
        key = self.make_and_validate_key(key, version=version)
        db = router.db_for_write(self.cache_model_class)
        connection = connections[db]
        q = connection.ops.quote_name
        table = q(self._table)
        lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
        now = connection.ops.adapt_datetimefield_value(datetime.now(tz=UTC).replace(microsecond=0))
        with transaction.atomic(using=db), connection.cursor() as cursor:
            cursor.execute(
                f"SELECT {q('value')} FROM {table} "  # noqa: S608 - identifiers are quoted names
                f"WHERE {q('cache_key')} = %s AND {q('expires')} >= %s{lock}",
                [key, now],
            )
            row = cursor.fetchone()
            if row is None:
                raise ValueError(f"Key '{key}' not found")
            value = pickle.loads(base64.b64decode(row[0].encode()))  # noqa: S301 - our own rows
            value += delta
            pickled = base64.b64encode(pickle.dumps(value, self.pickle_protocol)).decode("latin1")
            cursor.execute(
                f"UPDATE {table} SET {q('value')} = %s WHERE {q('cache_key')} = %s",  # noqa: S608
                [pickled, key],
            )
        return value
