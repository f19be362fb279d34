"""The app's schema as its models declare it, in one migration (issue 53: the chain it replaces,
0001_initial to 0003_webhook_replays, repeated itself). A database migrated to
0003_webhook_replays takes it as applied; one between must first migrate with the release that
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
        ("webhooks", "0001_initial"),
        ("webhooks", "0002_encrypt_secrets"),
        ("webhooks", "0003_webhook_replays"),
    ]

    dependencies = [
        ("accounts", "0001_squashed_0004_sso_identity"),
    ]

    operations = [
        migrations.CreateModel(
            name="WebhookEndpoint",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("url", models.URLField(blank=True, max_length=2000)),
                (
                    "token",
                    core.fields.EncryptedTextField(
                        help_text="Sent in every body as `token`; receivers compare it."
                    ),
                ),
                (
                    "public_key_pem",
                    models.TextField(
                        blank=True,
                        help_text="The integrator's RSA public key (SPKI PEM): when set, `data` is sent encrypted.",
                    ),
                ),
                (
                    "disabled_at",
                    models.DateTimeField(
                        blank=True,
                        help_text="Set when the URL answered 410 Gone; saving it again clears it.",
                        null=True,
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "organization",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="webhook_endpoint",
                        to="accounts.organization",
                    ),
                ),
            ],
            options={
                "verbose_name": "webhook endpoint",
            },
        ),
        migrations.CreateModel(
            name="WebhookEvent",
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
                    "action",
                    models.CharField(
                        choices=[
                            ("webhookTest", "Webhook Test"),
                            ("weldCreate", "Weld Create"),
                            ("forgeComplete", "Forge Complete"),
                            ("weldComplete", "Weld Complete"),
                            ("signerUpdateStatus", "Signer Update Status"),
                            ("signerComplete", "Signer Complete"),
                            ("etchPacketComplete", "Etch Packet Complete"),
                            ("documentGroupCreate", "Document Group Create"),
                        ],
                        max_length=40,
                    ),
                ),
                ("data", models.JSONField()),
                (
                    "webhook_url",
                    models.URLField(
                        blank=True,
                        help_text="The object's own URL; overrides the organization's.",
                        max_length=2000,
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                (
                    "organization",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="webhook_events",
                        to="accounts.organization",
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at"],
            },
        ),
        migrations.CreateModel(
            name="WebhookDelivery",
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
                ("url", models.URLField(blank=True, max_length=2000)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Pending"),
                            ("delivered", "Delivered"),
                            ("failed", "Failed"),
                            ("skipped", "Not sent"),
                        ],
                        default="pending",
                        max_length=16,
                    ),
                ),
                ("attempt_count", models.PositiveIntegerField(default=0)),
                ("next_attempt_at", models.DateTimeField(blank=True, null=True)),
                ("claimed_until", models.DateTimeField(blank=True, null=True)),
                ("last_status_code", models.PositiveSmallIntegerField(blank=True, null=True)),
                ("last_error", models.CharField(blank=True, max_length=500)),
                ("delivered_at", models.DateTimeField(blank=True, null=True)),
                (
                    "requested_by",
                    models.CharField(
                        blank=True,
                        help_text="Empty for the event's own delivery; who resent it.",
                        max_length=200,
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "organization",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="webhook_deliveries",
                        to="accounts.organization",
                    ),
                ),
                (
                    "event",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="deliveries",
                        to="webhooks.webhookevent",
                    ),
                ),
            ],
            options={
                "verbose_name_plural": "webhook deliveries",
                "ordering": ["-created_at", "-id"],
            },
        ),
        migrations.CreateModel(
            name="WebhookReplay",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("requested_by", models.CharField(blank=True, max_length=200)),
                ("events", models.PositiveIntegerField(help_text="How many events it sent again.")),
                ("created_at", models.DateTimeField()),
                (
                    "organization",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="webhook_replays",
                        to="accounts.organization",
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at"],
            },
        ),
        migrations.CreateModel(
            name="WebhookSecret",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("secret", core.fields.EncryptedTextField()),
                ("created_at", models.DateTimeField()),
                ("expires_at", models.DateTimeField(blank=True, null=True)),
                (
                    "organization",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="webhook_secrets",
                        to="accounts.organization",
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at"],
            },
        ),
        migrations.CreateModel(
            name="WebhookAttempt",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveIntegerField()),
                (
                    "outcome",
                    models.CharField(
                        choices=[
                            ("in_progress", "In progress"),
                            ("delivered", "Delivered"),
                            ("retry", "Will retry"),
                            ("failed", "Failed"),
                            ("abandoned", "Abandoned (worker stopped)"),
                        ],
                        default="in_progress",
                        max_length=16,
                    ),
                ),
                ("started_at", models.DateTimeField()),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                ("duration_ms", models.PositiveIntegerField(blank=True, null=True)),
                ("status_code", models.PositiveSmallIntegerField(blank=True, null=True)),
                ("error", models.CharField(blank=True, max_length=500)),
                ("response_excerpt", models.TextField(blank=True)),
                (
                    "delivery",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="attempts",
                        to="webhooks.webhookdelivery",
                    ),
                ),
            ],
            options={
                "ordering": ["delivery", "number"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("delivery", "number"), name="unique_attempt_number"
                    )
                ],
            },
        ),
        migrations.AddIndex(
            model_name="webhookdelivery",
            index=models.Index(
                fields=["organization", "-created_at"], name="webhooks_we_organiz_0dbdfe_idx"
            ),
        ),
        migrations.AddIndex(
            model_name="webhookdelivery",
            index=models.Index(
                fields=["status", "next_attempt_at"], name="webhooks_we_status_afd94b_idx"
            ),
        ),
        migrations.AddIndex(
            model_name="webhookreplay",
            index=models.Index(
                fields=["organization", "created_at"], name="webhooks_we_organiz_812d3d_idx"
            ),
        ),
        migrations.AddIndex(
            model_name="webhooksecret",
            index=models.Index(
                fields=["organization", "expires_at"], name="webhooks_we_organiz_975536_idx"
            ),
        ),
    ]
