"""The app's schema as its models declare it, in one migration (issue 53: the chain it replaces,
0001_initial to 0002_job_webhook_url, repeated itself). A database migrated to
0002_job_webhook_url takes it as applied; one between must first migrate with the release that
still holds the chain (docs/deployment.md, "Upgrading"). The chain's data steps changed existing
rows only.
"""

import core.eids
import core.fields
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    replaces = [
        ("generate", "0001_initial"),
        ("generate", "0002_job_webhook_url"),
    ]

    dependencies = [
        ("accounts", "0001_squashed_0004_sso_identity"),
    ]

    operations = [
        migrations.CreateModel(
            name="GenerateJob",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "eid",
                    core.fields.EidField(
                        default=core.eids.new_eid, editable=False, max_length=20, unique=True
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Pending"),
                            ("running", "Running"),
                            ("done", "Done"),
                            ("failed", "Failed"),
                        ],
                        default="pending",
                        max_length=10,
                    ),
                ),
                ("body", core.fields.EncryptedTextField(blank=True, default="")),
                ("watermark", models.BooleanField(default=False)),
                ("pages", models.PositiveIntegerField(blank=True, null=True)),
                ("pdf_path", models.CharField(blank=True, default="", max_length=300)),
                ("pdf_sha256", models.CharField(blank=True, default="", max_length=64)),
                ("error", models.JSONField(blank=True, null=True)),
                ("webhook_url", models.URLField(blank=True, default="", max_length=2000)),
                ("created_at", models.DateTimeField()),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                ("expires_at", models.DateTimeField(blank=True, null=True)),
                (
                    "organization",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="generate_jobs",
                        to="accounts.organization",
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(fields=["expires_at"], name="generate_ge_expires_2ed3de_idx")
                ],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(
                            ("status__in", ["pending", "running", "done", "failed"])
                        ),
                        name="generate_job_status_valid",
                    )
                ],
            },
        ),
    ]
