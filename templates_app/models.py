"""PDF templates and their versions: one editable working version, immutable published ones."""

from __future__ import annotations

from django.db import models

from accounts.models import Organization
from core.fields import EidField


class PdfTemplate(models.Model):
    """A stored definition of one PDF's fields (a "cast" on the wire)."""

    eid = EidField()
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="templates"
    )
    title = models.CharField(max_length=255)
    # False for templates made for a single e-signature packet rather than for reuse.
    is_template = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "PDF template"
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return self.title


class TemplateVersion(models.Model):
    """A version of a template. ``number`` is None for the working version.

    The base PDF lives in file storage (content-addressed by its SHA-256, so versions share a
    file until the PDF itself changes); ``spec`` holds pages, fields, arrays and document style
    in the JSON form of core.engine.template_spec.
    """

    template = models.ForeignKey(PdfTemplate, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField(null=True, blank=True)
    pdf_path = models.CharField(max_length=300)
    pdf_sha256 = models.CharField(max_length=64)
    # The Office document (DOCX, ODT, RTF...) the PDF was converted from, kept in file storage
    # beside it; all empty when the PDF was uploaded as a PDF.
    source_path = models.CharField(max_length=300, blank=True, default="")
    source_sha256 = models.CharField(max_length=64, blank=True, default="")
    source_name = models.CharField(max_length=255, blank=True, default="")
    spec = models.JSONField()
    published_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["template", "number"], name="unique_version_number"),
            models.UniqueConstraint(
                fields=["template"],
                condition=models.Q(number__isnull=True),
                name="one_working_version",
            ),
        ]
        ordering = ["template", "-number"]

    def __str__(self) -> str:
        return f"{self.template} ({'working' if self.is_working else f'v{self.number}'})"

    @property
    def is_working(self) -> bool:
        return self.number is None

    def same_content_as(self, other: TemplateVersion | None) -> bool:
        return other is not None and self.pdf_sha256 == other.pdf_sha256 and self.spec == other.spec
