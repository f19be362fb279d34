"""Delivery attempts, in three steps so that no database transaction is open during the HTTP
calls: claim (count the attempt, log it as in progress, take a lease, build the signed body),
POST through the outbound guard, finish (log the answer; delivered, retry later or failed).

Claimed in batches: the task of one delivery also claims up to ``WEBHOOK_DELIVERY_BATCH - 1``
other deliveries that are due and unclaimed (``SKIP LOCKED``: two workers take different ones),
retires their waiting tasks in the same transaction, sends them one after the other and finishes
them all in one transaction. The claim and the finish, most of a delivery's cost in the worker,
are paid once per batch instead of once per delivery.

A worker that dies between the first and the last step leaves the claims behind; the sweep
(``webhooks.services.retries.deliveries_recover``) retries them once their lease ran out. The
lease of every delivery of a batch of n is ``WEBHOOK_LEASE_SECONDS`` plus n - 1 times
``WEBHOOK_TIMEOUT_SECONDS``: the batch is finished after its last POST, so each lease must cover
all of them (a shorter one let the sweep retry a delivery a live worker was about to finish, and
the receiver got it twice). A worker killed during a batch leaves every delivery of it to be sent
again: at most one batch of duplicates per killed worker, each marked by its abandoned attempt.
The receiver's successes are written as soon as the batch's POSTs are done, before the finish:
a finish that is lost after that (a failed transaction, a worker killed) leaves deliveries that
the recovery and the next claim finish as delivered, never send again.

Locks, in one order everywhere: only delivery rows (``of=("self",)``: never their event's or
organization's, which every transaction that records an event takes a key-share lock on), each
before its attempts'. A claim waits only for its own delivery and takes the others with
``SKIP LOCKED``; a finish locks its batch by ascending id; the sweep skips what is locked. (A
claim that also locked the organization deadlocked on PostgreSQL with a finish that held a
delivery of the claim's and waited for the organization, and that batch was sent again.)
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
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from core.engine.fetch import FetchError, PostResponse, post
from core.engine.payload_crypto import encrypt_payload
from core.resources import webhook_policy
from core.row_writes import rows_update
from core.tasks_registry import task_named, task_path
from webhooks.engine.signing import signature_headers
from webhooks.models import (
    DELIVERIES,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)
from webhooks.services.endpoints import endpoint_get, secrets_current
from webhooks.services.retries import (
    DELIVERY_FIELDS,
    attempts_delivered,
    delivered_finish,
    retry_schedule,
)
from webhooks.task_names import WEBHOOK_DELIVER

logger = logging.getLogger(__name__)

Status = WebhookDelivery.Status
Outcome = WebhookAttempt.Outcome

DISABLED_ERROR = "The webhook URL answered 410 Gone and was disabled."


@dataclass(frozen=True)
class _Claimed:
    delivery_id: int
    number: int
    url: str
    body: bytes
    headers: dict[str, str]


@dataclass(frozen=True)
class _Sent:
    claimed: _Claimed
    response: PostResponse | None
    error: str
    elapsed: float


def delivery_attempt(*, delivery_id: int, attempt: int, now: datetime | None = None) -> str:
    """Run attempt number ``attempt`` of a delivery (the task's body), and the next attempt of
    other due deliveries in the same batch; returns what happened to this one (and how many
    others went with it).

    Idempotent: a delivery already finished, or whose attempt ``attempt`` already started (a
    duplicate task, a task re-enqueued by recovery, a delivery sent in another task's batch), is
    left alone, and then no batch is taken either.
    """
    batch = _claim(delivery_id=delivery_id, attempt=attempt, now=now or timezone.now())
    if isinstance(batch, str):
        return batch
    sent: list[_Sent] = []
    gone: set[str] = set()  # URLs that answered 410 Gone in this batch: disabled, not sent again
    for claimed in batch:
        if claimed.url in gone:
            sent.append(_Sent(claimed, None, DISABLED_ERROR, 0.0))
            continue
        sent.append(_send(claimed))
        if sent[-1].response is not None and sent[-1].response.status == 410:
            gone.add(claimed.url)
    _successes_record(sent)
    outcomes = _finish(sent)
    more = f" (and {len(batch) - 1} more in its batch)" if len(batch) > 1 else ""
    return outcomes[0] + more


def _send(claimed: _Claimed) -> _Sent:
    started = time.monotonic()
    response: PostResponse | None = None
    error = ""
    try:
        response = post(claimed.url, claimed.body, webhook_policy(), headers=claimed.headers)
    except FetchError as failure:
        error = f"{failure.code}: {failure.message}"
    except Exception as failure:  # noqa: BLE001 - logged and recorded; the attempt must finish
        logger.exception("Webhook delivery %s failed unexpectedly", claimed.delivery_id)
        error = f"internal_error: {type(failure).__name__}"
    elapsed = response.elapsed_seconds if response else time.monotonic() - started
    return _Sent(claimed, response, error, elapsed)


def _successes_record(sent: list[_Sent]) -> None:
    """Write at once, before the batch's finish, which attempts the receiver accepted (one
    UPDATE per status code, usually one): if the finish is lost (its transaction failed, the
    worker was killed), the recovery and the next claim find the delivery delivered
    (``retries.attempts_delivered``) instead of sending it a second time. It locks attempt rows
    only, in a statement of its own."""
    by_code: dict[int, Q] = {}
    for item in sent:
        code = item.response.status if item.response is not None else 0
        if 200 <= code < 300:
            match = Q(delivery_id=item.claimed.delivery_id, number=item.claimed.number)
            by_code[code] = by_code[code] | match if code in by_code else match
    now = timezone.now()
    for code, attempts in by_code.items():
        WebhookAttempt.objects.filter(attempts).update(
            outcome=Outcome.DELIVERED, status_code=code, finished_at=now
        )


def _claim(*, delivery_id: int, attempt: int, now: datetime) -> list[_Claimed] | str:
    """Claim the delivery's attempt and up to ``WEBHOOK_DELIVERY_BATCH - 1`` others that are
    due (theirs first in line), in one transaction; the reason when this one is not claimable."""
    with transaction.atomic():
        delivery = (
            WebhookDelivery.objects.select_for_update(of=("self",))
            .select_related("event", "organization")
            .annotate(attempt_delivered=_ATTEMPT_DELIVERED)
            .filter(pk=delivery_id)
            .first()
        )
        if delivery is None or delivery.status != Status.PENDING:
            return "finished already"
        if attempt <= delivery.attempt_count:
            return "attempt started already"
        if delivery.claimed_until is not None:
            return "attempt under way"
        endpoints: dict[int, WebhookEndpoint] = {}
        if _endpoint_disabled(delivery, endpoints):
            delivery.last_error = DISABLED_ERROR
            DELIVERIES.fail(delivery, now=now)
            delivery.save()
            return "endpoint disabled"
        batch = _others_take(delivery, endpoints, now=now)
        # Checked under the locks, before anything is sent: an attempt that a lost finish left
        # recorded as delivered makes its delivery delivered, not sent a second time.
        if any(item.attempt_delivered for item in batch):  # type: ignore[attr-defined]
            delivered = attempts_delivered([item.pk for item in batch])
            done = [item for item in batch if item.pk in delivered]
            for item in done:
                delivered_finish(item, *delivered[item.pk], now=now)
            rows_update(done, DELIVERY_FIELDS)
            if delivery.pk in delivered:
                return "delivered already"
            batch = [item for item in batch if item.pk not in delivered]
        _tasks_retire([other.pk for other in batch[1:]], by=delivery_id, now=timezone.now())
        lease = timedelta(seconds=settings.WEBHOOK_LEASE_SECONDS) + (len(batch) - 1) * timedelta(
            seconds=settings.WEBHOOK_TIMEOUT_SECONDS
        )
        DELIVERIES.claim(batch, now=now, lease=lease)
        secrets: dict[int, list[str]] = {}
        claimed = []
        attempts = []
        for item in batch:
            attempts.append(
                WebhookAttempt(delivery=item, number=item.attempt_count, started_at=now)
            )
            if item.organization_id not in secrets:
                secrets[item.organization_id] = [
                    s.secret for s in secrets_current(organization=item.organization, now=now)
                ]
            body, headers = _signed_body(
                event=item.event,
                endpoint=endpoints[item.organization_id],
                secrets=secrets[item.organization_id],
                now=now,
            )
            claimed.append(_Claimed(item.pk, item.attempt_count, item.url, body, headers))
        WebhookAttempt.objects.bulk_create(attempts)
        return claimed


# Whether an attempt of the delivery was delivered (read with its row, at no extra query).
_ATTEMPT_DELIVERED = Exists(
    WebhookAttempt.objects.filter(delivery=OuterRef("pk"), outcome=Outcome.DELIVERED)
)


def _others_take(
    delivery: WebhookDelivery, endpoints: dict[int, WebhookEndpoint], *, now: datetime
) -> list[WebhookDelivery]:
    """The batch: ``delivery`` (locked by the caller) and up to ``WEBHOOK_DELIVERY_BATCH - 1``
    other due deliveries, locked too. Rows another process holds are skipped, never waited
    for: a claim waits only for its own delivery's row, so it cannot deadlock with a finish
    (which locks its batch by ascending id) or a sweep."""
    batch = [delivery]
    room = settings.WEBHOOK_DELIVERY_BATCH - 1
    if room <= 0:
        return batch
    others = (
        DELIVERIES.due(now)
        .select_for_update(skip_locked=True, of=("self",))
        .select_related("event", "organization")
        .annotate(attempt_delivered=_ATTEMPT_DELIVERED)
        .exclude(pk=delivery.pk)
        .order_by("next_attempt_at", "pk")[: room * 2]
    )
    for other in others:
        if len(batch) > room:
            break
        if not _endpoint_disabled(other, endpoints):
            batch.append(other)
    return batch


def _endpoint_disabled(delivery: WebhookDelivery, endpoints: dict[int, WebhookEndpoint]) -> bool:
    """Whether the delivery goes to its organization's URL, disabled after a 410 (``endpoints``:
    the organizations' endpoints read so far, filled in)."""
    if delivery.organization_id not in endpoints:
        endpoints[delivery.organization_id] = endpoint_get(organization=delivery.organization)
    endpoint = endpoints[delivery.organization_id]
    return delivery.url == endpoint.url and endpoint.disabled_at is not None


def _tasks_retire(delivery_ids: list[int], *, by: int, now: datetime) -> None:
    """Mark the waiting tasks of deliveries claimed into a batch done, so that no worker spends a
    claim on them (they would only find the attempt started already). Looked for in the task's
    queue only (core's index of the unfinished tasks by queue): without it every ready task was
    read for its JSON, 28 ms a claim with 10,000 seals waiting on PostgreSQL, against 0.6 ms."""
    if not delivery_ids:
        return
    DBTaskResult.objects.filter(
        status=TaskResultStatus.READY,
        queue_name=task_named(WEBHOOK_DELIVER).queue_name,
        task_path=task_path(WEBHOOK_DELIVER),
        args_kwargs__kwargs__delivery_id__in=delivery_ids,
    ).update(
        status=TaskResultStatus.SUCCESSFUL,
        started_at=now,
        finished_at=now,
        return_value=f"sent in the batch of delivery {by}",
    )


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


def _finish(sent: list[_Sent]) -> list[str]:
    """Record every answer of a batch in one transaction; the outcomes, in the batch's order."""
    now = timezone.now()
    with transaction.atomic():
        ids = [item.claimed.delivery_id for item in sent]
        deliveries = {
            d.pk: d
            for d in WebhookDelivery.objects.select_for_update(of=("self",))
            .select_related("organization")
            .filter(pk__in=ids)
            .order_by("pk")
        }
        numbers = {(item.claimed.delivery_id, item.claimed.number) for item in sent}
        attempts = {
            (a.delivery_id, a.number): a
            for a in WebhookAttempt.objects.filter(delivery_id__in=ids)
            if (a.delivery_id, a.number) in numbers
        }
        outcomes = []
        for item in sent:
            delivery = deliveries[item.claimed.delivery_id]
            attempt = attempts[(delivery.pk, item.claimed.number)]
            outcomes.append(_finish_one(delivery, attempt, item, now=now))
        rows_update(
            list(attempts.values()),
            ["finished_at", "duration_ms", "status_code", "error", "response_excerpt", "outcome"],
        )
        rows_update([deliveries[pk] for pk in ids], DELIVERY_FIELDS)
        return outcomes


def _finish_one(
    delivery: WebhookDelivery,
    attempt: WebhookAttempt,
    sent: _Sent,
    *,
    now: datetime,
) -> str:
    """Set what the answer means on the delivery and its attempt (saved by the caller)."""
    response, error = sent.response, sent.error
    status_code = response.status if response else None
    if response is not None and not 200 <= response.status < 300:
        error = f"HTTP {response.status} {response.reason}".strip()[:500]
    attempt.finished_at = now
    attempt.duration_ms = round(sent.elapsed * 1000)
    attempt.status_code = status_code
    attempt.error = error[:500]
    attempt.response_excerpt = _excerpt(response) if response else ""
    # Recovery took this attempt for abandoned (the lease ran out while the POST was slow)
    # and scheduled the next one: only a success still counts.
    superseded = delivery.attempt_count != sent.claimed.number or delivery.status != Status.PENDING
    delivery.last_status_code = status_code
    delivery.last_error = error[:500]
    delivery.updated_at = now
    if status_code is not None and 200 <= status_code < 300:
        attempt.outcome = Outcome.DELIVERED
        if delivery.status != Status.DELIVERED:  # not by another attempt already
            DELIVERIES.finish(delivery, Status.DELIVERED, now=now)
        delivery.delivered_at = now
    elif superseded:
        attempt.outcome = Outcome.RETRY if delivery.status == Status.PENDING else Outcome.FAILED
    elif status_code == 410 or sent.error == DISABLED_ERROR:  # DISABLED_ERROR: not sent
        attempt.outcome = Outcome.FAILED
        DELIVERIES.fail(delivery, now=now)
        if status_code == 410:
            WebhookEndpoint.objects.filter(
                organization=delivery.organization, url=delivery.url, disabled_at__isnull=True
            ).update(disabled_at=now)
    else:
        retry_at = retry_schedule(delivery, sent.claimed.number, response, now)
        attempt.outcome = Outcome.RETRY if retry_at else Outcome.FAILED
    return attempt.outcome
