"""The packet's own options of createEtchPacket, read from their wire form
(esign.packets.inputs): its name, the signature email's subject and body, the reply-to, the
webhook URL, reminders, language, expiry (``expiresAt`` / ``expiresInDays``, also an extension
of the sender's: esign.sending.expiry) and the switches (draft, test, merged PDFs, forwarding,
updates, the verification stamp). What each takes, its messages and its schema are declared once
in esign.engine.option_model (PacketOptions); this module gives it what needs the service
(Django's email check, the languages shipped, the clock).

Every problem names the argument it is about (``reminderDays``).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.utils import timezone

from core.engine.problems import Problem
from core.moments import ISO_MESSAGE, parse_moment
from esign.engine.option_model import EXPIRY_CHECK, MAX_EXPIRY_DAYS, read_options
from esign.engine.signer_model import EMAIL_CHECK, LANGUAGES
from esign.packets.input_values import email_problem, shipped_languages


def expiry_moment(value: Any, *, now: datetime) -> datetime | str:
    """``value`` as an ISO 8601 date and time in the future (at most MAX_EXPIRY_DAYS away; a
    time without an offset is UTC), or the message saying why it is none."""
    parsed = parse_moment(value)
    if parsed is None:
        return ISO_MESSAGE
    if parsed <= now:
        return "Must be in the future."
    if parsed > now + timedelta(days=MAX_EXPIRY_DAYS):
        return f"Must be at most {MAX_EXPIRY_DAYS} days from now."
    return parsed


def expiry_at(value: Any, path: str, problems: list[Problem], *, now: datetime) -> datetime | None:
    """`expiry_moment`, its problem (at ``path``) appended to ``problems``: extendEtchPacket's
    ``expiresAt`` (esign.sending.expiry)."""
    moment = expiry_moment(value, now=now)
    if isinstance(moment, str):
        problems.append(Problem(path, moment))
        return None
    return moment


def packet_options(arguments: Mapping[str, Any], problems: list[Problem]) -> dict[str, Any]:
    """The packet's options among the createEtchPacket ``arguments``, as PacketInput's keywords
    (esign.packets.inputs); each problem is appended to ``problems`` (and then none is read:
    the packet is refused)."""
    now = timezone.now()
    context = {
        EMAIL_CHECK: email_problem,
        LANGUAGES: shipped_languages(),
        EXPIRY_CHECK: partial(expiry_moment, now=now),
    }
    options, found = read_options(arguments, context)
    problems.extend(found)
    if options is None:
        return {}
    days = options.expires_in_days
    return {
        "name": options.name or "Signature packet",
        "is_draft": options.is_draft,
        "is_test": options.is_test,
        "allow_updates": bool(options.allow_updates),
        "merge_pdfs": options.merge_pdfs,
        "webhook_url": options.webhook_url,
        "email_subject": options.signature_email_subject,
        "email_body": options.signature_email_body,
        "reply_to_name": options.reply_to_name,
        "reply_to_email": options.reply_to_email,
        "reminder_days": options.reminder_days,
        "language": options.language,
        "expires_at": options.expires_at or (now + timedelta(days=days) if days else None),
        "allow_forward": bool(options.allow_forward),
        "verification_stamp": bool(options.verification_stamp),
    }
