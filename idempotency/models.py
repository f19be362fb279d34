"""An Idempotency-Key an organization sent, with the first answer it got (idempotency.views)."""

from __future__ import annotations

from django.db import models

from accounts.models import Organization
from core.fields import EncryptedBinaryField


class IdempotencyKey(models.Model):
    """One key of one organization for ``IDEMPOTENCY_KEY_HOURS``: the hash of the request it came
    with and, once answered, the answer to give again (encrypted with FIELD_ENCRYPTION_KEYS, as
    webhook secrets are). Never the request itself."""

    class State(models.TextChoices):
        RUNNING = "running", "Running"
        DONE = "done", "Done"

    class Kept(models.TextChoices):
        BODY = "body", "The answer is kept"
        # fill stores nothing of its data (the spec): its answer is made again on a retry.
        NOTHING = "nothing", "Nothing is kept: a retry does the work again"
        TOO_LARGE = "too_large", "The answer was larger than IDEMPOTENCY_MAX_STORED_BYTES"

    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64)
    state = models.CharField(max_length=16, choices=State.choices, default=State.RUNNING)
    kept = models.CharField(max_length=16, choices=Kept.choices, blank=True)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    content_type = models.CharField(max_length=255, blank=True)
    # Encrypted: an answer may carry a secret (generateEtchSignURL's signing link and token).
    body = EncryptedBinaryField(null=True, blank=True)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [
            # Makes two requests with one key a race the database settles: one row, one runner.
            models.UniqueConstraint(fields=["organization", "key"], name="unique_idempotency_key"),
            models.CheckConstraint(
                condition=models.Q(state__in=["running", "done"]), name="idempotency_key_state"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.key} ({self.state})"
