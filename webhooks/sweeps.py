"""The sweep for webhook deliveries whose attempt or task was lost (core.sweeps)."""

from __future__ import annotations

from datetime import datetime

from core.sweeps import sweep
from core.table_upkeep import churned
from webhooks.models import WebhookAttempt
from webhooks.services.retries import deliveries_recover

churned(WebhookAttempt)  # written when an attempt starts and when it ends (the deliveries: Outbox)


@sweep("webhooks.deliveries")
def deliveries_sweep(*, now: datetime) -> int:
    """:func:`webhooks.services.retries.deliveries_recover`: attempts whose lease ran out are
    retried, due deliveries whose task was lost are enqueued again."""
    recovered = deliveries_recover(now=now)
    return recovered.abandoned + recovered.requeued
