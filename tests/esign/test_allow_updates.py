"""Values the sender fills in and the signer may change (``allowUpdates``, issue 51 item 4;
esign.packets.updates, esign.signing.updates): a file's typed field carries ``value`` and is given
to a signer; with the packet's ``allowUpdates`` (or the signer's own) that signer may change it
before signing, and the change is audited with the values before and after; without, the
sender's value stands and a changed one is refused. Every signer sees the value in force: over
the page until it is stamped, then in the document. Bad values are the wire's ValidationError
with nothing stored."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from esign.links.tokens import signer_token_issue
from esign.models import AuditEvent, Packet, PacketDocument, Signer
from esign.packets.documents import document_pdf
from esign.sealing.certificate import audit_trail_pdf
from tests.esign.conftest import CREATE, sign, two_signer_packet
from tests.esign.test_roles import sealed_b_b_archive
from tests.esign.test_template_signer_fields import config_in
from tests.pdfcheck import text_in_rect, words

pytestmark = pytest.mark.django_db

# createEtchPacket with the packet's allowUpdates, as @anvilco/anvil's own mutation declares it.
CREATE_UPDATES = CREATE.replace(
    "$mergePDFs: Boolean)", "$mergePDFs: Boolean, $allowUpdates: Boolean)"
).replace("mergePDFs: $mergePDFs)", "mergePDFs: $mergePDFs, allowUpdates: $allowUpdates)")
FEE = {"x": 72, "y": 400, "width": 200, "height": 20}


def fee_packet(value: Any = "1200 EUR", **overrides: Any) -> dict[str, Any]:
    """two_signer_packet with a field "fee" on page 1, filled in by the sender and given to
    Charles Babbage (the second signer)."""
    variables = two_signer_packet()
    fee = {"id": "fee", "type": "shortText", "pageNum": 0, "rect": FEE, "value": value}
    variables["files"][0]["fields"].append(fee)
    variables["signers"][1]["fields"].append({"fileId": "agreement", "fieldId": "fee"})
    variables.update(overrides)
    return variables


def created(graphql, variables: dict[str, Any], query: str = CREATE_UPDATES) -> dict[str, Any]:
    result = graphql(query, variables)
    assert "errors" not in result, result
    return result["data"]["createEtchPacket"]


def config_of(alias: str) -> dict[str, Any]:
    person = Signer.objects.get(alias_id=alias)
    page = Client().get(f"/api/etch/verify/{person.eid}?token={signer_token_issue(signer=person)}")
    return config_in(page)


def signs(alias: str, **body: Any) -> Any:
    person = Signer.objects.get(alias_id=alias)
    return sign(Client(), person.eid, signer_token_issue(signer=person), body)


def fee_on_page_one(eid: str) -> str:
    document = PacketDocument.objects.get(packet__eid=eid)
    return text_in_rect(words(document_pdf(document))[0], FEE, tolerance=2)


def client_signs() -> None:
    done = signs("client", signature={"typed": "Ada Lovelace"}, values={"agreement/title1": "A"})
    assert done.status_code == 200, done.content


def test_the_signer_changes_the_senders_value_and_everyone_sees_the_value_in_force(
    graphql, api_client: Client
) -> None:
    packet = created(graphql, fee_packet(allowUpdates=True))
    assert packet["allowUpdates"] is True
    assert Signer.objects.get(alias_id="provider").allow_updates is True
    assert Signer.objects.get(alias_id="client").allow_updates is True  # nothing prefilled
    shown_signers = graphql(
        "query($e: String!) { etchPacket(eid: $e) { documentGroup { signers { aliasId allowUpdates } } } }",
        {"e": packet["eid"]},
    )["data"]["etchPacket"]["documentGroup"]["signers"]
    assert {s["aliasId"]: s["allowUpdates"] for s in shown_signers} == {
        "client": True,
        "provider": True,
    }

    # Ada, before Charles's turn, sees the sender's value over the page; it is not stamped yet.
    shown = config_of("client")["prefilled"]
    assert [(f["fieldId"], f["value"]) for f in shown] == [("fee", "1200 EUR")]
    assert fee_on_page_one(packet["eid"]) == ""
    client_signs()

    mine = config_of("provider")
    assert mine["allowUpdates"] is True
    assert {f["fieldId"]: f.get("value") for f in mine["fields"]}["fee"] == "1200 EUR"
    done = signs(
        "provider", signature={"typed": "Charles Babbage"}, values={"agreement/fee": "1250 EUR"}
    )
    assert done.status_code == 200, done.content

    entry = AuditEvent.objects.get(action="signerUpdatedValue")
    assert (entry.signer.alias_id, entry.detail) == (
        "provider",
        {"fileId": "agreement", "fieldId": "fee", "before": "1200 EUR", "after": "1250 EUR"},
    )
    # The value in force is in the document from now on, for any later reader.
    assert fee_on_page_one(packet["eid"]) == "1250 EUR"
    archive = sealed_b_b_archive(api_client, packet)
    sealed = " ".join(w.text for page in words(archive.read("agreement.pdf")) for w in page)
    assert "1250 EUR" in sealed
    assert "1200" not in sealed
    trail = " ".join(w.text for page in words(archive.read("audit-trail.pdf")) for w in page)
    assert "Changed a value the sender filled in" in trail
    assert "“fee”: 1200 EUR → 1250 EUR" in trail


def test_a_value_left_as_it_is_is_stamped_and_not_audited_as_a_change(graphql) -> None:
    packet = created(graphql, fee_packet(allowUpdates=True))
    client_signs()

    done = signs("provider", signature={"typed": "Charles Babbage"})

    assert done.status_code == 200, done.content
    assert fee_on_page_one(packet["eid"]) == "1200 EUR"
    assert not AuditEvent.objects.filter(action="signerUpdatedValue").exists()


def test_without_allow_updates_the_senders_value_stands(graphql) -> None:
    packet = created(graphql, fee_packet())  # neither the packet nor the signer allows it
    assert Signer.objects.get(alias_id="provider").allow_updates is False
    client_signs()
    assert config_of("provider")["allowUpdates"] is False

    changed = signs(
        "provider", signature={"typed": "Charles Babbage"}, values={"agreement/fee": "0 EUR"}
    )
    assert changed.status_code == 400
    assert changed.json()["fields"][0]["property"] == "values.agreement/fee"
    assert Signer.objects.get(alias_id="provider").status != "completed"
    assert fee_on_page_one(packet["eid"]) == ""

    done = signs("provider", signature={"typed": "Charles Babbage"})
    assert done.status_code == 200, done.content
    assert fee_on_page_one(packet["eid"]) == "1200 EUR"


def test_the_signers_own_allow_updates_overrides_the_packets(graphql) -> None:
    variables = fee_packet(allowUpdates=False)
    variables["signers"][1]["allowUpdates"] = True
    packet = created(graphql, variables)
    client_signs()

    done = signs(
        "provider", signature={"typed": "Charles Babbage"}, values={"agreement/fee": "990 EUR"}
    )

    assert done.status_code == 200, done.content
    assert fee_on_page_one(packet["eid"]) == "990 EUR"
    pdf = audit_trail_pdf(
        Packet.objects.get(eid=packet["eid"]),
        credentials=type("C", (), {"subject": "Test seal"})(),  # type: ignore[arg-type]
    )
    assert "990 EUR" in " ".join(w.text for page in words(pdf) for w in page)


@pytest.mark.parametrize(
    ("change", "property_"),
    [
        (lambda v: v["files"][0]["fields"][-1].update(value=""), "files.0.fields.5.value"),
        (lambda v: v["files"][0]["fields"][-1].update(value=12), "files.0.fields.5.value"),
        (
            lambda v: v["files"][0]["fields"][-1].update(type="email", value="nobody"),
            "files.0.fields.5.value",
        ),
        (
            lambda v: v["files"][0]["fields"][-1].update(value="x" * 5000),
            "files.0.fields.5.value",
        ),
        (lambda v: v["files"][0]["fields"][0].update(value="Ada"), "files.0.fields.0.value"),
        (lambda v: v["signers"][1]["fields"].pop(), "files.0.fields.5.value"),
        (lambda v: v["signers"][1].update(allowUpdates="yes"), "signers.1.allowUpdates"),
    ],
)
def test_bad_prefilled_values_are_refused_with_nothing_stored(graphql, change, property_) -> None:
    variables = fee_packet()
    change(variables)

    result = graphql(CREATE_UPDATES, variables)

    assert result["errors"][0]["extensions"]["code"] == "ValidationError", result
    assert property_ in [f["property"] for f in result["errors"][0]["extensions"]["fields"]]
    assert Packet.objects.count() == 0


REASSIGN = """mutation($s: String!, $name: String, $email: String) {
  reassignEtchSigner(signerEid: $s, name: $name, email: $email) { aliasId }
}"""


def test_the_signer_who_takes_over_the_turn_may_change_the_value_too(graphql) -> None:
    created(graphql, fee_packet(allowUpdates=True))
    client_signs()
    provider = Signer.objects.get(alias_id="provider")

    result = graphql(REASSIGN, {"s": provider.eid, "name": "Mary Somerville", "email": "m@x.org"})

    assert result["data"]["reassignEtchSigner"]["aliasId"] == "provider-2"
    successor = Signer.objects.get(alias_id="provider-2")
    assert successor.allow_updates is True
    done = signs(
        "provider-2", signature={"typed": "Mary Somerville"}, values={"agreement/fee": "1100 EUR"}
    )
    assert done.status_code == 200, done.content
    assert AuditEvent.objects.get(action="signerUpdatedValue").detail["after"] == "1100 EUR"
