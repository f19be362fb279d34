"""Webhooks: an organization's endpoint settings and secrets, the event outbox, deliveries and
every attempt.

An event is written in the same transaction as the change that caused it (the outbox); each
event gets a delivery to the URL that was in force (the object's own ``webhookURL`` first, then
the organization's), and each delivery logs every HTTP attempt. A manual resend is a new
delivery of the same event: same ``webhook-id``, its own attempts.
"""

from __future__ import annotations

from django.db import models

from accounts.models import Organization
from core.fields import EidField, EncryptedTextField
from core.outbox import Moves, Outbox


class WebhookEndpoint(models.Model):
    """The organization's webhook settings; one row per organization, made on first use."""

    organization = models.OneToOneField(
        Organization, on_delete=models.CASCADE, related_name="webhook_endpoint"
    )
    url = models.URLField(max_length=2000, blank=True)
    token = EncryptedTextField(help_text="Sent in every body as `token`; receivers compare it.")
    public_key_pem = models.TextField(
        blank=True,
        help_text="The integrator's RSA public key (SPKI PEM): when set, `data` is sent encrypted.",
    )
    disabled_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Set when the URL answered 410 Gone; saving it again clears it.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "webhook endpoint"

    def __str__(self) -> str:
        return f"webhook endpoint of {self.organization.slug}"


class WebhookSecret(models.Model):
    """A ``whsec_`` signing secret. Deliveries are signed with every secret not yet expired:
    after a rotation the previous one keeps signing until ``expires_at`` (the overlap)."""

    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="webhook_secrets"
    )
    # Signing needs the key itself (a shared secret, not a hash): stored encrypted.
    secret = EncryptedTextField()
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["organization", "expires_at"])]

    def __str__(self) -> str:
        return f"{self.secret[:10]}… of {self.organization_id}"


class WebhookEvent(models.Model):
    """One event (the outbox row): what happened, for whom, and where it was to be sent."""

    class Action(models.TextChoices):
        WEBHOOK_TEST = "webhookTest"
        WELD_CREATE = "weldCreate"
        FORGE_COMPLETE = "forgeComplete"
        WELD_COMPLETE = "weldComplete"
        SIGNER_UPDATE_STATUS = "signerUpdateStatus"
        SIGNER_COMPLETE = "signerComplete"
        ETCH_PACKET_COMPLETE = "etchPacketComplete"
        DOCUMENT_GROUP_CREATE = "documentGroupCreate"

    eid = EidField()
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="webhook_events"
    )
    action = models.CharField(max_length=40, choices=Action.choices)
    data = models.JSONField()
    webhook_url = models.URLField(
        max_length=2000, blank=True, help_text="The object's own URL; overrides the organization's."
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.action} {self.eid}"

    @property
    def message_id(self) -> str:
        """The Standard Webhooks ``webhook-id``: one per event, the same on every retry."""
        return f"msg_{self.eid}"


class WebhookDelivery(models.Model):
    """Sending one event to one URL, with retries; "WebhookLog" on the GraphQL wire."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        DELIVERED = "delivered", "Delivered"
        FAILED = "failed", "Failed"
        SKIPPED = "skipped", "Not sent"

    eid = EidField()
    event = models.ForeignKey(WebhookEvent, on_delete=models.CASCADE, related_name="deliveries")
    # Copied from the event so the log filters and scopes without a join.
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="webhook_deliveries"
    )
    url = models.URLField(max_length=2000, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempt_count = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    # Set while an attempt is under way; an attempt still claimed after this time was abandoned
    # by a worker that died, and webhooks_recover retries it.
    claimed_until = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    requested_by = models.CharField(
        max_length=200, blank=True, help_text="Empty for the event's own delivery; who resent it."
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "webhook deliveries"
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["organization", "-created_at"]),
            models.Index(fields=["status", "next_attempt_at"]),
        ]

    def __str__(self) -> str:
        return f"delivery {self.eid} ({self.status})"


_D = WebhookDelivery.Status

# A delivery's status moves only by this table, through core.outbox (webhooks.services.delivery
# claims and finishes attempts, .retries retries, fails and recovers them). ``skipped`` is where
# a delivery with no URL goes before it is first saved (webhooks.services.events), and stays.
# A delivery failed for good still becomes
# ``delivered`` when a late answer of an attempt that recovery gave up on was a success: the
# receiver has it.
DELIVERY_MOVES = Moves(
    "webhook delivery",
    {
        _D.PENDING: frozenset({_D.DELIVERED, _D.FAILED, _D.SKIPPED}),
        _D.FAILED: frozenset({_D.DELIVERED}),
        _D.DELIVERED: frozenset(),
        _D.SKIPPED: frozenset(),
    },
)
DELIVERIES = Outbox(
    WebhookDelivery,
    DELIVERY_MOVES,
    waiting=frozenset({_D.PENDING}),
    failed=_D.FAILED,
    attempts="attempt_count",
    due_at="next_attempt_at",
    leased_until="claimed_until",
)


class WebhookAttempt(models.Model):
    """One HTTP POST of a delivery: when, how long, what came back."""

    class Outcome(models.TextChoices):
        IN_PROGRESS = "in_progress", "In progress"
        DELIVERED = "delivered", "Delivered"
        RETRY = "retry", "Will retry"
        FAILED = "failed", "Failed"
        ABANDONED = "abandoned", "Abandoned (worker stopped)"

    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="attempts")
    number = models.PositiveIntegerField()
    outcome = models.CharField(max_length=16, choices=Outcome.choices, default=Outcome.IN_PROGRESS)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True)
    response_excerpt = models.TextField(blank=True)

    class Meta:
        ordering = ["delivery", "number"]
        constraints = [
            models.UniqueConstraint(fields=["delivery", "number"], name="unique_attempt_number")
        ]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.delivery_id} ({self.outcome})"


class WebhookReplay(models.Model):
    """One operator's replay of an organization's events (webhooks.services.replay): what caps
    how many replays the organization may make an hour (``WEBHOOK_REPLAYS_PER_HOUR``)."""

    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="webhook_replays"
    )
    requested_by = models.CharField(max_length=200, blank=True)
    events = models.PositiveIntegerField(help_text="How many events it sent again.")
    # Set from the service's clock (not auto_now_add), which the cap's window is read on.
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["organization", "created_at"])]

    def __str__(self) -> str:
        return f"replay of {self.events} event(s) by {self.requested_by}"
