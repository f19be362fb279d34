"""A new packet waits while the seals are behind (issue 52, esign.sending.intake):
createEtchPacket is held while the oldest packet seal a worker could start has waited more than
PACKET_INTAKE_MAX_SEAL_WAIT_SECONDS and goes on when the seals catch up; held too long, or with
too many held, it is refused with RateLimitError and a Retry-After and creates nothing; signers
never wait. The clocks the service reads (``timezone.now`` and the intake's own ``monotonic``)
are moved, never waited for: the intake's sleep moves them. The published clients through a held
request: tests/contract/test_clients_packet_intake.py."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

import esign.sending.intake as intake
from core.queues import oldest_ready_age
from core.tasks_registry import task_named
from esign.models import Packet
from esign.task_names import PACKET_SEAL
from tests.esign.conftest import CREATE, two_signer_packet

START = timezone.now().replace(microsecond=0)


class Clock:
    """The service's clocks: ``timezone.now()`` at START plus ``seconds``, and the intake's
    ``time.monotonic()``; the intake's ``time.sleep`` moves both and then calls ``on_sleep``."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.seconds = 0.0
        self.slept: list[float] = []
        self.on_sleep: Callable[[int], None] = lambda n: None
        monkeypatch.setattr(timezone, "now", lambda: START + timedelta(seconds=self.seconds))
        monkeypatch.setattr(intake.time, "monotonic", lambda: self.seconds)
        monkeypatch.setattr(intake.time, "sleep", self.sleep)

    def __call__(self, seconds: float) -> None:
        self.seconds = seconds

    def sleep(self, seconds: float) -> None:
        self.seconds += seconds
        self.slept.append(seconds)
        self.on_sleep(len(self.slept))


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    return Clock(monkeypatch)


@pytest.fixture
def intake_on(settings: Any) -> None:
    settings.PACKET_INTAKE_MAX_SEAL_WAIT_SECONDS = 3
    settings.PACKET_INTAKE_MAX_WAIT_SECONDS = 20
    settings.PACKET_INTAKE_WAITING = 8


def create(api_client: Client) -> Any:
    return api_client.post(
        "/graphql",
        data=json.dumps({"query": CREATE, "variables": two_signer_packet()}),
        content_type="application/json",
    )


def seal_age() -> float:
    seal = task_named(PACKET_SEAL)
    return oldest_ready_age(seal.module_path, seal.queue_name)


def the_seal_done() -> None:
    DBTaskResult.objects.filter(status="READY").get().set_successful("sealed")


def test_a_new_packet_is_held_until_the_seals_catch_up(
    db: None, clock: Clock, intake_on: None, api_client: Client, complete
) -> None:
    complete()  # at 0 s: both signed, its seal queued; no worker runs it here
    clock(2)
    assert create(api_client).status_code == 200  # 2 s behind: within the 3 s allowed
    assert clock.slept == []

    clock(10)  # 10 s behind: held; a worker seals the packet during the second pause
    clock.on_sleep = lambda n: the_seal_done() if n == 2 else None
    held = create(api_client)

    assert held.status_code == 200
    assert held.json()["data"]["createEtchPacket"]["name"]
    assert clock.slept == [intake.POLL_SECONDS] * 2
    assert Packet.objects.count() == 3


def test_held_too_long_it_is_refused_and_makes_nothing(
    db: None, clock: Clock, intake_on: None, settings: Any, api_client: Client, complete
) -> None:
    settings.PACKET_INTAKE_MAX_WAIT_SECONDS = 1
    complete()
    packets = Packet.objects.count()
    clock(10)

    refused = create(api_client)

    assert sum(clock.slept) == 1.0  # held for the second allowed, the seal still waiting
    assert refused.status_code == 200  # GraphQL's transport rule; the error says the rest
    assert refused["Retry-After"] == "8"  # 11 s behind: 8 s beyond the limit
    body = refused.json()
    assert body["data"] == {"createEtchPacket": None}
    [error] = body["errors"]
    assert error["extensions"] == {"code": "RateLimitError", "status": 429, "retryAfter": 8}
    assert "has waited 11 s, more than 3 s" in error["message"]
    assert Packet.objects.count() == packets

    the_seal_done()  # caught up: taken at once
    assert create(api_client).status_code == 200
    assert Packet.objects.count() == packets + 1


def test_with_every_waiting_place_taken_it_is_refused_at_once(
    db: None, clock: Clock, intake_on: None, settings: Any, api_client: Client, complete
) -> None:
    settings.PACKET_INTAKE_WAITING = 0  # as when the process already holds as many as allowed
    complete()
    clock(10)

    refused = create(api_client).json()

    assert refused["errors"][0]["extensions"]["code"] == "RateLimitError"
    assert clock.slept == []


def test_signers_are_never_refused_while_the_seals_are_behind(
    db: None,
    clock: Clock,
    intake_on: None,
    settings: Any,
    api_client: Client,
    complete,
    create_packet,
    sign_both,
) -> None:
    under_way = create_packet()  # at 0 s, before any backlog
    complete()
    clock(60)
    settings.PACKET_INTAKE_WAITING = 0  # a new packet is refused at once
    assert create(api_client).json()["errors"][0]["extensions"]["code"] == "RateLimitError"

    # The packet under way is signed by both of its signers meanwhile (each request answered
    # 200: sign_both checks), and its seal queued.
    assert sign_both(under_way).status == "completed"
    assert DBTaskResult.objects.filter(status="READY").count() == 2  # both seals queued


def test_off_when_zero(db: None, clock: Clock, settings: Any, api_client: Client, complete) -> None:
    settings.PACKET_INTAKE_MAX_SEAL_WAIT_SECONDS = 0
    complete()
    clock(3600)
    assert create(api_client).status_code == 200


def test_only_a_seal_a_worker_could_start_counts(db: None, clock: Clock) -> None:
    """A seal's retry waits for its time (counted from then), a running seal is no backlog, and
    other tasks of the queue are not seals."""
    seal = task_named(PACKET_SEAL)
    retry = seal.using(run_after=START + timedelta(seconds=600)).enqueue(packet_id=1, attempt=2)
    running = seal.enqueue(packet_id=2)
    DBTaskResult.objects.get(pk=running.id).claim("worker-1")
    task_named("esign.signer_email").enqueue(email_id=1)

    clock(500)
    assert seal_age() == 0.0
    clock(650)
    assert seal_age() == 50.0
    DBTaskResult.objects.get(pk=retry.id).claim("worker-2")
    assert seal_age() == 0.0
