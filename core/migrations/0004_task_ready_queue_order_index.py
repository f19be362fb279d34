"""An index of the ready tasks per queue in the order a worker claims them (core.worker's
``claim_next``: priority, then due time, then age), for a worker that serves some queues only
(``--queue-name default``, and a worker's delivery lane, ``webhooks``).

django-tasks-db's own partial index (``tasks_db_new_ordering_idx``) has that order for all queues
at once, so a worker of one queue walked past the other queue's ready tasks, or (what PostgreSQL
chose with a few thousand ready) read every ready task of its queue through core's 0003 index and
sorted them: 3.6 ms a claim with 1,000 seals and 6,000 deliveries ready, growing with the backlog,
against 0.08 ms with this index (EXPLAIN ANALYZE, PostgreSQL 15). Partial, as 0003 is (only the
ready rows, a few among the finished ones that the table keeps); raw SQL on django-tasks-db's table,
which its migrations do not know about; built CONCURRENTLY on PostgreSQL.
"""

from django.db import migrations

INDEX = "core_task_ready_queue_order_idx"


def _table(apps, schema_editor) -> str:
    model = apps.get_model("django_tasks_database", "DBTaskResult")
    return schema_editor.quote_name(model._meta.db_table)


def create(apps, schema_editor) -> None:
    concurrently = "CONCURRENTLY " if schema_editor.connection.vendor == "postgresql" else ""
    schema_editor.execute(
        f"CREATE INDEX {concurrently}IF NOT EXISTS {INDEX} ON {_table(apps, schema_editor)} "
        "(queue_name, priority DESC, run_after, enqueued_at) WHERE status = 'READY'"
    )


def drop(apps, schema_editor) -> None:
    schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    atomic = False  # CREATE INDEX CONCURRENTLY cannot run in a transaction

    dependencies = [("core", "0003_task_unfinished_index")]

    operations = [migrations.RunPython(create, drop, elidable=False)]
