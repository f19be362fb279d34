"""Signing groups and witnesses (extensions of the signer JSON: ``group: {id, required}``,
``role: "witness"`` with ``witnessFor``), at the wire: every bad value is a ValidationError on
its property with nothing stored; the first member to sign fills the group's fields and, once
``required`` signed, the others are skipped with their links ended; a witness signs after the
signer they witness; events, GraphQL, the audit trail and its PDF name who signed for the group
and whom the witness witnessed; a sealed packet with both validates in pyHanko."""

from __future__ import annotations

import io
import zipfile
from types import SimpleNamespace
from typing import Any

import pytest
from django.test import Client
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko_certvalidator import ValidationContext

from esign.links.tokens import signer_token_issue
from esign.models import AuditEvent, Packet, Signer, SignerEmail, SignerToken
from esign.packets.documents import document_pdf
from esign.sealing.certificate import audit_trail_pdf
from esign.sealing.config import trust_roots
from esign.sealing.seal import packet_seal
from tests.esign.conftest import CREATE, sign, two_signer_packet
from tests.pdfcheck import words
from webhooks.models import WebhookEvent

pytestmark = pytest.mark.django_db

SIGNERS = """
query Packet($eid: String!) {
  etchPacket(eid: $eid) { status numberRemainingSigners documentGroup { signers {
    aliasId status role witnessFor group { id required signedBy { aliasId name } } } } }
}
"""
DIRECTORS = (
    ("babbage", "Charles Babbage"),
    ("somerville", "Mary Somerville"),
    ("turing", "Alan Turing"),
)


def _field(field_id: str, kind: str, page: int, x: float, y: float) -> dict[str, Any]:
    return {
        "id": field_id,
        "type": kind,
        "pageNum": page,
        "rect": {"x": x, "y": y, "width": 200 if kind == "signature" else 120, "height": 40},
    }


def group_packet(required: int = 1, **overrides: Any) -> dict[str, Any]:
    """Ada signs (routing 1), Grace Hopper witnesses her (2), then the directors' group signs
    (3): Babbage, Somerville and Turing, any ``required`` of them, all given gsig and gdate."""
    variables = two_signer_packet()
    document = variables["files"][0]
    document["fields"] = [f for f in document["fields"] if f["id"] in ("sig1", "date1", "title1")]
    document["fields"] += [
        _field("wsig", "signature", 1, 72, 200),
        _field("gsig", "signature", 0, 72, 300),
        _field("gdate", "signatureDate", 0, 320, 300),
    ]
    client = variables["signers"][0]
    witness = {
        "id": "witness",
        "name": "Grace Hopper",
        "email": "grace@example.com",
        "signerType": "embedded",
        "routingOrder": 2,
        "signatureMode": "text",
        "role": "witness",
        "witnessFor": "client",
        "fields": [{"fileId": "agreement", "fieldId": "wsig"}],
    }
    directors = [
        {
            "id": alias,
            "name": name,
            "email": f"{alias}@example.com",
            "routingOrder": 3,
            "signatureMode": "text",
            "group": {"id": "directors", "required": required},
            "fields": [
                {"fileId": "agreement", "fieldId": "gsig"},
                {"fileId": "agreement", "fieldId": "gdate"},
            ],
        }
        for alias, name in DIRECTORS
    ]
    variables["signers"] = [client, witness, *directors]
    variables.update(overrides)
    return variables


def created(graphql, variables: dict[str, Any]) -> dict[str, Any]:
    result = graphql(CREATE, variables)
    assert "errors" not in result, result
    return result["data"]["createEtchPacket"]


def signer(packet_eid: str, alias: str) -> Signer:
    return Signer.objects.get(packet__eid=packet_eid, alias_id=alias)


def signed(alias: str, **extra: Any) -> Any:
    """``alias`` of the packet signs with a new link of their own."""
    person = Signer.objects.get(alias_id=alias)
    token = signer_token_issue(signer=person)
    body = {"signature": {"typed": person.name}, **extra}
    return sign(Client(), person.eid, token, body)


def sign_up_to_the_group(packet_eid: str) -> None:
    done = signed("client", values={"agreement/title1": "Chief Analyst"})
    assert done.status_code == 200, done.content
    assert signed("witness").status_code == 200


def properties(result: dict[str, Any]) -> list[str]:
    assert result["errors"][0]["extensions"]["code"] == "ValidationError", result
    return [f["property"] for f in result["errors"][0]["extensions"]["fields"]]


def _with(change: Any) -> dict[str, Any]:
    variables = group_packet()
    change(variables["signers"])
    return variables


