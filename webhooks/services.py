"""Webhooks: settings, emitting events, delivering them, resending, and recovering lost work.

Other apps call :func:`event_emit` inside the transaction that changes the state the event
reports; the delivery task (``webhooks.tasks.webhook_deliver``) is enqueued in that transaction,
so it commits with the event or not at all, and runs after the commit. Delivery is at least
once: receivers deduplicate by ``webhook-id``.

One delivery attempt is three steps, so that no database transaction is open during the HTTP
call: claim (count the attempt, log it as in progress, take a lease), POST through the outbound
guard, finish (log the answer; delivered, retry later or failed). A worker that dies between the
first and the last step leaves the claim behind; :func:`deliveries_recover` finds claims whose
lease ran out and retries them, and due deliveries whose task was lost, and re-enqueues them.
Task workers (``manage.py worker``) run it every ``TASKS_SWEEP_SECONDS`` (``webhooks.sweeps``).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from accounts.models import Organization
from core.background import enqueue_in_transaction, retry_later
from core.eids import random_base62
from core.engine.fetch import FetchError, PostResponse, check_address, post
from core.engine.payload_crypto import encrypt_payload
from core.errors import NotFound, ValidationFailed
from core.resources import webhook_policy
from webhooks.engine.signing import new_secret, retry_after_seconds, signature_headers
from webhooks.models import (
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
    WebhookSecret,
)
from webhooks.tasks import webhook_deliver

logger = logging.getLogger(__name__)

ACTIONS = frozenset(WebhookEvent.Action.values)
TOKEN_LENGTH = 32
MIN_PUBLIC_KEY_BITS = 2048
MAX_PUBLIC_KEY_PEM = 10_000
RETRY_AFTER_MAX_SECONDS = 86_400.0
NO_URL_REASON = "No webhook URL is set."
_url_validator = URLValidator(schemes=["http", "https"])

Status = WebhookDelivery.Status
Outcome = WebhookAttempt.Outcome


# --- settings of the organization ---------------------------------------------------------------


def endpoint_get(*, organization: Organization) -> WebhookEndpoint:
    """The organization's endpoint settings, made (with a token) on first use."""
    endpoint, _ = WebhookEndpoint.objects.get_or_create(
        organization=organization, defaults={"token": random_base62(TOKEN_LENGTH)}
    )
    return endpoint


def check_webhook_url(url: str, *, property: str = "webhookURL") -> str:
    """``url`` stripped if it is an http(s) URL that deliveries may reach; a 400 on ``property``
    otherwise. Call it where a URL is set (never inside a transaction: it may resolve the host
    name): a URL the outbound guard would refuse at every delivery (a private or loopback
    address) is refused here, with the setting that would allow it."""
    url = _webhook_url_form(url, property=property)
    try:
        check_address(url, webhook_policy())
    except FetchError as error:
        if error.code != "address_not_allowed":
            raise ValidationFailed.single(property, error.message) from None
        host = urlsplit(url).hostname or ""
        raise ValidationFailed.single(
            property,
            f"{host} is a private, loopback or otherwise non-public address, and webhooks are "
            "only sent to public ones. To allow it (a receiver on this machine or your "
            f"intranet), add {host} to the FETCH_ALLOW_HOSTS setting (or its network to "
            "FETCH_ALLOW_NETWORKS) and restart the service.",
        ) from None
    return url


def _webhook_url_form(url: str, *, property: str = "webhookURL") -> str:
    """``url`` stripped if it is an http(s) URL; a 400 on ``property`` otherwise."""
    url = url.strip()
    try:
        _url_validator(url)
    except ValidationError:
        raise ValidationFailed.single(property, "Enter an http or https URL.") from None
    if len(url) > 2000:
        raise ValidationFailed.single(property, "The URL is longer than 2000 characters.")
    return url


def endpoint_url_set(*, organization: Organization, url: str) -> WebhookEndpoint:
    """Set (or with "" clear) the organization's URL; saving it re-enables a disabled endpoint."""
    checked = check_webhook_url(url, property="url") if url.strip() else ""  # before the writes
    with transaction.atomic():
        endpoint = endpoint_get(organization=organization)
        endpoint.url = checked
        endpoint.disabled_at = None
        endpoint.save(update_fields=["url", "disabled_at", "updated_at"])
    return endpoint


@transaction.atomic
def endpoint_token_rotate(*, organization: Organization) -> WebhookEndpoint:
    endpoint = endpoint_get(organization=organization)
    endpoint.token = random_base62(TOKEN_LENGTH)
    endpoint.save(update_fields=["token", "updated_at"])
    return endpoint


