"""The wire descriptions of webhooks' GraphQL (webhooks/schema.py) not given where its types
are defined: the delivery log and its attempts."""

from __future__ import annotations

# type -> field -> description; a field's argument as "field(argument)". Merged with the other
# apps' in config.graphql_docs and set on the root schema (core.graphql.descriptions).
DESCRIPTIONS: dict[str, dict[str, str]] = {
    "Mutation": {
        "retryWebhookLog(eid)": "The delivery to send again (WebhookLog.eid).",
    },
    "WebhookLog": {
        "eid": "The delivery's id (retryWebhookLog's eid).",
        "action": "The event's action (etchPacketComplete, weldComplete...).",
        "eventEid": "The event's id, the same in every delivery of it (webhook-id).",
        "url": "Where it was sent.",
        "attemptCount": "How many attempts were made.",
        "lastStatusCode": "The HTTP status of the last attempt, if it got one.",
        "lastError": "Why the last attempt failed, if it did.",
        "nextAttemptAt": "When the next attempt is due (ISO 8601), if any.",
        "deliveredAt": "When it was delivered (ISO 8601), if it was.",
        "createdAt": "ISO 8601.",
        "attempts": "Every attempt, first to last.",
    },
    "WebhookAttempt": {
        "number": "The attempt's number, from 1.",
        "outcome": "in_progress, delivered, retry (another attempt follows), failed or "
        "abandoned (the worker stopped during it).",
        "statusCode": "The receiver's HTTP status, if it answered.",
        "durationMs": "How long the attempt took, in milliseconds.",
        "error": "Why it failed, if it did.",
        "responseExcerpt": "The start of the receiver's answer.",
        "startedAt": "ISO 8601.",
        "finishedAt": "ISO 8601.",
    },
}
