"""The app's schema as its models declare it, in one migration (issue 53: the chain it replaces,
0001_initial to 0003_embedtoken_made_eid, repeated itself). A database migrated to
0003_embedtoken_made_eid takes it as applied; one between must first migrate with the release that
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
        ("builders", "0001_initial"),
        ("builders", "0002_embedtoken_draft"),
        ("builders", "0003_embedtoken_made_eid"),
    ]

    dependencies = [
        ("accounts", "0001_squashed_0004_sso_identity"),
    ]

    operations = [
        migrations.CreateModel(
            name="EmbedToken",
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
                    "embed_type",
                    models.CharField(
                        choices=[
                            ("edit-pdf-template", "PDF template editor"),
                            ("edit-etch-packet", "Packet builder"),
                            ("edit-workflow", "Workflow builder"),
                        ],
                        max_length=32,
                    ),
                ),
                ("object_eid", models.CharField(max_length=64)),
                ("permissions", models.JSONField(default=list)),
                ("options", models.JSONField(blank=True, default=dict)),
                ("metadata", models.JSONField(blank=True, default=dict)),
                ("watermark", models.BooleanField(default=False)),
                ("draft", models.JSONField(blank=True, null=True)),
                ("made_eid", models.CharField(blank=True, default="", max_length=64)),
                ("token_hash", models.CharField(max_length=64, unique=True)),
                ("expires_at", models.DateTimeField()),
                ("revoked_at", models.DateTimeField(blank=True, null=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "organization",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="embed_tokens",
                        to="accounts.organization",
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(
                        fields=["organization", "expires_at"], name="builders_em_organiz_ba9163_idx"
                    )
                ],
            },
        ),
    ]