def check_public_key(pem: str) -> str:
    """The integrator's RSA public key as SPKI PEM; a 400 on ``publicKey`` if it is not one."""
    text = pem.strip()
    if len(text) > MAX_PUBLIC_KEY_PEM:
        raise ValidationFailed.single("publicKey", "The key file is too large for a public key.")
    if "PRIVATE KEY" in text:
        raise ValidationFailed.single(
            "publicKey", "This is a private key: upload the public key only, keep this one secret."
        )
    try:
        key = serialization.load_pem_public_key(text.encode())
    except (ValueError, TypeError):
        raise ValidationFailed.single(
            "publicKey", "Not a PEM public key (-----BEGIN PUBLIC KEY-----)."
        ) from None
    if not isinstance(key, rsa.RSAPublicKey):
        raise ValidationFailed.single("publicKey", "The key must be an RSA key.")
    if key.key_size < MIN_PUBLIC_KEY_BITS:
        raise ValidationFailed.single(
            "publicKey", f"The key has {key.key_size} bits; at least {MIN_PUBLIC_KEY_BITS}."
        )
    spki = key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return spki.decode("ascii")


@transaction.atomic
def endpoint_public_key_set(*, organization: Organization, pem: str) -> WebhookEndpoint:
    """Register (or with "" remove) the integrator's key; from now on ``data`` is encrypted."""
    endpoint = endpoint_get(organization=organization)
    endpoint.public_key_pem = check_public_key(pem) if pem.strip() else ""
    endpoint.save(update_fields=["public_key_pem", "updated_at"])
    return endpoint


def secrets_current(
    *, organization: Organization, now: datetime | None = None
) -> list[WebhookSecret]:
    """The secrets that sign now, newest first; the first one is made on first use."""
    now = now or timezone.now()
    current = list(
        WebhookSecret.objects.filter(organization=organization).filter(
            Q(expires_at__isnull=True) | Q(expires_at__gt=now)
        )
    )
    if not current:
        current = [
            WebhookSecret.objects.create(
                organization=organization, secret=new_secret(), created_at=now
            )
        ]
    return current


@transaction.atomic
def secret_rotate(*, organization: Organization, now: datetime | None = None) -> WebhookSecret:
    """A new signing secret; the previous one keeps signing for the overlap, then expires.

    At most two secrets sign at once: one still overlapping from an earlier rotation expires now.
    """
    now = now or timezone.now()
    overlap = timedelta(hours=settings.WEBHOOK_SECRET_OVERLAP_HOURS)
    WebhookSecret.objects.filter(organization=organization, expires_at__gt=now).update(
        expires_at=now
    )
    WebhookSecret.objects.filter(organization=organization, expires_at__isnull=True).update(
        expires_at=now + overlap
    )
    return WebhookSecret.objects.create(
        organization=organization, secret=new_secret(), created_at=now
    )


# --- events -------------------------------------------------------------------------------------


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
    url = _webhook_url_form(webhook_url) if webhook_url else ""
    with transaction.atomic():
        event = WebhookEvent.objects.create(
            organization=organization, action=action, data=data, webhook_url=url
        )
        _delivery_start(event=event, requested_by=requested_by)
    return event


def _delivery_start(*, event: WebhookEvent, requested_by: str) -> WebhookDelivery:
    endpoint = endpoint_get(organization=event.organization)
    url = event.webhook_url or (endpoint.url if endpoint.is_active else "")
    delivery = WebhookDelivery(
        event=event, organization=event.organization, url=url, requested_by=requested_by[:200]
    )
    if not url:
        delivery.status = Status.SKIPPED
        delivery.last_error = (
            "The webhook URL answered 410 Gone and was disabled; save it again to re-enable it."
            if endpoint.url
            else NO_URL_REASON
        )
        delivery.save()
        return delivery
    delivery.next_attempt_at = timezone.now()
    delivery.save()
    enqueue_in_transaction(webhook_deliver, delivery_id=delivery.pk)
    return delivery


def delivery_resend(*, delivery: WebhookDelivery, requested_by: str) -> WebhookDelivery:
    """Send the delivery's event again, as a new delivery with the same ``webhook-id``, to the
    URL in force now (the object's own, else the organization's)."""
    with transaction.atomic():
        return _delivery_start(event=delivery.event, requested_by=requested_by)


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


# --- delivering ---------------------------------------------------------------------------------


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
        event = delivery.event
        signing = [s.secret for s in secrets_current(organization=delivery.organization, now=now)]
        data: Any = event.data
        if endpoint.public_key_pem:
            data = encrypt_payload(event.data, endpoint.public_key_pem.encode())
        body = json.dumps(
            {"action": event.action, "token": endpoint.token, "data": data},
            separators=(",", ":"),
            ensure_ascii=False,
        ).encode("utf-8")
        headers = signature_headers(
            secrets=signing,
            message_id=event.message_id,
            timestamp=int(now.timestamp()),
            body=body,
        )
        headers["Content-Type"] = "application/json"
        return _Claimed(delivery.pk, number, delivery.url, body, headers)


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
            _fail(delivery)
            WebhookEndpoint.objects.filter(
                organization=delivery.organization, url=delivery.url, disabled_at__isnull=True
            ).update(disabled_at=now)
        else:
            retry_at = _schedule_retry(delivery, claimed.number, response, now)
            attempt.outcome = Outcome.RETRY if retry_at else Outcome.FAILED
        attempt.save()
        delivery.save()
        return attempt.outcome