@pytest.mark.parametrize(
    ("change", "property_"),
    [
        (lambda s: s[2].update(group="directors"), "signers.2.group"),
        (lambda s: s[2].update(group={"required": 1}), "signers.2.group.id"),
        (lambda s: s[2].update(group={"id": "a\nb"}), "signers.2.group.id"),
        (lambda s: s[2].update(group={"id": "x" * 201}), "signers.2.group.id"),
        (lambda s: s[2]["group"].update(required=0), "signers.2.group.required"),
        (lambda s: s[2]["group"].update(required=True), "signers.2.group.required"),
        (lambda s: s[2]["group"].update(required="1"), "signers.2.group.required"),
        (lambda s: [m["group"].update(required=4) for m in s[2:]], "signers.2.group.required"),
        (lambda s: s[3]["group"].update(required=2), "signers.3.group.required"),
        (lambda s: s[3].update(routingOrder=4), "signers.3.routingOrder"),
        (lambda s: s[4]["fields"].pop(), "signers.4.fields"),
        (lambda s: s[1].update(role="notary"), "signers.1.role"),
        (lambda s: s[1].pop("witnessFor"), "signers.1.witnessFor"),
        (lambda s: s[1].update(witnessFor="nobody"), "signers.1.witnessFor"),
        (lambda s: s[1].update(witnessFor=["client"]), "signers.1.witnessFor"),
        (lambda s: s[1].update(witnessFor="witness"), "signers.1.witnessFor"),
        (lambda s: s[1].update(witnessFor="babbage", routingOrder=4), "signers.1.witnessFor"),
        (lambda s: s[0].update(witnessFor="witness"), "signers.0.witnessFor"),
        (lambda s: s[1].update(routingOrder=1), "signers.1.routingOrder"),
        (lambda s: s[1].update(group={"id": "directors"}, routingOrder=3), "signers.1.group"),
        # Ada's fields are on page 1 only: a witness field on page 0 is not on her pages.
        (
            lambda s: (
                s[0]["fields"].pop(),
                s[1].update(fields=[{"fileId": "agreement", "fieldId": "title1"}]),
            ),
            "signers.1.fields.0",
        ),
        # A field of the group given to someone else is still one field for two signers.
        (
            lambda s: s[1]["fields"].append({"fileId": "agreement", "fieldId": "gsig"}),
            "signers.2.fields.0",
        ),
    ],
)
def test_a_bad_group_or_witness_is_a_validation_error_and_nothing_is_stored(
    graphql, change: Any, property_: str
) -> None:
    result = graphql(CREATE, _with(change))
    assert property_ in properties(result), result
    assert Packet.objects.count() == 0
    assert Signer.objects.count() == 0


def test_the_first_member_signs_for_the_group_and_the_others_are_skipped(
    graphql, django_capture_on_commit_callbacks
) -> None:
    packet = created(graphql, group_packet())
    sign_up_to_the_group(packet["eid"])
    members = [signer(packet["eid"], alias) for alias, _name in DIRECTORS]
    assert {m.status for m in members} == {"sent"}  # the whole group's turn at once
    old_links = {m.alias_id: signer_token_issue(signer=m) for m in members}
    assert SignerEmail.objects.filter(signer__in=members, status="pending").count() == 3

    with django_capture_on_commit_callbacks(execute=True):
        done = signed("somerville")

    assert done.status_code == 200, done.content
    assert done.json()["event"]["documentGroupStatus"] == "completed"
    statuses = dict(Packet.objects.get(eid=packet["eid"]).signers.values_list("alias_id", "status"))
    assert statuses == {
        "client": "completed",
        "witness": "completed",
        "babbage": "skipped",
        "somerville": "completed",
        "turing": "skipped",
    }
    # Their links ended and their emails will not go out.
    skipped = Signer.objects.filter(alias_id__in=["babbage", "turing"])
    assert not SignerToken.objects.filter(signer__in=skipped, revoked_at__isnull=True).exists()
    assert not SignerEmail.objects.filter(signer__in=skipped, status="pending").exists()
    # The trail: who signed for the group, and each skipped member's entry names her.
    entries = AuditEvent.objects.filter(packet__eid=packet["eid"])
    assert entries.get(action="signerCompleted", signer__alias_id="somerville").detail == {
        "group": "directors"
    }
    for alias in ("babbage", "turing"):
        assert entries.get(action="signerSkipped", signer__alias_id=alias).detail == {
            "group": "directors",
            "signedBy": ["Mary Somerville"],
            "signedByIds": ["somerville"],
        }
    # The events too.
    skips = WebhookEvent.objects.filter(action="signerUpdateStatus").order_by("pk")
    skip_data = [e.data["signer"] for e in skips if e.data["signer"]["status"] == "skipped"]
    assert [s["aliasId"] for s in skip_data] == ["babbage", "turing"]
    assert skip_data[0]["group"] == {
        "id": "directors",
        "required": 1,
        "signedBy": [{"eid": members[1].eid, "aliasId": "somerville", "name": "Mary Somerville"}],
    }
    completion = WebhookEvent.objects.filter(action="signerComplete").order_by("pk").last()
    assert completion.data["signer"]["group"]["signedBy"][0]["name"] == "Mary Somerville"
    # GraphQL.
    shown = graphql(SIGNERS, {"eid": packet["eid"]})["data"]["etchPacket"]
    assert shown["numberRemainingSigners"] == 0
    by_alias = {s["aliasId"]: s for s in shown["documentGroup"]["signers"]}
    assert by_alias["turing"]["group"] == {
        "id": "directors",
        "required": 1,
        "signedBy": [{"aliasId": "somerville", "name": "Mary Somerville"}],
    }
    assert by_alias["client"]["group"] is None
    assert (by_alias["witness"]["role"], by_alias["witness"]["witnessFor"]) == ("witness", "client")
    # A skipped member's link: the page says who signed; the API refuses with the reason.
    turing = members[2]
    page = Client().get(f"/api/etch/verify/{turing.eid}?token={old_links['turing']}")
    assert page.status_code == 403
    html = page.content.decode()
    assert 'data-reason="groupSigned"' in html
    assert "Mary Somerville already signed this step for your group." in html
    refused = sign(Client(), turing.eid, old_links["turing"], {"signature": {"typed": "A"}})
    assert refused.status_code == 403
    assert refused.json()["reason"] == "groupSigned"
    # The document holds one signature for the group: hers.
    text = " ".join(
        w.text for page in words(document_pdf(turing.packet.documents.get())) for w in page
    )
    assert "Mary Somerville" in text
    assert "Alan Turing" not in text
    assert "Charles Babbage" not in text


