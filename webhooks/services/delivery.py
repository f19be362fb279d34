"""One delivery attempt, in three steps so that no database transaction is open during the HTTP
call: claim (count the attempt, log it as in progress, take a lease, build the signed body),
POST through the outbound guard, finish (log the answer; delivered, retry later or failed).

A worker that dies between the first and the last step leaves the claim behind; the sweep
(``webhooks.services.retries.deliveries_recover``) retries it once its lease ran out.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.engine.fetch import FetchError, PostResponse, post
from core.engine.payload_crypto import encrypt_payload
from core.resources import webhook_policy
from webhooks.engine.signing import signature_headers
from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEvent
from webhooks.services.endpoints import endpoint_get, secrets_current
from webhooks.services.retries import delivery_fail, retry_schedule

logger = logging.getLogger(__name__)

Status = WebhookDelivery.Status
Outcome = WebhookAttempt.Outcome


@dataclass(frozen=True)
class _Claimed:
    delivery_id: int
    number: int
    url: str
    body: bytes
    headers: dict[str, str]


def delivery_attempt(*, delivery_id: int, attempt: int, now: datetime | None = None) -> str:
    """Run attempt number ``attempt`` of a delivery (the task's body); returns what happened.

    Idempotent: a delivery already finished, or whose attempt ``attempt`` already started (a
    duplicate task, a task re-enqueued by recovery), is left alone.
    """
    claimed = _claim(delivery_id=delivery_id, attempt=attempt, now=now or timezone.now())
    if isinstance(claimed, str):
        return claimed
    started = time.monotonic()
    response: PostResponse | None = None
    error = ""
    try:
        response = post(claimed.url, claimed.body, webhook_policy(), headers=claimed.headers)
    except FetchError as failure:
        error = f"{failure.code}: {failure.message}"
    except Exception as failure:  # noqa: BLE001 - logged and recorded; the attempt must finish
        logger.exception("Webhook delivery %s failed unexpectedly", delivery_id)
        error = f"internal_error: {type(failure).__name__}"
    elapsed = response.elapsed_seconds if response else time.monotonic() - started
    return _finish(claimed=claimed, response=response, error=error, elapsed=elapsed)


def _claim(*, delivery_id: int, attempt: int, now: datetime) -> _Claimed | str:
    with transaction.atomic():
        delivery = (
            WebhookDelivery.objects.select_for_update()
            .select_related("event", "organization")
            .filter(pk=delivery_id)
            .first()
        )
        if delivery is None or delivery.status != Status.PENDING:
            return "finished already"
        if attempt <= delivery.attempt_count:
            return "attempt started already"
        if delivery.claimed_until is not None:
            return "attempt under way"
        endpoint = endpoint_get(organization=delivery.organization)
        if delivery.url == endpoint.url and endpoint.disabled_at is not None:
            delivery.status = Status.FAILED
            delivery.last_error = "The webhook URL answered 410 Gone and was disabled."
            delivery.next_attempt_at = None
            delivery.save()
            return "endpoint disabled"
        number = delivery.attempt_count + 1
        delivery.attempt_count = number
        delivery.claimed_until = now + timedelta(seconds=settings.WEBHOOK_LEASE_SECONDS)
        delivery.save(update_fields=["attempt_count", "claimed_until", "updated_at"])
        WebhookAttempt.objects.create(delivery=delivery, number=number, started_at=now)
        secrets = [s.secret for s in secrets_current(organization=delivery.organization, now=now)]
        body, headers = _signed_body(
            event=delivery.event, endpoint=endpoint, secrets=secrets, now=now
        )
        return _Claimed(delivery.pk, number, delivery.url, body, headers)


def _signed_body(
    *, event: WebhookEvent, endpoint: WebhookEndpoint, secrets: list[str], now: datetime
) -> tuple[bytes, dict[str, str]]:
    """The body ``{"action", "token", "data"}`` (``data`` encrypted when the integrator gave a
    public key) and its Standard Webhooks headers, signed with every current secret."""
    data: Any = event.data
    if endpoint.public_key_pem:
        data = encrypt_payload(event.data, endpoint.public_key_pem.encode())
    body = json.dumps(
        {"action": event.action, "token": endpoint.token, "data": data},
        separators=(",", ":"),
        ensure_ascii=False,
    ).encode("utf-8")
    headers = signature_headers(
        secrets=secrets, message_id=event.message_id, timestamp=int(now.timestamp()), body=body
    )
    headers["Content-Type"] = "application/json"
    return body, headers


def _excerpt(response: PostResponse) -> str:
    text = response.body.decode("utf-8", errors="replace")
    return text + (" […]" if response.truncated else "")


def _finish(*, claimed: _Claimed, response: PostResponse | None, error: str, elapsed: float) -> str:
    now = timezone.now()
    status_code = response.status if response else None
    if response is not None and not 200 <= response.status < 300:
        error = f"HTTP {response.status} {response.reason}".strip()[:500]
    with transaction.atomic():
        delivery = (
            WebhookDelivery.objects.select_for_update()
            .select_related("organization")
            .get(pk=claimed.delivery_id)
        )
        attempt = WebhookAttempt.objects.get(delivery=delivery, number=claimed.number)
        attempt.finished_at = now
        attempt.duration_ms = round(elapsed * 1000)
        attempt.status_code = status_code
        attempt.error = error[:500]
        attempt.response_excerpt = _excerpt(response) if response else ""
        # Recovery took this attempt for abandoned (the lease ran out while the POST was slow)
        # and scheduled the next one: only a success still counts.
        superseded = delivery.attempt_count != claimed.number or delivery.status != Status.PENDING
        delivery.last_status_code = status_code
        delivery.last_error = error[:500]
        if status_code is not None and 200 <= status_code < 300:
            attempt.outcome = Outcome.DELIVERED
            delivery.status = Status.DELIVERED
            delivery.delivered_at = now
            delivery.next_attempt_at = None
            delivery.claimed_until = None
        elif superseded:
            attempt.outcome = Outcome.RETRY if delivery.status == Status.PENDING else Outcome.FAILED
        elif status_code == 410:
            attempt.outcome = Outcome.FAILED
            delivery_fail(delivery)
            WebhookEndpoint.objects.filter(
                organization=delivery.organization, url=delivery.url, disabled_at__isnull=True
            ).update(disabled_at=now)
        else:
            retry_at = retry_schedule(delivery, claimed.number, response, now)
            attempt.outcome = Outcome.RETRY if retry_at else Outcome.FAILED
        attempt.save()
        delivery.save()
        return attempt.outcome