def _fail(delivery: WebhookDelivery) -> None:
    delivery.status = Status.FAILED
    delivery.next_attempt_at = None
    delivery.claimed_until = None


def retry_delays() -> tuple[float, ...]:
    return tuple(settings.WEBHOOK_RETRY_DELAYS)


def _schedule_retry(
    delivery: WebhookDelivery, number: int, response: PostResponse | None, now: datetime
) -> datetime | None:
    """Enqueue the next attempt (on commit) and note when it is due; None once retries ran out."""
    delays: Sequence[float] = retry_delays()
    jitter = 0.1
    wait = retry_after_seconds(response.header("Retry-After") if response else None, now=now)
    if wait is not None and number <= len(delays) and wait > delays[number - 1]:
        # The receiver said when: wait that long (at most a day), not less.
        delays = list(delays)
        delays[number - 1] = min(wait, RETRY_AFTER_MAX_SECONDS)
        jitter = 0.0
    retry_at = retry_later(
        webhook_deliver,
        kwargs={"delivery_id": delivery.pk},
        attempt=number,
        delays=delays,
        jitter=jitter,
        now=now,
    )
    if retry_at is None:
        _fail(delivery)
        return None
    delivery.next_attempt_at = retry_at
    delivery.claimed_until = None
    return retry_at


# --- recovery -----------------------------------------------------------------------------------


class WorkerLost(Exception):
    """Recorded on a task result that a worker left running when it died."""


@dataclass(frozen=True)
class Recovered:
    abandoned: int  # attempts claimed by a worker that died, retried
    requeued: int  # due deliveries whose task was lost, enqueued again
    tasks_failed: int  # task results left RUNNING by a dead worker, marked failed


def deliveries_recover(*, now: datetime | None = None) -> Recovered:
    """Retry what a dead worker or web process left behind. Safe to run at any time, in any
    number of processes at once: each row is re-checked under its lock."""
    now = now or timezone.now()
    lease = timedelta(seconds=settings.WEBHOOK_LEASE_SECONDS)
    abandoned = requeued = 0
    claimed = WebhookDelivery.objects.filter(status=Status.PENDING, claimed_until__lt=now)
    for pk in list(claimed.values_list("pk", flat=True)[:1000]):
        with transaction.atomic():
            delivery = claimed.select_for_update(skip_locked=True).filter(pk=pk).first()
            if delivery is None:
                continue
            WebhookAttempt.objects.filter(
                delivery=delivery, number=delivery.attempt_count, outcome=Outcome.IN_PROGRESS
            ).update(
                outcome=Outcome.ABANDONED,
                finished_at=now,
                error="The worker stopped during this attempt; it is retried.",
            )
            delivery.claimed_until = None
            delivery.last_error = "The worker stopped during an attempt."
            if delivery.attempt_count > len(retry_delays()):
                _fail(delivery)
            else:
                delivery.next_attempt_at = now
                enqueue_in_transaction(
                    webhook_deliver, delivery_id=pk, attempt=delivery.attempt_count + 1
                )
            delivery.save()
            abandoned += 1
    lost = WebhookDelivery.objects.filter(
        status=Status.PENDING, claimed_until__isnull=True, next_attempt_at__lt=now - lease
    )
    for pk in list(lost.values_list("pk", flat=True)[:1000]):
        with transaction.atomic():
            delivery = lost.select_for_update(skip_locked=True).filter(pk=pk).first()
            if delivery is None:
                continue
            # Due again from now: the next sweep leaves it alone while this task waits its turn.
            delivery.next_attempt_at = now
            delivery.save(update_fields=["next_attempt_at", "updated_at"])
            if _task_waiting(pk):
                continue  # not lost: waiting in a long queue
            enqueue_in_transaction(
                webhook_deliver, delivery_id=pk, attempt=delivery.attempt_count + 1
            )
            requeued += 1
    tasks_failed = 0
    stuck = DBTaskResult.objects.filter(
        status=TaskResultStatus.RUNNING,
        task_path=webhook_deliver.module_path,
        started_at__lt=now - lease,
    )
    for result in stuck:
        result.set_failed(WorkerLost("The worker stopped while running this task."))
        tasks_failed += 1
    if abandoned or requeued or tasks_failed:
        logger.warning(
            "Webhook recovery: %d abandoned attempts retried, %d lost deliveries re-enqueued, "
            "%d task results marked failed",
            abandoned,
            requeued,
            tasks_failed,
        )
    return Recovered(abandoned=abandoned, requeued=requeued, tasks_failed=tasks_failed)


def _task_waiting(delivery_id: int) -> bool:
    """Whether a task for the delivery is still waiting to run (ready, not yet claimed)."""
    return DBTaskResult.objects.filter(
        status=TaskResultStatus.READY,
        task_path=webhook_deliver.module_path,
        args_kwargs__kwargs__delivery_id=delivery_id,
    ).exists()
