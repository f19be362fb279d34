"""Emails to signers, sent by tasks, never inside a request.

The transaction that makes a signer's turn start writes a ``SignerEmail`` row (the outbox) and
enqueues ``esign.tasks.signer_email_task``. The task claims the row (a lease), mints the link,
sends through Django's mail outside any transaction, then records the outcome: sent (the audit
trail says so, and the signer is ``delivered``) or failed (retried after
``SIGNER_EMAIL_RETRY_DELAYS``; once they run out the row is ``failed`` and the trail says so).
A worker killed while sending leaves a claim whose lease runs out: :func:`signer_emails_recover`
(the worker's sweep) enqueues it again. The email may then go out twice, which is documented;
never zero times.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.core.mail import BadHeaderError, send_mail
from django.db import transaction
from django.utils import timezone

from core.background import enqueue_in_transaction, retry_later
from esign import lifecycle
from esign.audit import AuditAction, audit
from esign.models import Packet, Signer, SignerEmail
from esign.tokens import TOKEN_TTL, signer_token_issue, signing_url

logger = logging.getLogger(__name__)

# How long a send may take before its claim counts as lost (a killed worker).
LEASE = timedelta(minutes=2)


def signer_email_queue(*, signer: Signer) -> SignerEmail | None:
    """Queue the signing email of ``signer`` (in the caller's transaction), if they get one."""
    if not (signer.signer_type == Signer.Kind.EMAIL and signer.enable_emails and signer.email):
        return None
    email = SignerEmail.objects.create(signer=signer)
    _enqueue(email.pk)
    return email


def _enqueue(email_id: int, attempt: int = 1) -> None:
    from esign.tasks import signer_email_task  # the task module names this service

    enqueue_in_transaction(signer_email_task, email_id=email_id, attempt=attempt)


def _message(signer: Signer, url: str) -> tuple[str, str]:
    packet = signer.packet
    # One line whatever the name holds (a workflow's title is made of a webform's answers):
    # a line break in a header is refused by Django's mail (BadHeaderError).
    subject = " ".join((packet.email_subject or f"Please sign: {packet.name}").split())
    body = (packet.email_body + "\n\n" if packet.email_body else "") + (
        f'{signer.name},\n\nYou are asked to sign "{packet.name}". Open this link to review and '
        f"sign (it expires in {int(TOKEN_TTL.total_seconds() // 3600)} hours):\n\n{url}\n"
    )
    return subject, body


def _claim(email_id: int, now: datetime) -> tuple[SignerEmail, str] | None:
    """Take the email for one attempt: count it, set the lease, mint the link."""
    with transaction.atomic():
        email = (
            SignerEmail.objects.select_for_update()
            .select_related("signer__packet")
            .filter(pk=email_id)
            .first()
        )
        if email is None or email.status != SignerEmail.Status.PENDING:
            return None
        if email.claimed_until is not None and email.claimed_until > now:
            return None  # another attempt is sending it
        signer = email.signer
        if signer.status not in (Signer.Status.SENT, Signer.Status.DELIVERED) or (
            signer.packet.status not in lifecycle.OPEN_PACKET
        ):
            email.status = SignerEmail.Status.CANCELLED
            email.save(update_fields=["status"])
            return None
        email.attempts += 1
        email.claimed_until = now + LEASE
        email.save(update_fields=["attempts", "claimed_until"])
        url = signing_url(signer=signer, token=signer_token_issue(signer=signer))
    return email, url


def signer_email_send(*, email_id: int, attempt: int = 1) -> str:
    """One attempt at sending email ``email_id``; what happened, for the task's result."""
    claimed = _claim(email_id, timezone.now())
    if claimed is None:
        return "not due"
    email, url = claimed
    signer = email.signer
    subject, body = _message(signer, url)
    try:
        send_mail(subject, body, None, [signer.email], fail_silently=False)
    except (OSError, BadHeaderError) as error:
        return _failed(email, attempt, f"{type(error).__name__}: {error}"[:500])
    with transaction.atomic():
        packet = Packet.objects.select_for_update().get(pk=signer.packet_id)
        email = SignerEmail.objects.select_for_update().get(pk=email.pk)
        email.status = SignerEmail.Status.SENT
        email.sent_at = timezone.now()
        email.claimed_until = None
        email.save(update_fields=["status", "sent_at", "claimed_until"])
        signer = Signer.objects.select_for_update().get(pk=signer.pk)
        signer.packet = packet
        audit(packet=packet, signer=signer, action=AuditAction.SIGNER_EMAIL_SENT)
        if lifecycle.signer_may_move(signer, Signer.Status.DELIVERED):
            lifecycle.signer_move(signer, Signer.Status.DELIVERED)
        if packet.status == Packet.Status.SENT:
            lifecycle.packet_move(packet, Packet.Status.DELIVERED)
    return "sent"


def _failed(email: SignerEmail, attempt: int, error: str) -> str:
    logger.warning("esign: the signing email %s could not be sent: %s", email.pk, error)
    from esign.tasks import signer_email_task

    with transaction.atomic():
        email = (
            SignerEmail.objects.select_for_update()
            .select_related("signer__packet")
            .get(pk=email.pk)
        )
        email.last_error = error
        email.claimed_until = None
        retry_at = retry_later(
            signer_email_task,
            kwargs={"email_id": email.pk},
            attempt=attempt,
            delays=settings.SIGNER_EMAIL_RETRY_DELAYS,
        )
        if retry_at is not None:
            email.due_at = retry_at
        else:
            email.status = SignerEmail.Status.FAILED
            audit(
                packet=email.signer.packet,
                signer=email.signer,
                action=AuditAction.SIGNER_EMAIL_FAILED,
                detail={"attempts": email.attempts},
            )
        email.save(update_fields=["last_error", "claimed_until", "status", "due_at"])
    return f"retrying at {retry_at.isoformat()}" if retry_at else "failed"


def signer_emails_recover(*, now: datetime | None = None) -> int:
    """The worker's sweep (esign.sweeps): pending emails due for a while whose task was lost (a
    claim whose lease ran out, a queued task that never ran) are enqueued again. Returns how
    many."""
    now = now or timezone.now()
    lost = (
        SignerEmail.objects.filter(status=SignerEmail.Status.PENDING, due_at__lt=now - LEASE)
        .exclude(claimed_until__gt=now)
        .values_list("pk", flat=True)
    )
    ids = list(lost)
    with transaction.atomic():
        for email_id in ids:
            SignerEmail.objects.filter(pk=email_id).update(claimed_until=None, due_at=now)
            _enqueue(email_id)
    return len(ids)
