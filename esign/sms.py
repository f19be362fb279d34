"""Text messages to signers (their one-time codes, esign.verification), through a small backend
interface chosen by ``ESIGN_SMS_BACKEND``: ``console`` logs the message (development) and
``database`` keeps it in :data:`outbox` (tests read it). A provider backend implements
:class:`SmsBackend` the same way."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Protocol

from django.conf import settings

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Sms:
    to: str  # E.164
    body: str


class SmsBackend(Protocol):
    def send(self, message: Sms) -> None: ...


class ConsoleSmsBackend:
    def send(self, message: Sms) -> None:
        logger.info("SMS to %s: %s", message.to, message.body)


# The messages the "database" backend sent, for tests (like django.core.mail.outbox).
outbox: list[Sms] = []


class MemorySmsBackend:
    def send(self, message: Sms) -> None:
        outbox.append(message)


_BACKENDS: dict[str, type[SmsBackend]] = {
    "console": ConsoleSmsBackend,
    "database": MemorySmsBackend,
}


def sms_send(*, to: str, body: str) -> None:
    """Send ``body`` to ``to`` through the configured backend."""
    backend = _BACKENDS.get(settings.ESIGN_SMS_BACKEND)
    if backend is None:
        raise LookupError(f"ESIGN_SMS_BACKEND: no backend {settings.ESIGN_SMS_BACKEND!r}")
    backend().send(Sms(to=to, body=body))
