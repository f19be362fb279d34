"""Text messages to signers (their one-time codes, esign.links.codes), through a small backend
interface chosen by ``ESIGN_SMS_BACKEND``: ``console`` logs the message (development),
``database`` keeps it in :data:`outbox` (tests read it), and ``http`` POSTs
``{"to": "+44...", "body": "..."}`` as JSON to ``ESIGN_SMS_URL`` with
``Authorization: Bearer <ESIGN_SMS_TOKEN>``, through the project's one outbound client
(core.engine.fetch) and its address guard (FETCH_ALLOW_*): any 2xx is sent, anything else
:class:`SmsFailed`."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Protocol

from django.conf import settings

from core.engine.fetch import FetchError, FetchPolicy, post

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


class SmsFailed(Exception):
    """The provider did not take the message (its answer, or why it could not be reached)."""


class HttpSmsBackend:
    def send(self, message: Sms) -> None:
        policy = FetchPolicy(
            deadline_seconds=settings.ESIGN_SMS_TIMEOUT_SECONDS,
            max_bytes=2000,
            max_redirects=0,
            allow_hosts=frozenset(h.lower() for h in settings.FETCH_ALLOW_HOSTS),
            allow_networks=tuple(settings.FETCH_ALLOW_NETWORKS),
        )
        body = json.dumps({"to": message.to, "body": message.body}).encode()
        headers = {
            "Content-Type": "application/json",
            "Authorization": f"Bearer {settings.ESIGN_SMS_TOKEN}",
        }
        try:
            answer = post(settings.ESIGN_SMS_URL, body, policy, headers=headers)
        except FetchError as error:
            raise SmsFailed(f"The SMS provider could not be reached: {error}") from error
        if not 200 <= answer.status < 300:
            raise SmsFailed(f"The SMS provider answered {answer.status} {answer.reason}.")


_BACKENDS: dict[str, type[SmsBackend]] = {
    "console": ConsoleSmsBackend,
    "database": MemorySmsBackend,
    "http": HttpSmsBackend,
}


def sms_send(*, to: str, body: str) -> None:
    """Send ``body`` to ``to`` through the configured backend."""
    backend = _BACKENDS.get(settings.ESIGN_SMS_BACKEND)
    if backend is None:
        raise LookupError(f"ESIGN_SMS_BACKEND: no backend {settings.ESIGN_SMS_BACKEND!r}")
    backend().send(Sms(to=to, body=body))
