"""GraphQL: the ``retryWebhookLog``, ``webhookTest`` and ``replayWebhookEvents`` mutations and
their ``WebhookLog`` type (one delivery of an event, with its attempts)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import graphene

from accounts.identity import ApiIdentity
from core.errors import ValidationFailed
from core.graphql.fields import at_path
from core.graphql.mutations import ServiceMutation
from core.graphql.scalars import DateTime
from core.moments import ISO_MESSAGE, parse_moment
from webhooks.models import WebhookAttempt, WebhookDelivery
from webhooks.services import (
    Replayed,
    check_webhook_url,
    delivery_get,
    delivery_resend,
    organization_events_replay,
    webhook_test,
)


class WebhookAttemptType(graphene.ObjectType):
    class Meta:
        name = "WebhookAttempt"

    number = graphene.Int(required=True)
    outcome = graphene.String(required=True)
    status_code = graphene.Int()
    duration_ms = graphene.Int()
    error = graphene.String()
    response_excerpt = graphene.String()
    started_at = DateTime()
    finished_at = DateTime()


class WebhookLogType(graphene.ObjectType):
    class Meta:
        name = "WebhookLog"

    eid = graphene.String(required=True)
    # Of the event delivered.
    action = graphene.String(required=True, resolver=at_path("event.action"))
    event_eid = graphene.String(required=True, resolver=at_path("event.eid"))
    webhook_id = graphene.String(
        required=True,
        description="The `webhook-id` header it is sent with.",
        resolver=at_path("event.message_id"),
    )
    url = graphene.String()
    status = graphene.String(required=True, description="pending, delivered, failed or skipped.")
    attempt_count = graphene.Int(required=True)
    last_status_code = graphene.Int()
    last_error = graphene.String()
    next_attempt_at = DateTime()
    delivered_at = DateTime()
    created_at = DateTime()
    attempts = graphene.List(graphene.NonNull(WebhookAttemptType), required=True)

    @staticmethod
    def resolve_attempts(delivery: WebhookDelivery, info: Any) -> list[WebhookAttempt]:
        return list(delivery.attempts.order_by("number"))


def _requested_by(identity: ApiIdentity) -> str:
    return f"API key {identity.api_key.prefix}… (GraphQL)"


class RetryWebhookLog(ServiceMutation):
    """Send a logged delivery's event again (same webhook-id); returns the new log."""

    class Arguments:
        eid = graphene.String(required=True)

    Output = WebhookLogType

    @classmethod
    def perform(cls, identity: ApiIdentity, *, eid: str) -> WebhookDelivery:
        delivery = delivery_get(organization=identity.organization, eid=eid)
        return delivery_resend(delivery=delivery, requested_by=_requested_by(identity))


class WebhookTest(ServiceMutation):
    """Send a `webhookTest` event; returns its log (delivery happens after it)."""

    class Arguments:
        url = graphene.String(description="Where to send it; default: the organization's URL.")

    Output = WebhookLogType

    @classmethod
    def perform(cls, identity: ApiIdentity, *, url: str | None = None) -> WebhookDelivery:
        if url:
            check_webhook_url(url, property="url")
        return webhook_test(
            organization=identity.organization, url=url, requested_by=_requested_by(identity)
        )


class WebhookReplayType(graphene.ObjectType):
    class Meta:
        name = "WebhookReplay"

    count = graphene.Int(required=True, description="How many events are sent again.")
    last_due_at = DateTime(
        description="When the last of them is due (they are paced).", source="last_due"
    )
    logs = graphene.List(
        graphene.NonNull(WebhookLogType),
        required=True,
        description="The new deliveries, oldest event first.",
    )

    @staticmethod
    def resolve_count(replayed: Replayed, info: Any) -> int:
        return len(replayed.deliveries)

    @staticmethod
    def resolve_logs(replayed: Replayed, info: Any) -> list[WebhookDelivery]:
        return replayed.deliveries


def _moment(text: str, property: str) -> datetime:
    """An ISO 8601 date and time; without an offset, UTC."""
    moment = parse_moment(text)
    if moment is None:
        raise ValidationFailed.single(property, ISO_MESSAGE)
    return moment


class ReplayWebhookEvents(ServiceMutation):
    """An extension for operators: send the organization's events of a time range again (of
    some actions, or all), oldest first, paced (`WEBHOOK_REPLAY_PER_SECOND`), each as a new
    WebhookLog with the event's own `webhook-id` so receivers deduplicate. The API key's member
    must be an owner or admin of the organization (else `ForbiddenError`). At most
    `WEBHOOK_REPLAYS_PER_HOUR` replays of the organization in any hour (with the admin's): one
    more is a `RateLimitError` (429, `retryAfter` seconds) and sends nothing."""

    class Arguments:
        since = graphene.String(
            required=True, description="ISO 8601; events created at or after it (UTC if no offset)."
        )
        until = graphene.String(required=True, description="ISO 8601; events created before it.")
        actions = graphene.List(
            graphene.NonNull(graphene.String),
            description="Only these actions (etchPacketComplete, ...); default: every action.",
        )

    Output = WebhookReplayType

    @classmethod
    def perform(
        cls, identity: ApiIdentity, *, since: str, until: str, actions: list[str] | None = None
    ) -> Replayed:
        return organization_events_replay(
            organization=identity.organization,
            user=identity.user,
            since=_moment(since, "since"),
            until=_moment(until, "until"),
            actions=actions or (),
            requested_by=_requested_by(identity),
        )


class Mutation(graphene.ObjectType):
    retry_webhook_log = RetryWebhookLog.Field()
    webhook_test = WebhookTest.Field()
    replay_webhook_events = ReplayWebhookEvents.Field()