def test_a_group_that_requires_two_is_done_when_two_signed(graphql) -> None:
    packet = created(graphql, group_packet(required=2))
    sign_up_to_the_group(packet["eid"])
    assert signed("turing").status_code == 200
    turing_stamped = document_pdf(Packet.objects.get(eid=packet["eid"]).documents.get())

    # The second member's page has no field left: the group's hold Turing's signature.
    babbage = signer(packet["eid"], "babbage")
    token = signer_token_issue(signer=babbage)
    page = Client().get(f"/api/etch/verify/{babbage.eid}?token={token}").content.decode()
    assert '"fields": []' in page
    assert "signatures needed, 2 of 3" in page
    done = sign(Client(), babbage.eid, token, {"signature": {"typed": "Charles Babbage"}})
    assert done.status_code == 200, done.content

    packet_row = Packet.objects.get(eid=packet["eid"])
    assert packet_row.status == "completed"
    statuses = dict(packet_row.signers.values_list("alias_id", "status"))
    assert (statuses["turing"], statuses["babbage"], statuses["somerville"]) == (
        "completed",
        "completed",
        "skipped",
    )
    assert document_pdf(packet_row.documents.get()) == turing_stamped  # nothing stamped again
    skip = AuditEvent.objects.get(action="signerSkipped", signer__alias_id="somerville")
    assert skip.detail["signedBy"] == ["Alan Turing", "Charles Babbage"]
    # Babbage signed too: his adopted signature is kept for the audit trail.
    assert Signer.objects.get(alias_id="babbage").signature_text == "Charles Babbage"


def test_a_witness_signs_after_the_signer_and_the_trail_says_whom(graphql) -> None:
    packet = created(graphql, group_packet())
    witness = signer(packet["eid"], "witness")
    token = signer_token_issue(signer=witness)
    early = sign(Client(), witness.eid, token, {"signature": {"typed": "Grace Hopper"}})
    assert early.status_code == 409  # Ada has not signed yet
    assert not AuditEvent.objects.filter(signer=witness, action="signerCompleted").exists()
    page = Client().get(f"/api/etch/verify/{witness.eid}?token={token}").content.decode()
    assert "As a witness to the signature of <strong><bdi>Ada Lovelace</bdi></strong>" in page

    sign_up_to_the_group(packet["eid"])

    entry = AuditEvent.objects.get(signer=witness, action="signerCompleted")
    assert entry.detail == {"witnessFor": "client", "witnessed": "Ada Lovelace"}
    data = WebhookEvent.objects.filter(action="signerComplete").order_by("pk").last().data
    assert (data["signer"]["role"], data["signer"]["witnessFor"]) == ("witness", "client")


