"""Replaying an organization's webhook events for operators: every event of a time range (and of
some actions) sent again, oldest first, paced, each as a new delivery with the event's own
``webhook-id`` so that receivers deduplicate what they already had.

Who may: an owner or admin of the organization (the API key's member, or the staff user in the
admin); :func:`replay_allowed` says so, and the GraphQL mutation and the admin action check it.

How much: one replay sends at most ``WEBHOOK_REPLAY_MAX_EVENTS`` events, and an organization
makes at most ``WEBHOOK_REPLAYS_PER_HOUR`` replays in any hour (a sliding window, counted from
their ``WebhookReplay`` rows): each replay is a new delivery per event, so replays in a row
would multiply the receiver's load without end. One past the cap is ``RateLimited`` (the wire's
429 ``RateLimitError``, with when the oldest replay of the hour leaves the window) and sends
nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from accounts.models import Membership, Organization, User
from core.errors import RateLimited, ServiceError, ValidationFailed
from webhooks.models import WebhookDelivery, WebhookEvent, WebhookReplay
from webhooks.services.events import ACTIONS, delivery_start

MANAGER_ROLES = (Membership.Role.OWNER, Membership.Role.ADMIN)
# A replayed delivery's ``requested_by`` starts with it; the log shows it as it is.
REPLAY_PREFIX = "Replay by "
# The cap's window: WEBHOOK_REPLAYS_PER_HOUR replays of an organization in any such span.
REPLAY_WINDOW = timedelta(hours=1)


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


def _replays_capped(*, organizations: Sequence[Organization], now: datetime) -> None:
    """Refuse (RateLimited) when one of ``organizations`` has made WEBHOOK_REPLAYS_PER_HOUR
    replays in the hour before ``now``. Call it in the replay's transaction: the organizations'
    rows are locked first, so two replays at once cannot both take the last one."""
    limit = settings.WEBHOOK_REPLAYS_PER_HOUR
    # FOR NO KEY UPDATE on PostgreSQL: it still lets rows that refer to the organization be
    # written meanwhile (FOR UPDATE would hold every insert of its packets and events).
    no_key = connection.features.has_select_for_no_key_update
    locked = Organization.objects.select_for_update(no_key=no_key)
    list(locked.filter(pk__in=[o.pk for o in organizations]).order_by("pk"))
    for organization in organizations:
        # No upper bound at ``now``: a replay that took its time after this one (its ``now``
        # read later, its commit first) is in the hour too, and is counted.
        recent = WebhookReplay.objects.filter(
            organization=organization, created_at__gt=now - REPLAY_WINDOW
        )
        times = list(recent.order_by("created_at").values_list("created_at", flat=True))
        if len(times) < limit:
            continue
        if limit <= 0:
            raise RateLimited(3600, "Webhook replays are off (WEBHOOK_REPLAYS_PER_HOUR is 0).")
        # The next one may start once enough of them have left the window to be under the cap.
        free_at = times[len(times) - limit] + REPLAY_WINDOW
        wait = max(1, math.ceil((free_at - now).total_seconds()))
        raise RateLimited(
            wait,
            f"{organization.name} has replayed its webhook events {len(times)} times in the last"
            f" hour, as many as WEBHOOK_REPLAYS_PER_HOUR ({limit}) allows; nothing was sent."
            f" The next replay may start at {free_at:%Y-%m-%d %H:%M:%S} UTC"
            f" (in {wait} seconds).",
        )


def events_replay(
    *, events: Sequence[WebhookEvent], requested_by: str, now: datetime | None = None
) -> Replayed:
    """Send ``events`` again in their order, one new delivery each, the n-th due n / pace
    seconds after ``now``; its ``requested_by`` says it is a replay and who asked. One
    transaction: all of them are scheduled, or none (``RateLimited`` when an organization of the
    events has made its WEBHOOK_REPLAYS_PER_HOUR replays; a replay of no event is none)."""
    now = now or timezone.now()
    step = timedelta(seconds=1 / settings.WEBHOOK_REPLAY_PER_SECOND)
    label = f"{REPLAY_PREFIX}{requested_by}"[:200]
    by_organization: dict[int, list[WebhookEvent]] = {}
    for event in events:
        by_organization.setdefault(event.organization_id, []).append(event)
    organizations = sorted({e.organization for e in events}, key=lambda o: o.pk)
    deliveries: list[WebhookDelivery] = []
    with transaction.atomic():
        _replays_capped(organizations=organizations, now=now)
        for organization in organizations:
            WebhookReplay.objects.create(
                organization=organization,
                requested_by=label,
                events=len(by_organization[organization.pk]),
                created_at=now,
            )
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
