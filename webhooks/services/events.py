"""Webhook events: recording one in the caller's transaction with its delivery (and the delivery
task, enqueued in that same transaction), resending, a test event, and the delivery log.

Other apps call :func:`event_emit` inside the transaction that changes the state the event
reports, so the event and its task commit together or not at all, and the task runs after the
commit. Delivery is at least once: receivers deduplicate by ``webhook-id``.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.models import Organization
from core.background import enqueue_in_transaction
from core.errors import NotFound
from core.tasks_registry import task_named
from webhooks.models import DELIVERIES, WebhookDelivery, WebhookEvent
from webhooks.services.endpoints import url_in_force, webhook_url_form
from webhooks.task_names import WEBHOOK_DELIVER

# Extensions beside the spec's events (docs/webhooks.md), delivered and signed the same way:
# the seal of a completed packet's documents, a packet's expiry, a signer's turn forwarded, and
# the end of an asynchronous generate job.
ETCH_PACKET_SEALED = "etchPacketSealed"
ETCH_PACKET_SEAL_FAILED = "etchPacketSealFailed"
ETCH_PACKET_EXPIRED = "etchPacketExpired"
SIGNER_FORWARDED = "signerForwarded"
GENERATE_PDF_JOB_FINISHED = "generatePdfJobFinished"
EXTENSION_ACTIONS = frozenset(
    {
        ETCH_PACKET_SEALED,
        ETCH_PACKET_SEAL_FAILED,
        ETCH_PACKET_EXPIRED,
        SIGNER_FORWARDED,
        GENERATE_PDF_JOB_FINISHED,
    }
)
ACTIONS = frozenset(WebhookEvent.Action.values) | EXTENSION_ACTIONS

Status = WebhookDelivery.Status


def event_emit(
    *,
    organization: Organization,
    action: str,
    data: dict[str, Any],
    webhook_url: str | None = None,
    requested_by: str = "",
) -> WebhookEvent:
    """Record an event and, when a URL is in force, enqueue its delivery in the transaction.

    Call it inside the transaction that makes the change it reports: if that rolls back, there
    was no event. ``webhook_url`` (the object's own URL) takes precedence over the
    organization's. With neither (or the organization's disabled after a 410) the event is kept
    with a delivery marked "not sent", which can be resent once a URL is set.
    """
    if action not in ACTIONS:
        raise ValueError(f"unknown webhook action {action!r}")
    json.dumps(data)  # plain JSON only: a TypeError here, not in the worker
    # The form only: the address was checked when the URL was set (check_webhook_url), and the
    # guard checks it again at delivery; no DNS lookup in the caller's transaction.
    url = webhook_url_form(webhook_url) if webhook_url else ""
    # No savepoint of its own: the event belongs to the caller's transaction, which fails with
    # it (two statements fewer per event; a request emits several).
    with transaction.atomic(savepoint=False):
        event = WebhookEvent.objects.create(
            organization=organization, action=action, data=data, webhook_url=url
        )
        delivery_start(event=event, requested_by=requested_by)
    return event


def delivery_start(
    *, event: WebhookEvent, requested_by: str, due: datetime | None = None
) -> WebhookDelivery:
    """A new delivery of ``event`` to the URL in force, its task enqueued in the transaction;
    ``due`` (a replay's pace) holds its first attempt until then."""
    url, why_not = url_in_force(organization=event.organization, webhook_url=event.webhook_url)
    delivery = WebhookDelivery(
        event=event, organization=event.organization, url=url, requested_by=requested_by[:200]
    )
    if not url:
        DELIVERIES.move(delivery, Status.SKIPPED)  # before it is first saved
        delivery.last_error = why_not
        delivery.save()
        return delivery
    now = timezone.now()
    delivery.next_attempt_at = due or now
    delivery.save()
    task = task_named(WEBHOOK_DELIVER)
    if due and due > now and task.get_backend().supports_defer:
        task = task.using(run_after=due)
    enqueue_in_transaction(task, delivery_id=delivery.pk)
    return delivery


def delivery_resend(*, delivery: WebhookDelivery, requested_by: str) -> WebhookDelivery:
    """Send the delivery's event again, as a new delivery with the same ``webhook-id``, to the
    URL in force now (the object's own, else the organization's)."""
    with transaction.atomic():
        return delivery_start(event=delivery.event, requested_by=requested_by)


def delivery_get(*, organization: Organization, eid: str) -> WebhookDelivery:
    """The organization's delivery ``eid``; NotFound for another organization's too."""
    delivery = (
        WebhookDelivery.objects.select_related("event", "organization")
        .filter(organization=organization, eid=eid)
        .first()
    )
    if delivery is None:
        raise NotFound(f"No webhook log with the eid '{eid}'.")
    return delivery


def webhook_test(
    *, organization: Organization, url: str | None = None, requested_by: str = ""
) -> WebhookDelivery:
    """Emit a ``webhookTest`` event to ``url`` (default: the organization's URL)."""
    event = event_emit(
        organization=organization,
        action=WebhookEvent.Action.WEBHOOK_TEST,
        data={
            "message": "This is a test delivery.",
            "organizationEid": organization.eid,
            "organizationSlug": organization.slug,
        },
        webhook_url=url or None,
        requested_by=requested_by,
    )
    return event.deliveries.get()


def deliveries_filter(
    *,
    organization: Organization,
    status: str = "",
    action: str = "",
    search: str = "",
) -> QuerySet[WebhookDelivery]:
    deliveries = WebhookDelivery.objects.filter(organization=organization).select_related("event")
    if status in Status.values:
        deliveries = deliveries.filter(status=status)
    if action in ACTIONS:
        deliveries = deliveries.filter(event__action=action)
    if search.strip():
        term = search.strip()[:100]
        deliveries = deliveries.filter(Q(eid=term) | Q(event__eid=term) | Q(url__icontains=term))
    return deliveries.order_by("-created_at", "-id")
