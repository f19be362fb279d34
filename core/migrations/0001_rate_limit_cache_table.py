"""Create the database cache table(s) named in settings.CACHES (the rate-limit counters).

A migration, so that `manage.py migrate` is the only step an operator needs; createcachetable
is idempotent and does nothing for non-database caches.
"""

from django.core.management import call_command
from django.db import migrations


def create_cache_tables(apps, schema_editor):
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = []
    operations = [migrations.RunPython(create_cache_tables, migrations.RunPython.noop)]
