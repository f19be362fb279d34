"""Replaying an organization's webhook events for operators: every event of a time range (and of
some actions) sent again, oldest first, paced, each as a new delivery with the event's own
``webhook-id`` so that receivers deduplicate what they already had.

Who may: an owner or admin of the organization (the API key's member, or the staff user in the
admin); :func:`replay_allowed` says so, and the GraphQL mutation and the admin action check it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import Membership, Organization, User
from core.errors import ServiceError, ValidationFailed
from webhooks.models import WebhookDelivery, WebhookEvent
from webhooks.services.events import ACTIONS, delivery_start

MANAGER_ROLES = (Membership.Role.OWNER, Membership.Role.ADMIN)
# A replayed delivery's ``requested_by`` starts with it; the log shows it as it is.
REPLAY_PREFIX = "Replay by "


class ReplayForbidden(ServiceError):
    name = "ForbiddenError"
    status = 403
    default_message = "Only an owner or admin of the organization may replay its webhook events."


@dataclass(frozen=True)
class Replayed:
    deliveries: list[WebhookDelivery]
    # When the last one is due: the pace is WEBHOOK_REPLAY_PER_SECOND.
    last_due: datetime | None


def replay_allowed(*, organization: Organization, user: User | None) -> bool:
    """An owner or admin of ``organization`` (a superuser too)."""
    if user is None:
        return False
    if user.is_superuser:
        return True
    return Membership.objects.filter(
        organization=organization, user=user, role__in=MANAGER_ROLES
    ).exists()


def replay_events_select(
    *,
    organization: Organization,
    since: datetime,
    until: datetime,
    actions: Sequence[str] = (),
) -> list[WebhookEvent]:
    """The organization's events created in [since, until), of ``actions`` (all if empty),
    oldest first; refused when the range is backwards, an action unknown, or there are more
    than WEBHOOK_REPLAY_MAX_EVENTS (narrow the range)."""
    if until <= since:
        raise ValidationFailed.single("until", "Must be after 'since'.")
    unknown = sorted(set(actions) - ACTIONS)
    if unknown:
        raise ValidationFailed.single(
            "actions", f"Unknown action(s): {', '.join(unknown)}; use {', '.join(sorted(ACTIONS))}."
        )
    events = WebhookEvent.objects.filter(
        organization=organization, created_at__gte=since, created_at__lt=until
    ).select_related("organization")
    if actions:
        events = events.filter(action__in=actions)
    limit = settings.WEBHOOK_REPLAY_MAX_EVENTS
    chosen = list(events.order_by("created_at", "id")[: limit + 1])
    if len(chosen) > limit:
        raise ValidationFailed.single(
            "since", f"More than {limit} events in this range; replay a narrower one."
        )
    return chosen


def events_replay(
    *, events: Sequence[WebhookEvent], requested_by: str, now: datetime | None = None
) -> Replayed:
    """Send ``events`` again in their order, one new delivery each, the n-th due n / pace
    seconds after ``now``; its ``requested_by`` says it is a replay and who asked. One
    transaction: all of them are scheduled, or none."""
    now = now or timezone.now()
    step = timedelta(seconds=1 / settings.WEBHOOK_REPLAY_PER_SECOND)
    label = f"{REPLAY_PREFIX}{requested_by}"[:200]
    deliveries: list[WebhookDelivery] = []
    with transaction.atomic():
        for index, event in enumerate(events):
            deliveries.append(
                delivery_start(event=event, requested_by=label, due=now + index * step)
            )
    return Replayed(
        deliveries=deliveries, last_due=now + (len(events) - 1) * step if events else None
    )


def organization_events_replay(
    *,
    organization: Organization,
    user: User | None,
    since: datetime,
    until: datetime,
    actions: Sequence[str] = (),
    requested_by: str,
    now: datetime | None = None,
) -> Replayed:
    """Check the caller may, choose the events, replay them."""
    if not replay_allowed(organization=organization, user=user):
        raise ReplayForbidden()
    events = replay_events_select(
        organization=organization, since=since, until=until, actions=actions
    )
    return events_replay(events=events, requested_by=requested_by, now=now)
