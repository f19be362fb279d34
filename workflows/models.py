"""Workflows ("welds" on the wire): webforms ("forges") of ordered pages of fields, the documents
they fill, an optional signing step, published versions, and the submissions people make.

The rows of a workflow, its webforms, pages, fields, documents, mappings and signers are its
working version, which staff edit in the admin. Publishing snapshots them as one JSON
definition (workflows.engine.definition) in a numbered ``WorkflowVersion`` that never changes.
A submission keeps the definition it was started with, so edits and new versions never change
a submission under way.
"""

from __future__ import annotations

import functools
import secrets

from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models

from accounts.models import Organization
from core.engine.field_types import TYPES
from core.fields import EidField
from esign.models import Packet
from templates_app.models import PdfTemplate, TemplateVersion
from workflows.engine.catalogue import GROUP_MAX_ENTRIES

slug_validator = RegexValidator(
    r"^[a-z0-9]+(?:-[a-z0-9]+)*$", "Use lowercase letters, digits and single dashes."
)
key_validator = RegexValidator(
    r"^[A-Za-z][A-Za-z0-9_]{0,63}$", "Use a letter, then letters, digits or _ (at most 64)."
)


class Workflow(models.Model):
    eid = EidField()
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="workflows"
    )
    slug = models.CharField(
        max_length=100,
        validators=[slug_validator],
        help_text="The last part of the public address: /form/ORGANIZATION-SLUG/WORKFLOW-SLUG.",
    )
    name = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "slug"], name="unique_workflow_slug")
        ]

    def __str__(self) -> str:
        return self.name


class WorkflowVersion(models.Model):
    """A published version: the whole definition as it was when published."""

    workflow = models.ForeignKey(Workflow, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    definition = models.JSONField()
    published_at = models.DateTimeField()

    class Meta:
        ordering = ["workflow", "-number"]
        constraints = [
            models.UniqueConstraint(
                fields=["workflow", "number"], name="unique_workflow_version_number"
            )
        ]

    def __str__(self) -> str:
        return f"{self.workflow} v{self.number}"


class Webform(models.Model):
    eid = EidField()
    workflow = models.ForeignKey(Workflow, on_delete=models.CASCADE, related_name="webforms")
    slug = models.CharField(max_length=100, validators=[slug_validator])
    name = models.CharField(max_length=200)
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["workflow", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["workflow", "slug"], name="unique_webform_slug")
        ]

    def __str__(self) -> str:
        return self.name


class WebformPage(models.Model):
    eid = EidField()
    webform = models.ForeignKey(Webform, on_delete=models.CASCADE, related_name="pages")
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True, max_length=2000)
    show_when = models.CharField(
        max_length=2000,
        blank=True,
        help_text="Show the page only when this condition on earlier pages' fields holds: the "
        "key of a field that must have a value, or a condition's JSON (blank: always).",
    )
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["webform", "position", "id"]

    def __str__(self) -> str:
        return self.title


class WebformGroup(models.Model):
    """A repeating group of a page: its fields are given once per entry (workflows.engine.defs
    .GroupDef). It follows the page's other fields."""

    webform = models.ForeignKey(Webform, on_delete=models.CASCADE, related_name="groups")
    page = models.ForeignKey(WebformPage, on_delete=models.CASCADE, related_name="groups")
    key = models.CharField(
        max_length=64,
        validators=[key_validator],
        help_text="The group's name in payloads, and forgeSubmit's groupArrayId.",
    )
    label = models.CharField(max_length=200)
    help_text = models.CharField(max_length=1000, blank=True)
    min_entries = models.PositiveIntegerField(default=0)
    max_entries = models.PositiveIntegerField(
        default=10, validators=[MinValueValidator(1), MaxValueValidator(GROUP_MAX_ENTRIES)]
    )
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["webform", "page__position", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["webform", "key"], name="unique_webform_group_key"),
            models.CheckConstraint(
                condition=models.Q(min_entries__lte=models.F("max_entries")),
                name="webform_group_entries_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.label} ({self.key})"


class WebformField(models.Model):
    webform = models.ForeignKey(Webform, on_delete=models.CASCADE, related_name="fields")
    page = models.ForeignKey(WebformPage, on_delete=models.CASCADE, related_name="fields")
    # A field of a repeating group of the page (None: the field holds one value).
    group = models.ForeignKey(
        WebformGroup, null=True, blank=True, on_delete=models.CASCADE, related_name="fields"
    )
    key = models.CharField(
        max_length=64,
        validators=[key_validator],
        help_text="The field's name in payloads (forgeSubmit, webhooks).",
    )
    type = models.CharField(max_length=20, choices=[(t.name, t.label) for t in TYPES.values()])
    label = models.CharField(max_length=200)
    required = models.BooleanField(default=False)
    help_text = models.CharField(max_length=1000, blank=True)
    # The normalized value the field starts with (workflows.engine.rules.check_value).
    default = models.JSONField(null=True, blank=True)
    min_value = models.DecimalField(max_digits=24, decimal_places=6, null=True, blank=True)
    max_value = models.DecimalField(max_digits=24, decimal_places=6, null=True, blank=True)
    min_length = models.PositiveIntegerField(null=True, blank=True)
    max_length = models.PositiveIntegerField(null=True, blank=True)
    # [{value, label}] of a radio group.
    options = models.JSONField(default=list, blank=True)
    base_region = models.CharField(
        max_length=2,
        default="US",
        help_text="Phone fields: numbers of this region are shown without the country code.",
    )
    show_when = models.CharField(
        max_length=2000,
        blank=True,
        help_text="Show only when this condition on earlier fields holds: the key of a field "
        "that must have a value, or a condition's JSON (blank: always).",
    )
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["webform", "page__position", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["webform", "key"], name="unique_webform_field_key")
        ]

    def __str__(self) -> str:
        return f"{self.label} ({self.key})"


