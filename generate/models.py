"""Generate's one stored thing: an asynchronous generate job (``?async=true``), its request body
until it has run, and its PDF until it expires."""

from __future__ import annotations

from django.db import models

from accounts.models import Organization
from core.fields import EidField, EncryptedTextField


class GenerateJob(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    eid = EidField()
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="generate_jobs"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    # The request body (JSON, encrypted at rest), until the job has run: then emptied.
    body = EncryptedTextField(blank=True, default="")
    watermark = models.BooleanField(default=False)
    pages = models.PositiveIntegerField(null=True, blank=True)
    pdf_path = models.CharField(max_length=300, blank=True, default="")
    pdf_sha256 = models.CharField(max_length=64, blank=True, default="")
    error = models.JSONField(null=True, blank=True)  # the wire error of a failed job
    # Where its end is announced (``?webhookURL=``); blank: the organization's webhook URL.
    webhook_url = models.URLField(max_length=2000, blank=True, default="")
    created_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    # After this the job and its PDF are gone (404; the sweep deletes them).
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=["pending", "running", "done", "failed"]),
                name="generate_job_status_valid",
            ),
        ]
        indexes = [models.Index(fields=["expires_at"])]

    def __str__(self) -> str:
        return f"generate job {self.eid} ({self.status})"
