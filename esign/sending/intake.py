"""A new packet waits while the seals are behind (issue 52): createEtchPacket (and the MCP tool
that creates a packet) holds its request while the oldest packet seal a worker could start has
waited more than PACKET_INTAKE_MAX_SEAL_WAIT_SECONDS, and goes on as soon as the seals catch up.

Why hold a new packet rather than take it at once: on a machine whose workers seal fewer packets
a second than the API takes, every packet taken adds to a queue that nobody drains, and the seal
of a packet signed now waits behind all of them (minutes at 1,000 packets). Holding new work
while the seals are behind keeps the wait of the packets under way to a few seconds and moves
the wait to the integrator's call, which simply takes longer: every client works unchanged.
(A 429 would not do: python-anvil sends createEtchPacket as a multipart stream that its retry
cannot send again, and waits forever for the answer to a request with no body.)

Signers are never held: their signature, the signing page and the emails to the next signer go
on as before. A held request keeps a server thread, so each process holds at most
PACKET_INTAKE_WAITING at once and for at most PACKET_INTAKE_MAX_WAIT_SECONDS; a request beyond
either is refused with RateLimitError and a Retry-After, created nothing, and may be sent again.

The backlog is read from the task table (one aggregate over the partial index of unfinished
tasks, core.queues), so every web process sees the same one.
"""

from __future__ import annotations

import math
import threading
import time

from django.conf import settings

from core.errors import RateLimited
from core.queues import oldest_ready_age
from core.tasks_registry import task_named
from esign.task_names import PACKET_SEAL

POLL_SECONDS = 0.25  # how often a held request reads the backlog again
LONGEST_RETRY_AFTER_SECONDS = 30

# The requests of this process held now (a counter, not a semaphore: its bound is a setting,
# read when a request arrives, so tests and operators may change it).
_held = 0
_held_lock = threading.Lock()


def seal_backlog_seconds() -> float:
    """How long the oldest packet seal a worker could start has waited."""
    seal = task_named(PACKET_SEAL)
    return oldest_ready_age(seal.module_path, seal.queue_name)


def packet_intake_check() -> None:
    """Return when a new packet may be made: at once while the seals keep up (or the setting is
    0), else once they catch up. Raise RateLimited (nothing made) when they do not within
    PACKET_INTAKE_MAX_WAIT_SECONDS or when this process already holds PACKET_INTAKE_WAITING."""
    limit = settings.PACKET_INTAKE_MAX_SEAL_WAIT_SECONDS
    if limit <= 0:
        return
    waited = seal_backlog_seconds()
    if waited <= limit:
        return
    global _held
    with _held_lock:
        full = _held >= settings.PACKET_INTAKE_WAITING
        if not full:
            _held += 1
    if full:
        raise _refusal(waited, limit)
    try:
        deadline = time.monotonic() + settings.PACKET_INTAKE_MAX_WAIT_SECONDS
        while waited > limit:
            if time.monotonic() >= deadline:
                raise _refusal(waited, limit)
            time.sleep(POLL_SECONDS)
            waited = seal_backlog_seconds()
    finally:
        with _held_lock:
            _held -= 1


def _refusal(waited: float, limit: float) -> RateLimited:
    # About the time the workers need to bring the oldest wait back under the limit.
    retry_after = max(1, min(LONGEST_RETRY_AFTER_SECONDS, math.ceil(waited - limit)))
    return RateLimited(
        retry_after_seconds=retry_after,
        message=(
            f"The service is sealing a backlog of completed packets (the oldest has waited "
            f"{waited:.0f} s, more than {limit:g} s), so no new packet is made now. Retry after "
            f"{retry_after} s."
        ),
    )