class WorkflowDocument(models.Model):
    """A template the workflow fills when its webforms are complete."""

    workflow = models.ForeignKey(Workflow, on_delete=models.CASCADE, related_name="documents")
    template = models.ForeignKey(PdfTemplate, on_delete=models.PROTECT, related_name="+")
    title = models.CharField(max_length=255, blank=True)
    filename = models.CharField(max_length=255, blank=True)
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["workflow", "position", "id"]

    def __str__(self) -> str:
        return self.title or self.template.title


class FieldMapping(models.Model):
    """The webform field that fills one alias of a document's template."""

    document = models.ForeignKey(
        WorkflowDocument, on_delete=models.CASCADE, related_name="mappings"
    )
    alias = models.CharField(max_length=200)
    field = models.ForeignKey(WebformField, on_delete=models.CASCADE, related_name="mappings")

    class Meta:
        ordering = ["document", "alias"]
        constraints = [
            models.UniqueConstraint(fields=["document", "alias"], name="unique_mapped_alias")
        ]

    def __str__(self) -> str:
        return f"{self.alias} <- {self.field.key}"


class WorkflowSigner(models.Model):
    """A signer of the optional signing step, whose name and email come from webform fields."""

    class Kind(models.TextChoices):
        EMBEDDED = "embedded", "Signs right after the webform (embedded)"
        EMAIL = "email", "Gets an email with a link"

    workflow = models.ForeignKey(Workflow, on_delete=models.CASCADE, related_name="signers")
    alias_id = models.CharField(max_length=100, default="signer1")
    name_field = models.ForeignKey(WebformField, on_delete=models.CASCADE, related_name="+")
    email_field = models.ForeignKey(
        WebformField, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    signer_type = models.CharField(max_length=16, choices=Kind.choices, default=Kind.EMBEDDED)
    routing_order = models.PositiveIntegerField(default=1)
    # [{id, type: signature|initial|signatureDate, document: <index>, page, rect: {x,y,w,h}}]
    boxes = models.JSONField(default=list)

    class Meta:
        ordering = ["workflow", "routing_order", "id"]
        constraints = [
            models.UniqueConstraint(fields=["workflow", "alias_id"], name="unique_signer_alias_id")
        ]

    def __str__(self) -> str:
        return self.alias_id


class SubmissionStatus(models.TextChoices):
    CREATED = "created"
    IN_PROGRESS = "in-progress"
    READY_TO_SIGN = "ready-to-sign"
    AWAITING_SIGNATURES = "awaiting-signatures"
    DECLINED = "declined"
    COMPLETED = "completed"


# A submission's continue links are signed with its own secret (16 random bytes, in hex), so that
# rotating it ends them all (workflows.submissions.links). The migration that added the column
# names this default, so the name stays.
new_link_secret = functools.partial(secrets.token_hex, 16)


class Submission(models.Model):
    """A run of a workflow by one person ("weldData" on the wire)."""

    Status = SubmissionStatus

    eid = EidField()
    workflow = models.ForeignKey(Workflow, on_delete=models.CASCADE, related_name="submissions")
    # The definition the submission follows, and the version it came from (None: the working
    # version of a workflow never published, as used through the API).
    definition = models.JSONField()
    version_number = models.PositiveIntegerField(null=True, blank=True)
    status = models.CharField(max_length=24, choices=Status.choices, default=Status.CREATED)
    is_test = models.BooleanField(default=False)
    display_title = models.CharField(max_length=255, blank=True)
    webhook_url = models.URLField(max_length=2000, blank=True)
    timezone = models.CharField(max_length=64, blank=True)
    packet = models.ForeignKey(
        Packet, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    # Part of every continue link's MAC: a new one ends the links handed out so far.
    link_secret = models.CharField(max_length=64, default=new_link_secret)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=SubmissionStatus.values),
                name="submission_status_valid",
            )
        ]

    def __str__(self) -> str:
        return self.display_title or self.eid

    @property
    def is_complete(self) -> bool:
        return self.status == self.Status.COMPLETED


class WebformSubmission(models.Model):
    """What one person gave on one webform of a submission ("submission" on the wire)."""

    eid = EidField()
    submission = models.ForeignKey(
        Submission, on_delete=models.CASCADE, related_name="webform_submissions"
    )
    webform = models.ForeignKey(
        Webform, null=True, blank=True, on_delete=models.SET_NULL, related_name="submissions"
    )
    webform_eid = models.CharField(max_length=40)
    webform_slug = models.CharField(max_length=100)
    # Normalized values keyed by field key (workflows.engine.rules.check_value).
    payload = models.JSONField(default=dict)
    # What was typed on a page left by Back that did not pass its check: the page's input
    # strings keyed by field key. Shown again on that page, never stored as a value, filled into
    # a document or sent; the next Next of the page checks it (and clears it).
    draft = models.JSONField(default=dict, blank=True)
    current_step = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["submission", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "webform_eid"], name="one_webform_submission_per_webform"
            )
        ]

    def __str__(self) -> str:
        return f"{self.webform_slug} of {self.submission_id}"


class SubmissionDocument(models.Model):
    """A document filled when the submission's webforms were complete."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="documents")
    position = models.PositiveIntegerField()
    title = models.CharField(max_length=255)
    filename = models.CharField(max_length=255)
    template_version = models.ForeignKey(
        TemplateVersion, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    path = models.CharField(max_length=300)
    sha256 = models.CharField(max_length=64)

    class Meta:
        ordering = ["submission", "position"]

    def __str__(self) -> str:
        return self.filename
