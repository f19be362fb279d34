"""Claiming an Idempotency-Key, keeping its answer, and forgetting it after its time.

A request with a key first *claims* it: one INSERT, which the unique constraint on
(organization, key) lets only one request win. The winner runs and then *completes* the key
with its answer (or *releases* it when it failed, so that a retry may run); everyone else sees
the row: the same request gets the kept answer, another request a 409.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction

from accounts.models import Organization
from core.errors import Conflict
from idempotency.models import IdempotencyKey

logger = logging.getLogger(__name__)


class IdempotencyConflict(Conflict):
    """A 409 in the wire shape (``ConflictError``) that names the key; with ``Retry-After`` when
    waiting helps (the key's request is still running)."""

    def __init__(self, message: str, *, retry_after_seconds: int | None = None) -> None:
        self.retry_after_seconds = retry_after_seconds
        super().__init__(message)


@dataclass(frozen=True)
class Claimed:
    """This request runs; ``key_id`` is completed or released after it."""

    key_id: int


@dataclass(frozen=True)
class Replay:
    """The first answer, to give again without running."""

    status_code: int
    content_type: str
    body: bytes


@dataclass(frozen=True)
class RunAgain:
    """The same request was answered, and nothing of the answer was kept on purpose (fill):
    run it again, and keep nothing."""


Outcome = Claimed | Replay | RunAgain


def _expiry(now: datetime) -> datetime:
    return now + timedelta(hours=settings.IDEMPOTENCY_KEY_HOURS)


def idempotency_claim(
    *, organization: Organization, key: str, request_hash: str, now: datetime
) -> Outcome:
    """Claim ``key`` for a request whose hash is ``request_hash``, or say what to answer instead.

    Raises :class:`IdempotencyConflict` when the key came with another request, or when its
    request is still running (the client retries in a moment and gets the answer).
    """
    for _ in range(3):  # a row that expires or is released in between: try the insert again
        try:
            with transaction.atomic():
                row = IdempotencyKey.objects.create(
                    organization=organization,
                    key=key,
                    request_hash=request_hash,
                    created_at=now,
                    expires_at=_expiry(now),
                )
            return Claimed(key_id=row.pk)
        except IntegrityError:
            pass
        existing = IdempotencyKey.objects.filter(organization=organization, key=key).first()
        if existing is None:
            continue
        if existing.expires_at <= now:
            IdempotencyKey.objects.filter(pk=existing.pk, expires_at__lte=now).delete()
            continue
        return _answer_from(existing, key=key, request_hash=request_hash, now=now)
    raise IdempotencyConflict(
        f"The Idempotency-Key '{key}' is busy; try again in a moment.", retry_after_seconds=1
    )


def _answer_from(row: IdempotencyKey, *, key: str, request_hash: str, now: datetime) -> Outcome:
    if row.request_hash != request_hash:
        raise IdempotencyConflict(
            f"The Idempotency-Key '{key}' was already used with a different request in the last "
            f"{settings.IDEMPOTENCY_KEY_HOURS:g} hours; send a new key for a new request."
        )
    if row.state == IdempotencyKey.State.RUNNING:
        stale = now - timedelta(seconds=settings.IDEMPOTENCY_RUNNING_SECONDS)
        # A runner that died (its process killed) never completes nor releases: after
        # IDEMPOTENCY_RUNNING_SECONDS its key is taken over, by one request only (compare-and-set).
        if row.created_at < stale and IdempotencyKey.objects.filter(
            pk=row.pk, state=IdempotencyKey.State.RUNNING, created_at=row.created_at
        ).update(created_at=now, expires_at=_expiry(now)):
            return Claimed(key_id=row.pk)
        raise IdempotencyConflict(
            f"A request with the Idempotency-Key '{key}' is still being processed; "
            "retry in a moment to get its answer.",
            retry_after_seconds=1,
        )
    if row.kept == IdempotencyKey.Kept.NOTHING:
        return RunAgain()
    if row.kept == IdempotencyKey.Kept.TOO_LARGE or row.body is None:
        raise IdempotencyConflict(
            f"The request with the Idempotency-Key '{key}' was answered, but its answer was "
            f"larger than the {settings.IDEMPOTENCY_MAX_STORED_BYTES} bytes kept; it is not "
            "made again. Send a new key to run it again."
        )
    return Replay(
        status_code=row.status_code or 200, content_type=row.content_type, body=bytes(row.body)
    )


def idempotency_complete(
    *, key_id: int, status_code: int, content_type: str, body: bytes | None, keep: bool = True
) -> None:
    """Keep the answer of the claimed key (``keep`` False: keep nothing of it, as fill asks).
    An answer over ``IDEMPOTENCY_MAX_STORED_BYTES``, or streamed (``body`` None), is recorded
    without its body."""
    if not keep:
        kept, stored = IdempotencyKey.Kept.NOTHING, None
    elif body is None or len(body) > settings.IDEMPOTENCY_MAX_STORED_BYTES:
        kept, stored = IdempotencyKey.Kept.TOO_LARGE, None
    else:
        kept, stored = IdempotencyKey.Kept.BODY, body
    IdempotencyKey.objects.filter(pk=key_id, state=IdempotencyKey.State.RUNNING).update(
        state=IdempotencyKey.State.DONE,
        kept=kept,
        status_code=status_code,
        content_type=content_type,
        body=stored,
    )


def idempotency_release(*, key_id: int) -> None:
    """Forget a claimed key whose request failed (an error, a refusal): a retry with it runs."""
    IdempotencyKey.objects.filter(pk=key_id, state=IdempotencyKey.State.RUNNING).delete()


def idempotency_keys_expire(*, now: datetime) -> int:
    """Delete the keys whose time is over; how many."""
    deleted, _ = IdempotencyKey.objects.filter(expires_at__lte=now).delete()
    return deleted
