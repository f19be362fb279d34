"""Signing groups on PostgreSQL (real row locks, one connection per signer): two members of a
group that requires one sign at the same moment, both having stamped before either takes the
packet's lock: one signs for the group, the other gets a 409 and nothing of theirs is written;
the same when one of them signs in the place of a member whose turn the sender reassigned."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test import Client

from esign.links.tokens import signer_token_issue
from esign.models import AuditEvent, Packet, Signer
from esign.packets.documents import document_pdf
from esign.signing import turns as signing
from tests.esign.conftest import CREATE, sign
from tests.esign.test_races import in_threads
from tests.esign.test_signing_groups import group_packet, sign_up_to_the_group
from tests.esign.test_signing_groups_handover import REASSIGN
from tests.pdfcheck import words

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="row locks are PostgreSQL's (CI runs it)"
    ),
]


def _race(
    graphql: Any,
    monkeypatch: pytest.MonkeyPatch,
    required: int,
    racers: tuple[str, ...],
    before: Callable[[str], None] | None = None,
) -> tuple[Packet, list[Any]]:
    result = graphql(CREATE, group_packet(required=required))
    assert "errors" not in result, result
    eid = result["data"]["createEtchPacket"]["eid"]
    sign_up_to_the_group(eid)
    if before is not None:
        before(eid)
    # Both racers stamp before either takes the packet's lock (test_races' stamped_together).
    barrier = threading.Barrier(len(racers), timeout=30)
    stamp = signing.signer_stamps
    calls = {"n": 0}

    def stamp_then_wait(**kwargs: Any) -> Any:
        stamped = stamp(**kwargs)
        calls["n"] += 1
        if calls["n"] <= len(racers):
            barrier.wait()
        return stamped

    monkeypatch.setattr(signing, "signer_stamps", stamp_then_wait)
    people = {a: Signer.objects.get(packet__eid=eid, alias_id=a) for a in racers}
    tokens = {a: signer_token_issue(signer=p) for a, p in people.items()}
    answers = in_threads(
        *(
            lambda a=a: sign(
                Client(),
                people[a].eid,
                tokens[a],
                {"signature": {"typed": people[a].name}, "values": {}},
            )
            for a in racers
        )
    )
    return Packet.objects.get(eid=eid), answers


def test_two_members_sign_at_once_one_wins_the_other_gets_a_409(
    graphql: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    packet, answers = _race(graphql, monkeypatch, 1, ("babbage", "turing"))

    assert sorted(a.status_code for a in answers) == [200, 409], answers
    loser_answer = next(a for a in answers if a.status_code == 409)
    assert loser_answer.json()["name"] == "ConflictError"
    winner = packet.signers.get(status="completed", signing_group="directors")
    assert loser_answer.json()["message"] == (
        f"{winner.name} already signed this step for your group."
    )
    loser = packet.signers.get(alias_id=({"babbage", "turing"} - {winner.alias_id}).pop())
    # Nothing of the loser's was written: skipped for the group, no signature, no entry.
    assert loser.status == "skipped"
    assert (loser.signature_text, loser.signature_path, loser.values) == ("", "", {})
    assert loser.completed_at is None
    completed = AuditEvent.objects.filter(
        packet=packet, action="signerCompleted", signer__signing_group="directors"
    )
    assert list(completed.values_list("signer__alias_id", flat=True)) == [winner.alias_id]
    assert packet.status == "completed"
    text = " ".join(w.text for page in words(document_pdf(packet.documents.get())) for w in page)
    assert winner.name in text
    assert loser.name not in text
    assert AuditEvent.objects.filter(packet=packet, action="packetCompleted").count() == 1


def test_two_members_of_a_group_of_two_sign_at_once_both_count(
    graphql: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    packet, answers = _race(graphql, monkeypatch, 2, ("babbage", "turing"))

    assert [a.status_code for a in answers] == [200, 200], answers
    statuses = dict(packet.signers.values_list("alias_id", "status"))
    assert (statuses["babbage"], statuses["turing"], statuses["somerville"]) == (
        "completed",
        "completed",
        "skipped",
    )
    assert packet.status == "completed"
    skipped = AuditEvent.objects.get(action="signerSkipped", signer__alias_id="somerville")
    assert sorted(skipped.detail["signedBy"]) == ["Alan Turing", "Charles Babbage"]


def test_a_reassigned_members_successor_and_a_member_sign_at_once_one_wins(
    graphql: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def reassign_babbage(eid: str) -> None:
        babbage = Signer.objects.get(packet__eid=eid, alias_id="babbage")
        result = graphql(
            REASSIGN, {"s": babbage.eid, "name": "Ada Byron", "email": "byron@example.com"}
        )
        assert "errors" not in result, result

    packet, answers = _race(graphql, monkeypatch, 1, ("babbage-2", "turing"), reassign_babbage)

    assert sorted(a.status_code for a in answers) == [200, 409], answers
    assert next(a for a in answers if a.status_code == 409).json()["name"] == "ConflictError"
    completed = packet.signers.filter(status="completed", signing_group="directors")
    assert completed.count() == 1
    statuses = dict(packet.signers.values_list("alias_id", "status"))
    assert statuses["babbage"] == "forwarded"
    assert sorted(statuses[a] for a in ("babbage-2", "turing", "somerville")) == [
        "completed",
        "skipped",
        "skipped",
    ]
    assert packet.status == "completed"
