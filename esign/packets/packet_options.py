"""The packet's own options of createEtchPacket, read from their wire form
(esign.packets.inputs): its name, the signature email's subject and body, the reply-to, the
webhook URL, reminders, language, expiry (``expiresAt`` / ``expiresInDays``, also an extension
of the sender's: esign.sending.expiry) and the switches (draft, test, merged PDFs, forwarding,
updates, the verification stamp).

Every problem names the argument it is about (``reminderDays``).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from core.engine.problems import Problem
from core.moments import ISO_MESSAGE, parse_moment
from esign.packets.input_values import email_address, language_of, one_line, stripped

MAX_REMINDER_DAYS = 365

# The furthest a packet may expire: five years from now (a bound, not a policy).
MAX_EXPIRY_DAYS = 365 * 5


def expiry_at(value: Any, path: str, problems: list[Problem], *, now: datetime) -> datetime | None:
    """``value`` as an ISO 8601 date and time in the future (at most MAX_EXPIRY_DAYS away); a
    time without an offset is UTC. None (and a problem at ``path``) when it is not one."""
    parsed = parse_moment(value)
    if parsed is None:
        problems.append(Problem(path, ISO_MESSAGE))
        return None
    if parsed <= now:
        problems.append(Problem(path, "Must be in the future."))
        return None
    if parsed > now + timedelta(days=MAX_EXPIRY_DAYS):
        problems.append(Problem(path, f"Must be at most {MAX_EXPIRY_DAYS} days from now."))
        return None
    return parsed


def expiry_of_arguments(
    expires_at: Any, expires_in_days: Any, problems: list[Problem], *, now: datetime
) -> datetime | None:
    """createEtchPacket's ``expiresAt`` or ``expiresInDays`` (from now), never both."""
    if expires_at is not None and expires_in_days is not None:
        problems.append(Problem("expiresInDays", "Give expiresAt or expiresInDays, not both."))
        return None
    if expires_at is not None:
        return expiry_at(expires_at, "expiresAt", problems, now=now)
    if expires_in_days is None:
        return None
    if (
        not isinstance(expires_in_days, int)
        or isinstance(expires_in_days, bool)
        or not 1 <= expires_in_days <= MAX_EXPIRY_DAYS
    ):
        problems.append(
            Problem("expiresInDays", f"Must be a whole number from 1 to {MAX_EXPIRY_DAYS}.")
        )
        return None
    return now + timedelta(days=expires_in_days)


def packet_options(arguments: Mapping[str, Any], problems: list[Problem]) -> dict[str, Any]:
    """The packet's options among the createEtchPacket ``arguments``, as PacketInput's keywords
    (esign.packets.inputs); each problem is appended to ``problems``."""
    webhook_url = stripped(arguments.get("webhookURL"))
    if webhook_url and not webhook_url.startswith(("https://", "http://")):
        problems.append(Problem("webhookURL", "Must be an http(s) URL."))
    reply_to = email_address(arguments.get("replyToEmail"), "replyToEmail", problems)
    reminder_days = arguments.get("reminderDays")
    if reminder_days is not None and (
        not isinstance(reminder_days, int)
        or isinstance(reminder_days, bool)
        or not 1 <= reminder_days <= MAX_REMINDER_DAYS
    ):
        problems.append(
            Problem("reminderDays", f"Must be a whole number from 1 to {MAX_REMINDER_DAYS}.")
        )
    name = one_line(arguments.get("name"), "name", problems)
    email_subject = one_line(
        arguments.get("signatureEmailSubject"), "signatureEmailSubject", problems
    )
    reply_to_name = one_line(arguments.get("replyToName"), "replyToName", problems)
    language = language_of(arguments.get("language"), "language", problems)
    expires_at = expiry_of_arguments(
        arguments.get("expiresAt"), arguments.get("expiresInDays"), problems, now=timezone.now()
    )
    allow_forward = arguments.get("allowForward")
    if allow_forward is not None and not isinstance(allow_forward, bool):
        problems.append(Problem("allowForward", "Must be true or false."))
    if not isinstance(arguments.get("allowUpdates"), bool | None):  # a bulk send's JSON
        problems.append(Problem("allowUpdates", "Must be true or false."))
    verification_stamp = arguments.get("verificationStamp")
    if verification_stamp is not None and not isinstance(verification_stamp, bool):
        problems.append(Problem("verificationStamp", "Must be true or false."))
    return {
        "name": name or "Signature packet",
        "is_draft": bool(arguments.get("isDraft")),
        "is_test": bool(arguments.get("isTest")),
        "allow_updates": bool(arguments.get("allowUpdates")),
        "merge_pdfs": bool(arguments.get("mergePDFs")),
        "webhook_url": webhook_url,
        "email_subject": email_subject,
        "email_body": stripped(arguments.get("signatureEmailBody")),
        "reply_to_name": reply_to_name,
        "reply_to_email": reply_to,
        "reminder_days": reminder_days,
        "language": language,
        "expires_at": expires_at,
        "allow_forward": bool(allow_forward),
        "verification_stamp": bool(verification_stamp),
    }
