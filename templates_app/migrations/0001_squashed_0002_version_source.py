"""The app's schema as its models declare it, in one migration (issue 53: the chain it replaces,
0001_initial to 0002_version_source, repeated itself). A database migrated to 0002_version_source
takes it as applied; one between must first migrate with the release that still holds the chain
(docs/deployment.md, "Upgrading"). The chain's data steps changed existing rows only.
"""

import core.eids
import core.fields
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    replaces = [
        ("templates_app", "0001_initial"),
        ("templates_app", "0002_version_source"),
    ]

    dependencies = [
        ("accounts", "0001_squashed_0004_sso_identity"),
    ]

    operations = [
        migrations.CreateModel(
            name="PdfTemplate",
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
                ("title", models.CharField(max_length=255)),
                ("is_template", models.BooleanField(default=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "organization",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="templates",
                        to="accounts.organization",
                    ),
                ),
            ],
            options={
                "verbose_name": "PDF template",
                "ordering": ["-updated_at"],
            },
        ),
        migrations.CreateModel(
            name="TemplateVersion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveIntegerField(blank=True, null=True)),
                ("pdf_path", models.CharField(max_length=300)),
                ("pdf_sha256", models.CharField(max_length=64)),
                ("source_path", models.CharField(blank=True, default="", max_length=300)),
                ("source_sha256", models.CharField(blank=True, default="", max_length=64)),
                ("source_name", models.CharField(blank=True, default="", max_length=255)),
                ("spec", models.JSONField()),
                ("published_at", models.DateTimeField(blank=True, null=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "template",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="versions",
                        to="templates_app.pdftemplate",
                    ),
                ),
            ],
            options={
                "ordering": ["template", "-number"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("template", "number"), name="unique_version_number"
                    ),
                    models.UniqueConstraint(
                        condition=models.Q(("number__isnull", True)),
                        fields=("template",),
                        name="one_working_version",
                    ),
                ],
            },
        ),
    ]