def test_two_groups_at_one_step_each_need_their_own_signature(graphql) -> None:
    variables = group_packet()
    variables["signers"][4]["group"] = {"id": "auditors"}
    variables["signers"][4]["fields"] = []
    packet = created(graphql, variables)
    sign_up_to_the_group(packet["eid"])
    assert signed("babbage").status_code == 200
    statuses = dict(Packet.objects.get(eid=packet["eid"]).signers.values_list("alias_id", "status"))
    assert (statuses["somerville"], statuses["turing"]) == ("skipped", "sent")
    assert Packet.objects.get(eid=packet["eid"]).status == "partial"
    assert signed("turing").status_code == 200
    assert Packet.objects.get(eid=packet["eid"]).status == "completed"


def test_the_sealed_packet_validates_and_its_trail_names_the_group_and_the_witness(
    graphql, api_client: Client
) -> None:
    packet = created(graphql, group_packet())
    sign_up_to_the_group(packet["eid"])
    assert signed("babbage").status_code == 200
    row = Packet.objects.get(eid=packet["eid"])
    assert packet_seal(packet_id=row.pk) == "sealed (PAdES-B-B)"

    response = api_client.get(
        packet["documentGroup"]["downloadZipURL"].replace("http://127.0.0.1:8000", "")
    )
    assert response.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    roots = trust_roots()
    for name in archive.namelist():
        seal = PdfFileReader(io.BytesIO(archive.read(name))).embedded_regular_signatures[0]
        status = validate_pdf_signature(seal, ValidationContext(trust_roots=roots))
        assert (status.intact, status.valid, status.trusted) == (True, True, True), name
        assert status.coverage.name == "ENTIRE_FILE"
    trail = " ".join(w.text for page in words(archive.read("audit-trail.pdf")) for w in page)
    assert "witnessed the signature of Ada Lovelace" in trail
    assert "Signed (for the group “directors”)" in trail
    assert trail.count("the group “directors” was signed by Charles Babbage") == 2
    assert "No longer asked to sign" in trail


def test_the_trail_is_in_the_packets_language(graphql) -> None:
    packet = created(graphql, group_packet())
    Packet.objects.filter(eid=packet["eid"]).update(language="es")
    sign_up_to_the_group(packet["eid"])
    assert signed("babbage").status_code == 200
    row = Packet.objects.get(eid=packet["eid"])
    pdf = audit_trail_pdf(row, credentials=SimpleNamespace(subject="Test seal"))  # type: ignore[arg-type]
    trail = " ".join(w.text for page in words(pdf) for w in page)
    assert "fue testigo de la firma de Ada Lovelace" in trail
    assert "por el grupo “directors”" in trail
    assert "el grupo “directors” lo firmó Charles Babbage" in trail


def test_the_admin_shows_each_signers_group_or_whom_they_witness(graphql, organization) -> None:
    from django.urls import reverse

    from tests.esign.test_packet_admin_roles import staff

    packet = created(graphql, group_packet())
    sign_up_to_the_group(packet["eid"])
    assert signed("turing").status_code == 200
    row = Packet.objects.get(eid=packet["eid"])

    page = staff(organization, "admin").get(reverse("admin:esign_packet_change", args=[row.pk]))

    html = page.content.decode()
    assert page.status_code == 200
    assert html.count("group directors (1 to sign)") == 3
    assert "witness of client" in html
    assert 'title="signerSkipped"' in html
    assert "signedBy: [&#x27;Alan Turing&#x27;]" in html


def test_a_member_skipped_because_someone_declined_is_not_told_the_group_signed(graphql) -> None:
    packet = created(graphql, group_packet(required=2))
    sign_up_to_the_group(packet["eid"])
    assert signed("turing").status_code == 200
    babbage = signer(packet["eid"], "babbage")
    token = signer_token_issue(signer=babbage)
    somerville = signer(packet["eid"], "somerville")
    declined = Client().post(
        f"/api/etch/sign/{somerville.eid}/decline",
        data={"reason": "Not mine to sign"},
        content_type="application/json",
        HTTP_X_SIGNING_TOKEN=signer_token_issue(signer=somerville),
    )
    assert declined.status_code == 200, declined.content

    page = Client().get(f"/api/etch/verify/{babbage.eid}?token={token}")
    assert Signer.objects.get(pk=babbage.pk).status == "skipped"
    assert 'data-reason="groupSigned"' not in page.content.decode()
    assert "already signed this step" not in page.content.decode()


def test_the_schema_and_the_api_reference_describe_them(client: Client) -> None:
    sdl = client.get("/graphql/schema.graphql").content.decode()
    assert "type SigningGroup" in sdl
    assert "How many members sign for the group's step." in sdl
    assert "A witness's: the id (aliasId) of the signer they witness" in sdl
    assert '"group": {"id": "directors", "required": 1}' in sdl
    assert '"role": "witness", "witnessFor": "client"' in sdl
