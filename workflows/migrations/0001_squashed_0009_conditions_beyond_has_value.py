"""The app's schema as its models declare it, in one migration (issue 53: the chain it replaces,
0001_initial to 0009_conditions_beyond_has_value, repeated itself). A database migrated to
0009_conditions_beyond_has_value takes it as applied; one between must first migrate with the
release that still holds the chain (docs/deployment.md, "Upgrading"). The chain's data steps
changed existing rows only.
"""

import core.eids
import core.fields
import django.core.validators
import django.db.models.deletion
import functools
import secrets
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    replaces = [
        ("workflows", "0001_initial"),
        ("workflows", "0002_field_type_labels"),
        ("workflows", "0003_slug_help"),
        ("workflows", "0004_continue_link_secret"),
        ("workflows", "0005_submission_status_check"),
        ("workflows", "0006_webform_submission_draft"),
        ("workflows", "0007_webform_field_show_when"),
        ("workflows", "0008_groups_and_conditional_pages"),
        ("workflows", "0009_conditions_beyond_has_value"),
    ]

    dependencies = [
        ("accounts", "0001_squashed_0004_sso_identity"),
        ("esign", "0001_squashed_0024_qualified_provider"),
        ("templates_app", "0001_squashed_0002_version_source"),
    ]

    operations = [
        migrations.CreateModel(
            name="Webform",
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
                    "slug",
                    models.CharField(
                        max_length=100,
                        validators=[
                            django.core.validators.RegexValidator(
                                "^[a-z0-9]+(?:-[a-z0-9]+)*$",
                                "Use lowercase letters, digits and single dashes.",
                            )
                        ],
                    ),
                ),
                ("name", models.CharField(max_length=200)),
                ("position", models.PositiveIntegerField(default=0)),
            ],
            options={
                "ordering": ["workflow", "position", "id"],
            },
        ),
        migrations.CreateModel(
            name="Submission",
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
                ("definition", models.JSONField()),
                ("version_number", models.PositiveIntegerField(blank=True, null=True)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("created", "Created"),
                            ("in-progress", "In Progress"),
                            ("ready-to-sign", "Ready To Sign"),
                            ("awaiting-signatures", "Awaiting Signatures"),
                            ("declined", "Declined"),
                            ("completed", "Completed"),
                        ],
                        default="created",
                        max_length=24,
                    ),
                ),
                ("is_test", models.BooleanField(default=False)),
                ("display_title", models.CharField(blank=True, max_length=255)),
                ("webhook_url", models.URLField(blank=True, max_length=2000)),
                ("timezone", models.CharField(blank=True, max_length=64)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                ("completed_at", models.DateTimeField(blank=True, null=True)),
                (
                    "link_secret",
                    models.CharField(
                        default=functools.partial(secrets.token_hex, *(16,), **{}), max_length=64
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
            options={
                "ordering": ["-created_at", "-id"],
            },
        ),
        migrations.CreateModel(
            name="SubmissionDocument",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("position", models.PositiveIntegerField()),
                ("title", models.CharField(max_length=255)),
                ("filename", models.CharField(max_length=255)),
                ("path", models.CharField(max_length=300)),
                ("sha256", models.CharField(max_length=64)),
                (
                    "submission",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="documents",
                        to="workflows.submission",
                    ),
                ),
                (
                    "template_version",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="templates_app.templateversion",
                    ),
                ),
            ],
            options={
                "ordering": ["submission", "position"],
            },
        ),
        migrations.CreateModel(
            name="WebformPage",
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
                ("title", models.CharField(max_length=200)),
                ("description", models.TextField(blank=True, max_length=2000)),
                (
                    "show_when",
                    models.CharField(
                        blank=True,
                        help_text="Show the page only when this condition on earlier pages' fields holds: the key of a field that must have a value, or a condition's JSON (blank: always).",
                        max_length=2000,
                    ),
                ),
                ("position", models.PositiveIntegerField(default=0)),
                (
                    "webform",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="pages",
                        to="workflows.webform",
                    ),
                ),
            ],
            options={
                "ordering": ["webform", "position", "id"],
            },
        ),
        migrations.CreateModel(
            name="WebformGroup",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "key",
                    models.CharField(
                        help_text="The group's name in payloads, and forgeSubmit's groupArrayId.",
                        max_length=64,
                        validators=[
                            django.core.validators.RegexValidator(
                                "^[A-Za-z][A-Za-z0-9_]{0,63}$",
                                "Use a letter, then letters, digits or _ (at most 64).",
                            )
                        ],
                    ),
                ),
                ("label", models.CharField(max_length=200)),
                ("help_text", models.CharField(blank=True, max_length=1000)),
                ("min_entries", models.PositiveIntegerField(default=0)),
                (
                    "max_entries",
                    models.PositiveIntegerField(
                        default=10,
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(50),
                        ],
                    ),
                ),
                ("position", models.PositiveIntegerField(default=0)),
                (
                    "webform",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="groups",
                        to="workflows.webform",
                    ),
                ),
                (
                    "page",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="groups",
                        to="workflows.webformpage",
                    ),
                ),
            ],
            options={
                "ordering": ["webform", "page__position", "position", "id"],
            },
        ),
        migrations.CreateModel(
            name="WebformField",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "key",
                    models.CharField(
                        help_text="The field's name in payloads (forgeSubmit, webhooks).",
                        max_length=64,
                        validators=[
                            django.core.validators.RegexValidator(
                                "^[A-Za-z][A-Za-z0-9_]{0,63}$",
                                "Use a letter, then letters, digits or _ (at most 64).",
                            )
                        ],
                    ),
                ),
                (
                    "type",
                    models.CharField(
                        choices=[
                            ("shortText", "Short text"),
                            ("longText", "Long text"),
                            ("email", "Email"),
                            ("ssn", "SSN"),
                            ("ein", "EIN"),
                            ("date", "Date"),
                            ("radioGroup", "Radio group"),
                            ("imageFile", "Image"),
                            ("checkbox", "Checkbox"),
                            ("number", "Number"),
                            ("dollar", "Dollar"),
                            ("integer", "Integer"),
                            ("percent", "Percent"),
                            ("charList", "Character boxes"),
                            ("textWrap", "Wrapped lines"),
                            ("fullName", "Full name"),
                            ("usAddress", "US address"),
                            ("phone", "Phone"),
                        ],
                        max_length=20,
                    ),
                ),
                ("label", models.CharField(max_length=200)),
                ("required", models.BooleanField(default=False)),
                ("help_text", models.CharField(blank=True, max_length=1000)),
                ("default", models.JSONField(blank=True, null=True)),
                (
                    "min_value",
                    models.DecimalField(blank=True, decimal_places=6, max_digits=24, null=True),
                ),
                (
                    "max_value",
                    models.DecimalField(blank=True, decimal_places=6, max_digits=24, null=True),
                ),
                ("min_length", models.PositiveIntegerField(blank=True, null=True)),
                ("max_length", models.PositiveIntegerField(blank=True, null=True)),
                ("options", models.JSONField(blank=True, default=list)),
                (
                    "base_region",
                    models.CharField(
                        default="US",
                        help_text="Phone fields: numbers of this region are shown without the country code.",
                        max_length=2,
                    ),
                ),
                (
                    "show_when",
                    models.CharField(
                        blank=True,
                        help_text="Show only when this condition on earlier fields holds: the key of a field that must have a value, or a condition's JSON (blank: always).",
                        max_length=2000,
                    ),
                ),
                ("position", models.PositiveIntegerField(default=0)),
                (
                    "webform",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="fields",
                        to="workflows.webform",
                    ),
                ),
                (
                    "group",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="fields",
                        to="workflows.webformgroup",
                    ),
                ),
                (
                    "page",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="fields",
                        to="workflows.webformpage",
                    ),
                ),
            ],
            options={
                "ordering": ["webform", "page__position", "position", "id"],
            },
        ),
        migrations.CreateModel(
            name="WebformSubmission",
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
                ("webform_eid", models.CharField(max_length=40)),
                ("webform_slug", models.CharField(max_length=100)),
                ("payload", models.JSONField(default=dict)),
                ("draft", models.JSONField(blank=True, default=dict)),
                ("current_step", models.PositiveIntegerField(default=0)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                ("completed_at", models.DateTimeField(blank=True, null=True)),
                (
                    "submission",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="webform_submissions",
                        to="workflows.submission",
                    ),
                ),
                (
                    "webform",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="submissions",
                        to="workflows.webform",
                    ),
                ),
            ],
            options={
                "ordering": ["submission", "id"],
            },
        ),
        migrations.CreateModel(
            name="Workflow",
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
                    "slug",
                    models.CharField(
                        help_text="The last part of the public address: /form/ORGANIZATION-SLUG/WORKFLOW-SLUG.",
                        max_length=100,
                        validators=[
                            django.core.validators.RegexValidator(
                                "^[a-z0-9]+(?:-[a-z0-9]+)*$",
                                "Use lowercase letters, digits and single dashes.",
                            )
                        ],
                    ),
                ),
                ("name", models.CharField(max_length=200)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "organization",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="workflows",
                        to="accounts.organization",
                    ),
                ),
            ],
            options={
                "ordering": ["name"],
            },
        ),
        migrations.AddField(
            model_name="webform",
            name="workflow",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="webforms",
                to="workflows.workflow",
            ),
        ),
        migrations.AddField(
            model_name="submission",
            name="workflow",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="submissions",
                to="workflows.workflow",
            ),
        ),
        migrations.CreateModel(
            name="WorkflowDocument",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("title", models.CharField(blank=True, max_length=255)),
                ("filename", models.CharField(blank=True, max_length=255)),
                ("position", models.PositiveIntegerField(default=0)),
                (
                    "template",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="templates_app.pdftemplate",
                    ),
                ),
                (
                    "workflow",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="documents",
                        to="workflows.workflow",
                    ),
                ),
            ],
            options={
                "ordering": ["workflow", "position", "id"],
            },
        ),
        migrations.CreateModel(
            name="FieldMapping",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("alias", models.CharField(max_length=200)),
                (
                    "field",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="mappings",
                        to="workflows.webformfield",
                    ),
                ),
                (
                    "document",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="mappings",
                        to="workflows.workflowdocument",
                    ),
                ),
            ],
            options={
                "ordering": ["document", "alias"],
            },
        ),
        migrations.CreateModel(
            name="WorkflowSigner",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("alias_id", models.CharField(default="signer1", max_length=100)),
                (
                    "signer_type",
                    models.CharField(
                        choices=[
                            ("embedded", "Signs right after the webform (embedded)"),
                            ("email", "Gets an email with a link"),
                        ],
                        default="embedded",
                        max_length=16,
                    ),
                ),
                ("routing_order", models.PositiveIntegerField(default=1)),
                ("boxes", models.JSONField(default=list)),
                (
                    "email_field",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="workflows.webformfield",
                    ),
                ),
                (
                    "name_field",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="workflows.webformfield",
                    ),
                ),
                (
                    "workflow",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="signers",
                        to="workflows.workflow",
                    ),
                ),
            ],
            options={
                "ordering": ["workflow", "routing_order", "id"],
            },
        ),
        migrations.CreateModel(
            name="WorkflowVersion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveIntegerField()),
                ("definition", models.JSONField()),
                ("published_at", models.DateTimeField()),
                (
                    "workflow",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="versions",
                        to="workflows.workflow",
                    ),
                ),
            ],
            options={
                "ordering": ["workflow", "-number"],
            },
        ),
        migrations.AddConstraint(
            model_name="webformgroup",
            constraint=models.UniqueConstraint(
                fields=("webform", "key"), name="unique_webform_group_key"
            ),
        ),
        migrations.AddConstraint(
            model_name="webformgroup",
            constraint=models.CheckConstraint(
                condition=models.Q(("min_entries__lte", models.F("max_entries"))),
                name="webform_group_entries_range",
            ),
        ),
        migrations.AddConstraint(
            model_name="webformfield",
            constraint=models.UniqueConstraint(
                fields=("webform", "key"), name="unique_webform_field_key"
            ),
        ),
        migrations.AddConstraint(
            model_name="webformsubmission",
            constraint=models.UniqueConstraint(
                fields=("submission", "webform_eid"), name="one_webform_submission_per_webform"
            ),
        ),
        migrations.AddConstraint(
            model_name="workflow",
            constraint=models.UniqueConstraint(
                fields=("organization", "slug"), name="unique_workflow_slug"
            ),
        ),
        migrations.AddConstraint(
            model_name="webform",
            constraint=models.UniqueConstraint(
                fields=("workflow", "slug"), name="unique_webform_slug"
            ),
        ),
        migrations.AddConstraint(
            model_name="submission",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    (
                        "status__in",
                        [
                            "created",
                            "in-progress",
                            "ready-to-sign",
                            "awaiting-signatures",
                            "declined",
                            "completed",
                        ],
                    )
                ),
                name="submission_status_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="fieldmapping",
            constraint=models.UniqueConstraint(
                fields=("document", "alias"), name="unique_mapped_alias"
            ),
        ),
        migrations.AddConstraint(
            model_name="workflowsigner",
            constraint=models.UniqueConstraint(
                fields=("workflow", "alias_id"), name="unique_signer_alias_id"
            ),
        ),
        migrations.AddConstraint(
            model_name="workflowversion",
            constraint=models.UniqueConstraint(
                fields=("workflow", "number"), name="unique_workflow_version_number"
            ),
        ),
    ]
