"""Emails to signers, sent by tasks, never inside a request.

The transaction that makes a signer's turn start writes a ``SignerEmail`` row (the outbox) and
enqueues ``esign.tasks.signer_email_task`` (by its name). The task claims the row (a lease:
the row is an outbox row, ``esign.lifecycle.EMAILS``, moved by its table), mints the link,
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
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from core.background import enqueue_in_transaction
from core.sweeps import without_unfinished_task
from core.tasks_registry import task_path
from esign.links.limits import new_link_count
from esign.links.tokens import (
    TOKEN_TTL,
    signer_token_issue,
    signing_url,
)
from esign.models import Packet, Signer, SignerEmail
from esign.packets import lifecycle
from esign.packets.audit import AuditAction
from esign.packets.documents import COPY_LINK_DAYS, signer_copy_url
from esign.packets.languages import written_language
from esign.packets.lifecycle import audit
from esign.task_names import SIGNER_EMAIL

logger = logging.getLogger(__name__)


def _lease() -> timedelta:
    """How long a send may take before its claim counts as lost (a killed worker)."""
    return timedelta(seconds=settings.SIGNER_EMAIL_LEASE_SECONDS)


# A signer may be sent one email of a kind at a time: another is queued only once it went out.
WAITING_FOR_LINK = (Signer.Status.SENT, Signer.Status.DELIVERED, Signer.Status.VIEWED)


def gets_emails(signer: Signer) -> bool:
    return signer.signer_type == Signer.Kind.EMAIL and signer.enable_emails and bool(signer.email)


def signer_email_queue(
    *, signer: Signer, kind: str = SignerEmail.Kind.SIGNING
) -> SignerEmail | None:
    """Queue an email of ``kind`` to ``signer`` (in the caller's transaction), if they get
    emails and none of that kind is waiting already."""
    if not gets_emails(signer):
        return None
    waiting = SignerEmail.objects.filter(
        signer=signer, kind=kind, status=SignerEmail.Status.PENDING
    )
    if waiting.exists():
        return None
    email = SignerEmail.objects.create(signer=signer, kind=kind)
    _enqueue(email.pk)
    return email


def signer_email_resend(*, signer: Signer, requested_by: str, by_signer: bool = False) -> bool:
    """A new link by email for a signer whose turn it is (asked for by the sender through the
    API or the admin, or ``by_signer`` on the expired-link page); audited. False when they do
    not get emails, it is not their turn, or one is already on its way; ``RateLimited``, and
    nothing sent, past the cap on new links (``esign.links.limits``)."""
    new_link_count(signer=signer, by_signer=by_signer)
    with transaction.atomic():
        packet = Packet.objects.select_for_update().get(pk=signer.packet_id)
        signer = Signer.objects.get(pk=signer.pk)
        signer.packet = packet
        if packet.status not in lifecycle.OPEN_PACKET or signer.status not in WAITING_FOR_LINK:
            return False
        email = signer_email_queue(signer=signer, kind=SignerEmail.Kind.RESEND)
        if email is None:
            return False
        audit(
            packet=packet,
            signer=signer,
            action=AuditAction.SIGNER_EMAIL_REQUESTED,
            detail={"requestedBy": requested_by[:200]},
        )
    return True


def signer_reminders_queue(*, now: datetime | None = None) -> int:
    """The worker's sweep: email signers of open packets with ``reminder_days`` who have not
    signed get a reminder once their last email is that many days old. Returns how many."""
    now = now or timezone.now()
    queued = 0
    packets = Packet.objects.filter(
        status__in=lifecycle.OPEN_PACKET, reminder_days__isnull=False, reminder_days__gt=0
    ).exclude(expires_at__lte=now)  # past its expiry, before the sweep expires it
    for packet in packets:
        due_before = now - timedelta(days=packet.reminder_days or 0)
        # A viewer is never waited for (esign.packets.roles): nothing to remind them of.
        for signer in packet.signers.filter(status__in=WAITING_FOR_LINK).exclude(role="viewer"):
            signer.packet = packet
            last = signer.emails.exclude(status=SignerEmail.Status.CANCELLED).order_by("-pk")
            newest = last.first()
            if newest is None or newest.status == SignerEmail.Status.PENDING:
                continue  # never emailed (embedded, or emails off), or one is on its way
            if (newest.sent_at or newest.created_at) > due_before:
                continue
            with transaction.atomic():
                if signer_email_queue(signer=signer, kind=SignerEmail.Kind.REMINDER):
                    queued += 1
    return queued


def _enqueue(email_id: int, attempt: int = 1) -> None:
    enqueue_in_transaction(SIGNER_EMAIL, email_id=email_id, attempt=attempt)


def signer_copies_queue(packet: Packet) -> int:
    """The packet was sealed (in the caller's transaction): every signer who signed and gets
    emails is sent a link to their copy."""
    queued = 0
    for signer in packet.signers.filter(status=Signer.Status.COMPLETED):
        signer.packet = packet
        queued += signer_email_queue(signer=signer, kind=SignerEmail.Kind.COPY) is not None
    return queued


def _openings() -> dict[str, str]:
    """The first sentence of a signing email by its kind, in the active language."""
    return {
        SignerEmail.Kind.SIGNING: _("You are asked to sign “{packet}”."),
        SignerEmail.Kind.RESEND: _("Here is a new link to sign “{packet}”."),
        SignerEmail.Kind.REMINDER: _("A reminder: you are still asked to sign “{packet}”."),
        SignerEmail.Kind.FORWARD: _("You are asked to sign “{packet}” in place of {previous}."),
    }


def _message(email: SignerEmail, url: str) -> tuple[str, str]:
    """The subject and body of ``email``, in the signer's language (esign.packets.languages)."""
    with translation.override(written_language(signer=email.signer)):
        return _message_text(email, url)


def _message_text(email: SignerEmail, url: str) -> tuple[str, str]:
    signer = email.signer
    packet = signer.packet
    if email.kind == SignerEmail.Kind.COPY:
        subject = " ".join(_("Signed: {packet}").format(packet=packet.name).split())
        return subject, _(
            "{name},\n\nEverybody has signed “{packet}”. Your copy of the signed documents, "
            "sealed by the service, with their audit trail, is here (the link works for {days} "
            "days):\n\n{url}\n"
        ).format(name=signer.name, packet=packet.name, days=COPY_LINK_DAYS, url=url)
    subject = packet.email_subject or _("Please sign: {packet}").format(packet=packet.name)
    if email.kind == SignerEmail.Kind.REMINDER:
        subject = _("Reminder: {subject}").format(subject=subject)
    # One line whatever the name holds (a workflow's title is made of a webform's answers):
    # a line break in a header is refused by Django's mail (BadHeaderError).
    subject = " ".join(subject.split())
    hours = int(TOKEN_TTL.total_seconds() // 3600)
    if signer.role in ("approver", "viewer"):  # they sign nothing (esign.packets.roles)
        return _role_message(email, url, hours)
    # A forwarded turn (esign.signing.forwarding) names whose place the signer takes.
    previous = signer.forwarded_from.name if signer.forwarded_from else ""
    opening = _openings()[email.kind].format(packet=packet.name, previous=previous)
    body = (packet.email_body + "\n\n" if packet.email_body else "") + _(
        "{name},\n\n{opening} Open this link to review and sign (it expires in {hours} "
        "hours):\n\n{url}\n"
    ).format(name=signer.name, opening=opening, hours=hours, url=url)
    return subject, body


def _role_message(email: SignerEmail, url: str, hours: int) -> tuple[str, str]:
    """The email of an approver (to approve or reject) or a viewer (to read), who sign nothing."""
    signer, packet = email.signer, email.signer.packet
    if signer.role == "approver":
        subject = _("Please approve: {packet}")
        opening = _("You are asked to approve “{packet}”.")
        ask = _("Open this link to review it, then approve or reject it")
    else:
        subject = _("To read: {packet}")
        opening = _("“{packet}” is shared with you to read; you have nothing to sign.")
        ask = _("Open this link to read it")
    if email.kind == SignerEmail.Kind.REMINDER:
        subject = _("Reminder: {subject}").format(subject=subject)
    subject = " ".join(subject.format(packet=packet.name).split())
    body = (packet.email_body + "\n\n" if packet.email_body else "") + _(
        "{name},\n\n{opening} {ask} (it expires in {hours} hours):\n\n{url}\n"
    ).format(
        name=signer.name,
        opening=opening.format(packet=packet.name),
        ask=ask,
        hours=hours,
        url=url,
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
        if lifecycle.EMAILS.leased(email, now):
            return None  # another attempt is sending it
        signer = email.signer
        if email.kind == SignerEmail.Kind.COPY:
            due = signer.packet.seal_status == Packet.SealStatus.SEALED
        else:
            due = signer.status in WAITING_FOR_LINK and (
                signer.packet.status in lifecycle.OPEN_PACKET
            )
        if not due:
            lifecycle.EMAILS.move(email, SignerEmail.Status.CANCELLED)
            email.save(update_fields=["status"])
            return None
        lifecycle.EMAILS.claim([email], now=now, lease=_lease())
        if email.kind == SignerEmail.Kind.COPY:
            url = signer_copy_url(signer)
        else:
            url = signing_url(signer=signer, token=signer_token_issue(signer=signer))
    return email, url


def signer_email_send(*, email_id: int, attempt: int = 1) -> str:
    """One attempt at sending email ``email_id``; what happened, for the task's result."""
    claimed = _claim(email_id, timezone.now())
    if claimed is None:
        return "not due"
    email, url = claimed
    signer = email.signer
    subject, body = _message(email, url)
    try:
        send_mail(subject, body, None, [signer.email], fail_silently=False)
    except (OSError, BadHeaderError) as error:
        return _failed(email, attempt, f"{type(error).__name__}: {error}"[:500])
    with transaction.atomic():
        packet = Packet.objects.select_for_update().get(pk=signer.packet_id)
        email = SignerEmail.objects.select_for_update().get(pk=email.pk)
        email.sent_at = timezone.now()
        lifecycle.EMAILS.finish(email, SignerEmail.Status.SENT, now=email.sent_at)
        email.save(update_fields=[*lifecycle.EMAILS.fields, "sent_at"])
        signer = Signer.objects.select_for_update().get(pk=signer.pk)
        signer.packet = packet
        audit(
            packet=packet,
            signer=signer,
            action=AuditAction.SIGNER_EMAIL_SENT,
            detail={"kind": email.kind},
        )
        if lifecycle.signer_may_move(signer, Signer.Status.DELIVERED):
            lifecycle.signer_move(signer, Signer.Status.DELIVERED)
        if packet.status == Packet.Status.SENT:
            lifecycle.packet_move(packet, Packet.Status.DELIVERED)
    return "sent"


def _failed(email: SignerEmail, attempt: int, error: str) -> str:
    logger.warning("esign: the signing email %s could not be sent: %s", email.pk, error)
    with transaction.atomic():
        email = (
            SignerEmail.objects.select_for_update()
            .select_related("signer__packet")
            .get(pk=email.pk)
        )
        retry_at = lifecycle.EMAILS.retry_or_fail(
            email,
            error=error,
            task=SIGNER_EMAIL,
            kwargs={"email_id": email.pk},
            attempt=attempt,
            delays=settings.SIGNER_EMAIL_RETRY_DELAYS,
            now=timezone.now(),
        )
        if retry_at is None:
            audit(
                packet=email.signer.packet,
                signer=email.signer,
                action=AuditAction.SIGNER_EMAIL_FAILED,
                detail={"attempts": email.attempts},
            )
        email.save(update_fields=lifecycle.EMAILS.fields)
    return f"retrying at {retry_at.isoformat()}" if retry_at else "failed"


def signer_emails_recover(*, now: datetime | None = None) -> int:
    """The worker's sweep (esign.sweeps): pending emails whose task was lost (a claim whose lease
    ran out, a queued task that never ran for longer than the lease) are enqueued again, due now
    (core.outbox's recovery). Each kind is claimed as a set (``SELECT ... FOR UPDATE SKIP
    LOCKED``: an email another sweep holds is skipped) and handled in a fixed number of queries,
    whatever its size. Returns how many were enqueued."""
    now = now or timezone.now()
    path = task_path(SIGNER_EMAIL)

    def recover(rows: list[SignerEmail], abandoned: bool) -> int:
        ids = [email.pk for email in rows]
        # Released and due from now, so the next sweeps leave them alone for a lease.
        SignerEmail.objects.filter(pk__in=ids).update(claimed_until=None, due_at=now)
        # Unless its attempt was abandoned, a task queued, or running within its lease (the
        # sweep marked those running longer failed), will claim the email: not lost, only
        # waiting in a long queue.
        lost = (
            rows
            if abandoned
            else without_unfinished_task(rows, task_path=path, kwarg="email_id", running=True)
        )
        for email in lost:
            _enqueue(email.pk)
        return len(lost)

    recovered = lifecycle.EMAILS.recover(now=now, grace=_lease(), handle_all=recover)
    return recovered.abandoned + recovered.lost
