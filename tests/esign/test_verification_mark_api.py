"""createEtchPacket(verificationStamp: Boolean): stored and shown; anything but a boolean is
refused with nothing stored (by GraphQL for the typed argument, by the packet parser as the wire
ValidationError where it comes as JSON: a bulk send's shape)."""

from __future__ import annotations

from typing import Any

import pytest

from esign.models import BulkBatch, Packet
from tests.esign.conftest import CREATE, two_signer_packet
from tests.esign.test_bulk_send import CREATE_BATCH, send_all, uploaded_shape

pytestmark = pytest.mark.django_db

CREATE_MARKED = (
    CREATE.replace("$mergePDFs: Boolean)", "$mergePDFs: Boolean, $verificationStamp: Boolean)")
    .replace(
        "mergePDFs: $mergePDFs)", "mergePDFs: $mergePDFs, verificationStamp: $verificationStamp)"
    )
    .replace("eid name status isTest", "eid name status isTest verificationStamp")
)
PACKET = "query($eid: String!) { etchPacket(eid: $eid) { eid verificationStamp } }"


def test_the_query_asks_for_the_argument() -> None:
    # The replacements above took: otherwise every test here would pass without the argument.
    assert "verificationStamp: $verificationStamp" in CREATE_MARKED
    assert "isTest verificationStamp" in CREATE_MARKED


@pytest.mark.parametrize(("given", "stored"), [(True, True), (False, False), (None, False)])
def test_verification_stamp_is_stored_and_shown(graphql, given: bool | None, stored: bool) -> None:
    variables = two_signer_packet()
    if given is not None:
        variables["verificationStamp"] = given

    created = graphql(CREATE_MARKED, variables)

    assert "errors" not in created, created
    answer = created["data"]["createEtchPacket"]
    assert answer["verificationStamp"] is stored
    assert Packet.objects.get(eid=answer["eid"]).verification_stamp is stored
    shown = graphql(PACKET, {"eid": answer["eid"]})["data"]["etchPacket"]
    assert shown["verificationStamp"] is stored


@pytest.mark.parametrize("value", ["yes", "true", 1, [True], {"on": True}])
def test_a_bad_verification_stamp_is_refused_and_nothing_is_stored(graphql, value: Any) -> None:
    result = graphql(CREATE_MARKED, two_signer_packet(verificationStamp=value))

    assert result.get("data") is None, result
    assert "$verificationStamp" in result["errors"][0]["message"]
    assert Packet.objects.count() == 0


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_a_bulk_shapes_verification_stamp_must_be_a_boolean(graphql, value: Any) -> None:
    rows = [{"name": "Ada Lovelace", "email": "ada@example.com"}]
    shape = uploaded_shape(verificationStamp=value)

    result = graphql(CREATE_BATCH, {"packet": shape, "rows": rows})

    if value is None:  # null is "not given": the default, no mark
        assert "errors" not in result, result
        return
    assert not (result.get("data") or {}).get("createEtchPacketBatch"), result
    error = result["errors"][0]
    assert error["extensions"]["code"] == "ValidationError"
    assert {(f["property"], f["message"]) for f in error["extensions"]["fields"]} == {
        ("rows.0.verificationStamp", "Must be true or false.")
    }
    assert BulkBatch.objects.count() == 0
    assert Packet.objects.count() == 0


def test_a_bulk_shapes_verification_stamp_reaches_its_packets(graphql) -> None:
    rows = [{"name": "Ada Lovelace", "email": "ada@example.com"}]

    result = graphql(CREATE_BATCH, {"packet": uploaded_shape(verificationStamp=True), "rows": rows})

    assert "errors" not in result, result
    send_all(result["data"]["createEtchPacketBatch"]["eid"])
    assert Packet.objects.get().verification_stamp is True
