"""The app's schema as its models declare it, in one migration (issue 53: the chain it replaces,
0001_initial to 0024_qualified_provider, repeated itself). A database migrated to
0024_qualified_provider takes it as applied; one between must first migrate with the release that
still holds the chain (docs/deployment.md, "Upgrading"). The chain's data steps changed existing
rows only.
"""

import core.eids
import core.fields
import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    replaces = [
        ("esign", "0001_initial"),
        ("esign", "0002_packet_seal"),
        ("esign", "0003_packet_merged_pdf"),
        ("esign", "0004_lifecycle"),
        ("esign", "0005_links_over_time"),
        ("esign", "0006_signer_copy_email"),
        ("esign", "0007_language"),
        ("esign", "0008_sealed_file_versions"),
        ("esign", "0009_packet_seal_level_and_error"),
        ("esign", "0010_packet_expiry"),
        ("esign", "0011_signer_verification"),
        ("esign", "0012_more_languages"),
        ("esign", "0013_signing_groups"),
        ("esign", "0014_signer_attachments"),
        ("esign", "0015_forward"),
        ("esign", "0016_bulk_sends"),
        ("esign", "0017_bulk_send_labels"),
        ("esign", "0018_packet_seal_lease"),
        ("esign", "0019_sealed_file_renewal_outbox"),
        ("esign", "0020_packet_verification_stamp"),
        ("esign", "0021_signer_roles"),
        ("esign", "0022_signer_signature_levels"),
        ("esign", "0023_signer_allow_updates"),
        ("esign", "0024_qualified_provider"),
    ]

    dependencies = [
        ("accounts", "0001_squashed_0004_sso_identity"),
        ("templates_app", "0001_squashed_0002_version_source"),
    ]

    operations = [
        migrations.CreateModel(
            name="BulkBatch",
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
                ("name", models.CharField(max_length=255, verbose_name="name")),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("draft", "Draft"),
                            ("sending", "Sending"),
                            ("completed", "Completed"),
                            ("cancelled", "Cancelled"),
                        ],
                        default="sending",
                        max_length=16,
                        verbose_name="status",
                    ),
                ),
                ("shape", models.JSONField()),
                ("columns", models.JSONField(default=list)),
                ("watermark", models.BooleanField(default=False)),
                (
                    "created_by",
                    models.CharField(blank=True, max_length=200, verbose_name="created by"),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="created at")),
                (
                    "finished_at",
                    models.DateTimeField(blank=True, null=True, verbose_name="finished at"),
                ),
                ("next_run_at", models.DateTimeField(blank=True, null=True)),
                ("rows_total", models.PositiveIntegerField(default=0)),
                ("rows_created", models.PositiveIntegerField(default=0)),
                ("rows_failed", models.PositiveIntegerField(default=0)),
                (
                    "organization",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="bulk_batches",
                        to="accounts.organization",
                        verbose_name="organization",
                    ),
                ),
            ],
            options={
                "verbose_name": "bulk send",
                "verbose_name_plural": "bulk sends",
            },
        ),
        migrations.CreateModel(
            name="Packet",
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
                ("name", models.CharField(max_length=255)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("draft", "Draft"),
                            ("sent", "Sent"),
                            ("delivered", "Delivered"),
                            ("partial", "Partial"),
                            ("declined", "Declined"),
                            ("voided", "Voided"),
                            ("completed", "Completed"),
                            ("expired", "Expired"),
                        ],
                        default="draft",
                        max_length=16,
                    ),
                ),
                ("is_test", models.BooleanField(default=False)),
                ("allow_updates", models.BooleanField(default=False)),
                ("merge_pdfs", models.BooleanField(default=False)),
                ("webhook_url", models.URLField(blank=True, max_length=2000)),
                ("email_subject", models.CharField(blank=True, max_length=255)),
                ("email_body", models.TextField(blank=True)),
                ("reply_to_name", models.CharField(blank=True, max_length=255)),
                ("reply_to_email", models.EmailField(blank=True, max_length=254)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                ("sent_at", models.DateTimeField(blank=True, null=True)),
                ("completed_at", models.DateTimeField(blank=True, null=True)),
                ("reminder_days", models.PositiveSmallIntegerField(blank=True, null=True)),
                (
                    "language",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("en", "English"),
                            ("es", "Español"),
                            ("fr", "Français"),
                            ("de", "Deutsch"),
                            ("pt-br", "Português (Brasil)"),
                            ("it", "Italiano"),
                            ("nl", "Nederlands"),
                            ("pl", "Polski"),
                            ("tr", "Türkçe"),
                            ("sv", "Svenska"),
                            ("uk", "Українська"),
                            ("zh-hans", "简体中文"),
                            ("ja", "日本語"),
                            ("ko", "한국어"),
                            ("ar", "العربية"),
                            ("he", "עברית"),
                        ],
                        default="",
                        max_length=8,
                    ),
                ),
                ("expires_at", models.DateTimeField(blank=True, db_index=True, null=True)),
                ("allow_forward", models.BooleanField(default=False)),
                ("verification_stamp", models.BooleanField(default=False)),
                (
                    "seal_status",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("pending", "Pending"),
                            ("sealed", "Sealed"),
                            ("retrying", "Retrying"),
                            ("failed", "Failed"),
                        ],
                        default="",
                        max_length=16,
                    ),
                ),
                ("seal_attempts", models.PositiveIntegerField(default=0)),
                ("seal_error", models.TextField(blank=True)),
                ("seal_retry_at", models.DateTimeField(blank=True, null=True)),
                ("seal_leased_until", models.DateTimeField(blank=True, null=True)),
                ("sealed_at", models.DateTimeField(blank=True, null=True)),
                ("seal_level", models.CharField(blank=True, max_length=16)),
                ("seal_error_code", models.CharField(blank=True, max_length=64)),
                ("seal_error_message", models.CharField(blank=True, max_length=500)),
                ("audit_trail_path", models.CharField(blank=True, max_length=300)),
                ("audit_trail_sha256", models.CharField(blank=True, db_index=True, max_length=64)),
                ("merged_path", models.CharField(blank=True, max_length=300)),
                ("merged_sha256", models.CharField(blank=True, db_index=True, max_length=64)),
                (
                    "organization",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="packets",
                        to="accounts.organization",
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at"],
            },
        ),
        migrations.CreateModel(
            name="DocumentGroup",
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
                            ("draft", "Draft"),
                            ("sent", "Sent"),
                            ("delivered", "Delivered"),
                            ("partial", "Partial"),
                            ("declined", "Declined"),
                            ("voided", "Voided"),
                            ("completed", "Completed"),
                            ("expired", "Expired"),
                        ],
                        default="draft",
                        max_length=16,
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "packet",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="document_group",
                        to="esign.packet",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="BulkRow",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("index", models.PositiveIntegerField()),
                ("values", models.JSONField(default=dict)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Pending"),
                            ("created", "Created"),
                            ("failed", "Failed"),
                        ],
                        default="pending",
                        max_length=16,
                    ),
                ),
                ("packet_eid", models.CharField(blank=True, max_length=40)),
                ("errors", models.JSONField(default=list)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                (
                    "batch",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="rows",
                        to="esign.bulkbatch",
                    ),
                ),
                (
                    "packet",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="esign.packet",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="PacketDocument",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("alias_id", models.CharField(max_length=200)),
                ("position", models.PositiveIntegerField()),
                ("title", models.CharField(blank=True, max_length=255)),
                ("filename", models.CharField(max_length=255)),
                (
                    "source",
                    models.CharField(
                        choices=[
                            ("template", "Template"),
                            ("upload", "Upload"),
                            ("html", "Html"),
                            ("markdown", "Markdown"),
                        ],
                        max_length=16,
                    ),
                ),
                ("prepared_path", models.CharField(max_length=300)),
                ("prepared_sha256", models.CharField(db_index=True, max_length=64)),
                ("current_path", models.CharField(max_length=300)),
                ("current_sha256", models.CharField(db_index=True, max_length=64)),
                ("sealed_path", models.CharField(blank=True, max_length=300)),
                ("sealed_sha256", models.CharField(blank=True, db_index=True, max_length=64)),
                ("fields", models.JSONField(default=list)),
                ("page_count", models.PositiveIntegerField(default=0)),
                (
                    "packet",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="documents",
                        to="esign.packet",
                    ),
                ),
                (
                    "template_version",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        to="templates_app.templateversion",
                    ),
                ),
            ],
            options={
                "ordering": ["packet", "position"],
            },
        ),
        migrations.CreateModel(
            name="QualifiedProvider",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "name",
                    models.CharField(
                        help_text="Shown to signers, e.g. the TSP's name.", max_length=200
                    ),
                ),
                (
                    "base_url",
                    models.URLField(
                        help_text="The CSC API's base URL, ending in /csc/v2.", max_length=500
                    ),
                ),
                (
                    "oauth_url",
                    models.URLField(
                        blank=True,
                        help_text="OAuth 2.0 server base URL (info's oauth2); blank: the API's.",
                        max_length=500,
                    ),
                ),
                ("client_id", models.CharField(max_length=200)),
                ("client_secret", models.CharField(blank=True, max_length=500)),
                (
                    "organization",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="qualified_provider",
                        to="accounts.organization",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="SealedFileVersion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("slot", models.CharField(max_length=64)),
                ("version", models.PositiveIntegerField()),
                ("path", models.CharField(max_length=300)),
                ("sha256", models.CharField(db_index=True, max_length=64)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("renewal_due_at", models.DateTimeField(blank=True, db_index=True, null=True)),
                (
                    "renewal_status",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("pending", "Pending"),
                            ("renewed", "Renewed"),
                            ("failed", "Failed"),
                        ],
                        default="",
                        max_length=16,
                    ),
                ),
                ("renewal_attempts", models.PositiveIntegerField(default=0)),
                ("renewal_error", models.CharField(blank=True, max_length=2000)),
                ("renewal_retry_at", models.DateTimeField(blank=True, null=True)),
                ("renewal_leased_until", models.DateTimeField(blank=True, null=True)),
                (
                    "packet",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="sealed_versions",
                        to="esign.packet",
                    ),
                ),
            ],
            options={
                "ordering": ["packet", "slot", "version"],
            },
        ),
        migrations.CreateModel(
            name="Signer",
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
                ("alias_id", models.CharField(max_length=200)),
                ("name", models.CharField(max_length=255)),
                ("email", models.EmailField(blank=True, max_length=254)),
                (
                    "signer_type",
                    models.CharField(
                        choices=[("email", "Email"), ("embedded", "Embedded")],
                        default="email",
                        max_length=16,
                    ),
                ),
                ("routing_order", models.PositiveIntegerField(default=1)),
                ("redirect_url", models.URLField(blank=True, max_length=2000)),
                (
                    "signature_mode",
                    models.CharField(
                        choices=[("draw", "Draw"), ("text", "Text")], default="draw", max_length=8
                    ),
                ),
                ("accept_each_field", models.BooleanField(default=False)),
                ("enable_emails", models.BooleanField(default=True)),
                (
                    "language",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("en", "English"),
                            ("es", "Español"),
                            ("fr", "Français"),
                            ("de", "Deutsch"),
                            ("pt-br", "Português (Brasil)"),
                            ("it", "Italiano"),
                            ("nl", "Nederlands"),
                            ("pl", "Polski"),
                            ("tr", "Türkçe"),
                            ("sv", "Svenska"),
                            ("uk", "Українська"),
                            ("zh-hans", "简体中文"),
                            ("ja", "日本語"),
                            ("ko", "한국어"),
                            ("ar", "العربية"),
                            ("he", "עברית"),
                        ],
                        default="",
                        max_length=8,
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("created", "Created"),
                            ("sent", "Sent"),
                            ("viewed", "Viewed"),
                            ("delivered", "Delivered"),
                            ("skipped", "Skipped"),
                            ("declined", "Declined"),
                            ("voided", "Voided"),
                            ("completed", "Completed"),
                            ("expired", "Expired"),
                            ("forwarded", "Forwarded"),
                        ],
                        default="created",
                        max_length=16,
                    ),
                ),
                ("fields", models.JSONField(default=list)),
                ("values", models.JSONField(blank=True, default=dict)),
                ("signature_path", models.CharField(blank=True, max_length=300)),
                ("signature_text", models.CharField(blank=True, max_length=255)),
                ("initials_text", models.CharField(blank=True, max_length=32)),
                ("decline_reason", models.TextField(blank=True)),
                ("verify_method", models.CharField(blank=True, default="", max_length=16)),
                ("verify_phone", models.CharField(blank=True, default="", max_length=20)),
                ("signing_group", models.CharField(blank=True, default="", max_length=200)),
                ("signing_group_required", models.PositiveSmallIntegerField(default=0)),
                (
                    "role",
                    models.CharField(
                        choices=[
                            ("signer", "Signer"),
                            ("witness", "Witness"),
                            ("approver", "Approver"),
                            ("viewer", "Viewer"),
                        ],
                        default="signer",
                        max_length=16,
                    ),
                ),
                ("witness_for", models.CharField(blank=True, default="", max_length=200)),
                ("attachment_fields", models.JSONField(blank=True, default=list)),
                ("allow_forward", models.BooleanField(default=False)),
                ("allow_updates", models.BooleanField(default=False)),
                ("completed_at", models.DateTimeField(blank=True, null=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "forwarded_from",
                    models.OneToOneField(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="forwarded_to",
                        to="esign.signer",
                    ),
                ),
                (
                    "packet",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="signers",
                        to="esign.packet",
                    ),
                ),
            ],
            options={
                "ordering": ["packet", "routing_order", "id"],
            },
        ),
        migrations.CreateModel(
            name="AuditEvent",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("action", models.CharField(max_length=64)),
                ("at", models.DateTimeField(auto_now_add=True)),
                ("ip", models.GenericIPAddressField(blank=True, null=True)),
                ("user_agent", models.CharField(blank=True, max_length=500)),
                ("detail", models.JSONField(blank=True, default=dict)),
                (
                    "packet",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="audit_events",
                        to="esign.packet",
                    ),
                ),
                (
                    "signer",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="audit_events",
                        to="esign.signer",
                    ),
                ),
            ],
            options={
                "ordering": ["packet", "at", "id"],
            },
        ),
        migrations.CreateModel(
            name="SignerAttachment",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("field_id", models.CharField(max_length=200)),
                ("filename", models.CharField(max_length=255)),
                ("content_type", models.CharField(max_length=64)),
                ("size", models.PositiveBigIntegerField()),
                ("sha256", models.CharField(db_index=True, max_length=64)),
                ("path", models.CharField(max_length=300)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "signer",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="attachments",
                        to="esign.signer",
                    ),
                ),
            ],
            options={
                "ordering": ["signer", "id"],
            },
        ),
        migrations.CreateModel(
            name="SignerCertificate",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "level",
                    models.CharField(
                        choices=[
                            ("simple", "Simple"),
                            ("advanced", "Advanced"),
                            ("qualified", "Qualified"),
                        ],
                        max_length=16,
                    ),
                ),
                ("field_name", models.CharField(max_length=128)),
                ("subject", models.CharField(max_length=500)),
                ("issuer", models.CharField(max_length=500)),
                ("serial", models.CharField(max_length=80)),
                ("certificate", models.BinaryField()),
                ("signed_at", models.DateTimeField()),
                (
                    "document",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="signer_certificates",
                        to="esign.packetdocument",
                    ),
                ),
                (
                    "signer",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="signature_certificates",
                        to="esign.signer",
                    ),
                ),
            ],
            options={
                "ordering": ["document", "signed_at", "id"],
            },
        ),
        migrations.CreateModel(
            name="SignerCode",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("code_hash", models.CharField(max_length=64)),
                ("method", models.CharField(max_length=16)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("expires_at", models.DateTimeField()),
                ("tries", models.PositiveSmallIntegerField(default=0)),
                ("used_at", models.DateTimeField(blank=True, null=True)),
                ("locked_at", models.DateTimeField(blank=True, null=True)),
                (
                    "signer",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="codes",
                        to="esign.signer",
                    ),
                ),
            ],
            options={
                "ordering": ["signer", "-created_at", "-id"],
            },
        ),
        migrations.CreateModel(
            name="SignerEmail",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("signing", "Signing"),
                            ("resend", "Resend"),
                            ("reminder", "Reminder"),
                            ("copy", "Copy"),
                            ("forward", "Forward"),
                        ],
                        default="signing",
                        max_length=16,
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Pending"),
                            ("sent", "Sent"),
                            ("failed", "Failed"),
                            ("cancelled", "Cancelled"),
                        ],
                        default="pending",
                        max_length=16,
                    ),
                ),
                ("attempts", models.PositiveIntegerField(default=0)),
                ("due_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("claimed_until", models.DateTimeField(blank=True, null=True)),
                ("last_error", models.CharField(blank=True, max_length=500)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("sent_at", models.DateTimeField(blank=True, null=True)),
                (
                    "signer",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="emails",
                        to="esign.signer",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="SignerLevel",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "level",
                    models.CharField(
                        choices=[
                            ("simple", "Simple"),
                            ("advanced", "Advanced"),
                            ("qualified", "Qualified"),
                        ],
                        max_length=16,
                    ),
                ),
                (
                    "signer",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="signature_level",
                        to="esign.signer",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="SignerToken",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("token_hash", models.CharField(max_length=64, unique=True)),
                ("secret", core.fields.EncryptedTextField(blank=True)),
                ("client_user_id", models.CharField(blank=True, max_length=255)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("expires_at", models.DateTimeField()),
                ("revoked_at", models.DateTimeField(blank=True, null=True)),
                ("verified_at", models.DateTimeField(blank=True, null=True)),
                (
                    "signer",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="tokens",
                        to="esign.signer",
                    ),
                ),
            ],
        ),
        migrations.AddIndex(
            model_name="bulkbatch",
            index=models.Index(fields=["status", "next_run_at"], name="esign_bulk_due"),
        ),
        migrations.AddConstraint(
            model_name="packet",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    (
                        "status__in",
                        [
                            "draft",
                            "sent",
                            "delivered",
                            "partial",
                            "declined",
                            "voided",
                            "completed",
                            "expired",
                        ],
                    )
                ),
                name="packet_status_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="packet",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("seal_status__in", ["", "pending", "sealed", "retrying", "failed"])
                ),
                name="packet_seal_status_valid",
            ),
        ),
        migrations.AddIndex(
            model_name="bulkrow",
            index=models.Index(fields=["batch", "status", "index"], name="esign_bulk_row_due"),
        ),
        migrations.AddConstraint(
            model_name="bulkrow",
            constraint=models.UniqueConstraint(
                fields=("batch", "index"), name="esign_bulk_row_index"
            ),
        ),
        migrations.AddConstraint(
            model_name="packetdocument",
            constraint=models.UniqueConstraint(
                fields=("packet", "alias_id"), name="unique_document_alias"
            ),
        ),
        migrations.AddConstraint(
            model_name="sealedfileversion",
            constraint=models.UniqueConstraint(
                fields=("packet", "slot", "version"), name="unique_sealed_file_version"
            ),
        ),
        migrations.AddConstraint(
            model_name="sealedfileversion",
            constraint=models.CheckConstraint(
                condition=models.Q(("renewal_status__in", ["", "pending", "renewed", "failed"])),
                name="sealed_file_renewal_status_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="signer",
            constraint=models.UniqueConstraint(
                fields=("packet", "alias_id"), name="unique_signer_alias"
            ),
        ),
        migrations.AddConstraint(
            model_name="signer",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    (
                        "status__in",
                        [
                            "created",
                            "sent",
                            "viewed",
                            "delivered",
                            "skipped",
                            "declined",
                            "voided",
                            "completed",
                            "expired",
                            "forwarded",
                        ],
                    )
                ),
                name="signer_status_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="signer",
            constraint=models.CheckConstraint(
                condition=models.Q(("role__in", ["signer", "witness", "approver", "viewer"])),
                name="signer_role_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="signerattachment",
            constraint=models.UniqueConstraint(
                fields=("signer", "field_id"), name="unique_signer_attachment_field"
            ),
        ),
        migrations.AddConstraint(
            model_name="signercertificate",
            constraint=models.UniqueConstraint(
                fields=("signer", "document"), name="unique_signer_certificate_per_document"
            ),
        ),
        migrations.AddIndex(
            model_name="signeremail",
            index=models.Index(fields=["status", "due_at"], name="esign_signe_status_f521aa_idx"),
        ),
        migrations.AddConstraint(
            model_name="signeremail",
            constraint=models.CheckConstraint(
                condition=models.Q(("status__in", ["pending", "sent", "failed", "cancelled"])),
                name="signer_email_status_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="signerlevel",
            constraint=models.CheckConstraint(
                condition=models.Q(("level__in", ["advanced", "qualified"])),
                name="signer_level_valid",
            ),
        ),
    ]
