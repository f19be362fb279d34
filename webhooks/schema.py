"""GraphQL: the ``retryWebhookLog`` and ``webhookTest`` mutations and their ``WebhookLog`` type
(one delivery of an event, with its attempts)."""

from __future__ import annotations

from typing import Any

import graphene

from accounts.identity import ApiIdentity
from core.graphql.scalars import iso_ms
from webhooks.models import WebhookAttempt, WebhookDelivery
from webhooks.services import check_webhook_url, delivery_get, delivery_resend, webhook_test


class WebhookAttemptType(graphene.ObjectType):
    class Meta:
        name = "WebhookAttempt"

    number = graphene.Int(required=True)
    outcome = graphene.String(required=True)
    status_code = graphene.Int()
    duration_ms = graphene.Int()
    error = graphene.String()
    response_excerpt = graphene.String()
    started_at = graphene.String()
    finished_at = graphene.String()

    @staticmethod
    def resolve_started_at(attempt: WebhookAttempt, info: Any) -> str | None:
        return iso_ms(attempt.started_at)

    @staticmethod
    def resolve_finished_at(attempt: WebhookAttempt, info: Any) -> str | None:
        return iso_ms(attempt.finished_at)


class WebhookLogType(graphene.ObjectType):
    class Meta:
        name = "WebhookLog"

    eid = graphene.String(required=True)
    action = graphene.String(required=True)
    event_eid = graphene.String(required=True)
    webhook_id = graphene.String(
        required=True, description="The `webhook-id` header it is sent with."
    )
    url = graphene.String()
    status = graphene.String(required=True, description="pending, delivered, failed or skipped.")
    attempt_count = graphene.Int(required=True)
    last_status_code = graphene.Int()
    last_error = graphene.String()
    next_attempt_at = graphene.String()
    delivered_at = graphene.String()
    created_at = graphene.String()
    attempts = graphene.List(graphene.NonNull(WebhookAttemptType), required=True)

    @staticmethod
    def resolve_action(delivery: WebhookDelivery, info: Any) -> str:
        return delivery.event.action

    @staticmethod
    def resolve_event_eid(delivery: WebhookDelivery, info: Any) -> str:
        return delivery.event.eid

    @staticmethod
    def resolve_webhook_id(delivery: WebhookDelivery, info: Any) -> str:
        return delivery.event.message_id

    @staticmethod
    def resolve_next_attempt_at(delivery: WebhookDelivery, info: Any) -> str | None:
        return iso_ms(delivery.next_attempt_at)

    @staticmethod
    def resolve_delivered_at(delivery: WebhookDelivery, info: Any) -> str | None:
        return iso_ms(delivery.delivered_at)

    @staticmethod
    def resolve_created_at(delivery: WebhookDelivery, info: Any) -> str | None:
        return iso_ms(delivery.created_at)

    @staticmethod
    def resolve_attempts(delivery: WebhookDelivery, info: Any) -> list[WebhookAttempt]:
        return list(delivery.attempts.order_by("number"))


def _requested_by(identity: ApiIdentity) -> str:
    return f"API key {identity.api_key.prefix}… (GraphQL)"


def resolve_retry_webhook_log(root: Any, info: Any, eid: str) -> WebhookDelivery:
    identity: ApiIdentity = info.context.identity
    delivery = delivery_get(organization=identity.organization, eid=eid)
    return delivery_resend(delivery=delivery, requested_by=_requested_by(identity))


def resolve_webhook_test(root: Any, info: Any, url: str | None = None) -> WebhookDelivery:
    identity: ApiIdentity = info.context.identity
    if url:
        check_webhook_url(url, property="url")
    return webhook_test(
        organization=identity.organization, url=url, requested_by=_requested_by(identity)
    )


class Mutation(graphene.ObjectType):
    retry_webhook_log = graphene.Field(
        WebhookLogType,
        eid=graphene.String(required=True),
        resolver=resolve_retry_webhook_log,
        description="Send a logged delivery's event again (same webhook-id); returns the new log.",
    )
    webhook_test = graphene.Field(
        WebhookLogType,
        url=graphene.String(description="Where to send it; default: the organization's URL."),
        resolver=resolve_webhook_test,
        description="Send a `webhookTest` event; returns its log (delivery happens after it).",
    )
