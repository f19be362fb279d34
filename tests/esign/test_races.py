"""Races on PostgreSQL (real row locks, two connections): two signers of one group finishing at
the same moment, voiding during a signature, removing during sealing."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, connections
from django.test import Client

from esign.models import AuditEvent, Packet
from esign.sealing.seal import packet_seal
from esign.signing import turns as signing
from tests.esign.conftest import sign, token_of, two_signer_packet
from tests.pdfcheck import words

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="row locks are PostgreSQL's (CI runs it)"
    ),
]


def in_threads(*calls: Callable[[], Any]) -> list[Any]:
    """Run ``calls`` at once, each in its own thread (and database connection)."""
    results: list[Any] = [None] * len(calls)

    def run(index: int, call: Callable[[], Any]) -> None:
        try:
            results[index] = call()
        except BaseException as error:  # noqa: BLE001 - reported to the test
            results[index] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


@pytest.fixture
def stamped_together(monkeypatch: pytest.MonkeyPatch) -> threading.Barrier:
    """Both finishes stamp before either takes the lock: the second must stamp again."""
    barrier = threading.Barrier(2, timeout=30)
    stamp = signing.signer_stamps
    calls = {"n": 0}

    def stamp_then_wait(**kwargs: Any) -> Any:
        stamped = stamp(**kwargs)
        calls["n"] += 1
        if calls["n"] <= 2:
            barrier.wait()
        return stamped

    monkeypatch.setattr(signing, "signer_stamps", stamp_then_wait)
    return barrier


def test_two_signers_of_one_group_finish_at_the_same_moment(
    create_packet, sign_url, stamped_together
) -> None:
    variables = two_signer_packet()
    variables["signers"][1]["routingOrder"] = 1  # both sign in parallel
    created = create_packet(signers=variables["signers"])
    eids = {s["aliasId"]: s["eid"] for s in created["documentGroup"]["signers"]}
    tokens = {alias: token_of(sign_url(eid)) for alias, eid in eids.items()}
    bodies = {
        "client": {"signature": {"typed": "Ada Lovelace"}, "values": {"agreement/title1": "CTO"}},
        "provider": {"signature": {"typed": "Charles Babbage"}},
    }

    answers = in_threads(
        *(
            lambda alias=alias: sign(Client(), eids[alias], tokens[alias], bodies[alias])
            for alias in ("client", "provider")
        )
    )

    assert [a.status_code for a in answers] == [200, 200], answers
    packet = Packet.objects.get(eid=created["eid"])
    assert packet.status == "completed"
    text = " ".join(w.text for page in words(_current(packet)) for w in page)
    assert "Ada Lovelace" in text
    assert "Charles Babbage" in text  # neither signature lost the other's stamps
    assert AuditEvent.objects.filter(packet=packet, action="packetCompleted").count() == 1
    assert packet.seal_status == "pending"


def _current(packet: Packet) -> bytes:
    from esign.packets.documents import document_pdf

    return document_pdf(packet.documents.get())


def test_voiding_during_a_signature_leaves_one_consistent_outcome(
    create_packet, sign_url, api_client, monkeypatch: pytest.MonkeyPatch
) -> None:
    variables = two_signer_packet()
    variables["signers"] = variables["signers"][:1]
    variables["signers"][0]["fields"] = variables["signers"][0]["fields"][:2]
    created = create_packet(signers=variables["signers"])
    eid = created["documentGroup"]["signers"][0]["eid"]
    token = token_of(sign_url(eid))
    stamping = threading.Event()
    void_answered = threading.Event()
    stamp = signing.signer_stamps

    def slow_stamp(**kwargs: Any) -> Any:
        stamped = stamp(**kwargs)
        stamping.set()
        # The void is answered between stamping and the lock: waited for, not given a pause
        # (on a busy machine the void took longer than half a second to arrive).
        void_answered.wait(30)
        return stamped

    monkeypatch.setattr(signing, "signer_stamps", slow_stamp)
    void = (
        "mutation($eid: String!) { voidDocumentGroup(eid: $eid) { status } }",
        {"eid": created["documentGroup"]["eid"]},
    )

    def void_when_stamping() -> Any:
        stamping.wait(30)
        try:
            return api_client.post(
                "/graphql",
                data={"query": void[0], "variables": void[1]},
                content_type="application/json",
            ).json()
        finally:
            void_answered.set()

    signed, voided = in_threads(
        lambda: sign(Client(), eid, token, {"signature": {"typed": "Ada"}}), void_when_stamping
    )

    packet = Packet.objects.get(eid=created["eid"])
    assert packet.status == "voided"
    assert voided["data"]["voidDocumentGroup"]["status"] == "voided"
    assert signed.status_code == 409  # the lock saw the packet voided: nothing written
    assert packet.signers.get().status == "voided"
    assert packet.documents.get().current_sha256 == packet.documents.get().prepared_sha256


def test_removing_during_sealing_is_refused_and_the_seal_finishes(
    complete, api_client, monkeypatch: pytest.MonkeyPatch
) -> None:
    created, packet = complete()
    results = in_threads(
        lambda: packet_seal(packet_id=packet.pk),
        lambda: api_client.post(
            "/graphql",
            data={
                "query": "mutation($eid: String!) { removeEtchPacket(eid: $eid) }",
                "variables": {"eid": created["eid"]},
            },
            content_type="application/json",
        ).json(),
    )
    sealed, removed = results
    assert sealed == "sealed (PAdES-B-B)"
    assert removed["errors"][0]["extensions"]["code"] == "ConflictError"
    assert Packet.objects.get(pk=packet.pk).seal_status == "sealed"
