"""Email backends of development and of a server without SMTP.

- ``DatabaseEmailBackend`` (``EMAIL_URL=dbmail://``, the default with DEBUG on) keeps every email
  in the database (``core.models.SentEmail``) instead of sending it: a developer reads it, and
  opens its links, in the admin ("Sent emails", superusers only), not in the server's output.
- ``RedactedConsoleEmailBackend`` (``consolemail://`` with DEBUG off) prints emails with the
  query of every link replaced, so a signing link's token never reaches the server's log.
"""

from __future__ import annotations

import re
from email.message import Message
from typing import Any

from django.apps import apps
from django.core.mail import EmailMessage
from django.core.mail.backends.base import BaseEmailBackend
from django.core.mail.backends.console import EmailBackend

# What EMAIL_URL=dbmail:// means (config/settings.py registers the scheme with django-environ).
DATABASE_BACKEND = "core.mail.DatabaseEmailBackend"

# The query of a link (where a signing or download token travels), up to the next blank.
_LINK_QUERY = re.compile(r"(https?://[^\s?#]+)\?[^\s]*")
REDACTED = "?[link hidden: the log must not hold live links; set EMAIL_URL to send emails]"


def redact_links(text: str) -> str:
    return _LINK_QUERY.sub(lambda match: match.group(1) + REDACTED, text)


class RedactedConsoleEmailBackend(EmailBackend):
    def write_message(self, message: Any) -> None:
        msg: Message = message.message()
        for part in msg.walk():
            if part.get_content_maintype() == "text":
                text = part.get_payload(decode=True).decode(part.get_content_charset() or "utf-8")
                part.set_payload(redact_links(text), charset="utf-8")
        self.stream.write(msg.as_string() + "\n" + "-" * 79 + "\n")


class DatabaseEmailBackend(BaseEmailBackend):
    """Keeps each email as a ``SentEmail`` row; sends nothing."""

    def send_messages(self, email_messages: Any) -> int:
        # By the registry, not imported: Django may load the backend while it reads the
        # settings, before any model can be imported.
        SentEmail = apps.get_model("core", "SentEmail")  # noqa: N806 - a model class
        kept = 0
        for message in email_messages or []:
            if not isinstance(message, EmailMessage) or not message.recipients():
                continue
            html = next(
                (
                    str(content)
                    for content, mimetype in getattr(message, "alternatives", None) or []
                    if mimetype == "text/html"
                ),
                "",
            )
            SentEmail.objects.create(
                from_email=message.from_email or "",
                to=", ".join(message.recipients()),
                subject=str(message.subject)[:998],
                body=str(message.body),
                html_body=html,
            )
            kept += 1
        return kept
