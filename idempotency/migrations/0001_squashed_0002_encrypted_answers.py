"""The app's schema as its models declare it, in one migration (issue 53: the chain it replaces,
0001_initial to 0002_encrypted_answers, repeated itself). A database migrated to
0002_encrypted_answers takes it as applied; one between must first migrate with the release that
still holds the chain (docs/deployment.md, "Upgrading"). The chain's data steps changed existing
rows only.
"""

import core.fields
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    replaces = [
        ("idempotency", "0001_initial"),
        ("idempotency", "0002_encrypted_answers"),
    ]

    dependencies = [
        ("accounts", "0001_squashed_0004_sso_identity"),
    ]

    operations = [
        migrations.CreateModel(
            name="IdempotencyKey",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("key", models.CharField(max_length=255)),
                ("request_hash", models.CharField(max_length=64)),
                (
                    "state",
                    models.CharField(
                        choices=[("running", "Running"), ("done", "Done")],
                        default="running",
                        max_length=16,
                    ),
                ),
                (
                    "kept",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("body", "The answer is kept"),
                            ("nothing", "Nothing is kept: a retry does the work again"),
                            (
                                "too_large",
                                "The answer was larger than IDEMPOTENCY_MAX_STORED_BYTES",
                            ),
                        ],
                        max_length=16,
                    ),
                ),
                ("status_code", models.PositiveSmallIntegerField(blank=True, null=True)),
                ("content_type", models.CharField(blank=True, max_length=255)),
                ("body", core.fields.EncryptedBinaryField(blank=True, null=True)),
                ("created_at", models.DateTimeField()),
                ("expires_at", models.DateTimeField(db_index=True)),
                (
                    "organization",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="accounts.organization",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("organization", "key"), name="unique_idempotency_key"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("state__in", ["running", "done"])),
                        name="idempotency_key_state",
                    ),
                ],
            },
        ),
    ]
