"""Two requests with one Idempotency-Key at the same moment, on PostgreSQL (two connections):
one runs, the other gets a 409; the work is done once."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from esign.models import Packet
from idempotency.models import IdempotencyKey
from idempotency.services import Claimed, IdempotencyConflict, idempotency_claim
from tests.esign.conftest import CREATE, two_signer_packet
from tests.esign.test_races import in_threads

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="two connections at once: PostgreSQL's (CI)"
    ),
]


def test_two_claims_at_the_same_moment_one_wins(organization) -> None:
    barrier = threading.Barrier(2, timeout=30)

    def claim() -> Any:
        barrier.wait()
        return idempotency_claim(
            organization=organization, key="k", request_hash="h" * 64, now=timezone.now()
        )

    outcomes = in_threads(claim, claim)

    assert sorted(type(o).__name__ for o in outcomes) == ["Claimed", "IdempotencyConflict"]
    conflict = next(o for o in outcomes if isinstance(o, IdempotencyConflict))
    assert "still being processed" in conflict.message
    winner = next(o for o in outcomes if isinstance(o, Claimed))
    assert IdempotencyKey.objects.get().pk == winner.key_id


def test_create_etch_packet_sent_twice_at_once_makes_one_packet(
    api_key, monkeypatch: pytest.MonkeyPatch
) -> None:
    from esign.sending import packets as esign_services
    from tests.conftest import basic_auth

    inside, go_on = threading.Event(), threading.Event()
    real = esign_services.packet_create

    def held(**kwargs: Any) -> Any:
        inside.set()
        go_on.wait(30)
        return real(**kwargs)

    monkeypatch.setattr(esign_services, "packet_create", held)
    body = json.dumps({"query": CREATE, "variables": two_signer_packet()})

    def send() -> Any:
        return Client(HTTP_AUTHORIZATION=basic_auth(api_key)).post(
            "/graphql", data=body, content_type="application/json", headers={"Idempotency-Key": "p"}
        )

    def first() -> Any:
        return send()

    def second() -> Any:
        inside.wait(30)  # the first is creating the packet now
        try:
            return send()
        finally:
            go_on.set()

    answers = in_threads(first, second)

    assert answers[0].status_code == 200, answers[0].content
    assert answers[1].status_code == 409
    assert answers[1].json()["name"] == "ConflictError"
    assert Packet.objects.count() == 1
    again = send()  # once the first finished, the retry gets its answer
    assert again.json() == answers[0].json()
    assert again["Idempotent-Replayed"] == "true"
