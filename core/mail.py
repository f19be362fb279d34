"""The console email backend for a server with DEBUG off: emails are printed with the query of
every link replaced, so a signing link's token never reaches the server's log."""

from __future__ import annotations

import re
from email.message import Message
from typing import Any

from django.core.mail.backends.console import EmailBackend

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
