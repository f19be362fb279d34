"""createEtchPacket reads text tags in an uploaded file (esign.packets.file_tags): each tag
becomes a field of the file where it was written, its text is gone from the stored PDF, and a
signer given no fields gets the tags that name them; the packet is then signed and sealed."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from django.test import Client

from core.blobs import blob_read
from esign.models import Packet
from esign.sealing.config import trust_roots
from esign.sealing.seal import packet_seal
from tests.esign.conftest import CREATE, DRAWN, USER_AGENT, sign, token_of, two_signer_packet
from tests.esign.test_seal_packets import validate
from tests.pdfcheck import headed_page, page_text

pytestmark = pytest.mark.django_db

# (text, x, y) on the lease's one page, 10 pt Helvetica.
TAGS = [
    ("{{Tenant Signature;type=signature;role=Tenant}}", 72, 600),
    ("{{Move in;type=date;role=tenant}}", 72, 560),
    ("{{Pets;type=checkbox;role=Tenant}}", 72, 520),
    ("{{Landlord Signature;type=signature;role=Landlord}}", 72, 400),
    ("{{initials, r2}}", 350, 400),
]


def lease_pdf(tags: list[tuple[str, int, int]] = TAGS) -> bytes:
    return headed_page("Residential lease", [(x, y, text) for text, x, y in tags], 10)


def lease_packet(data: bytes, filename: str = "lease.pdf", **file: Any) -> dict[str, Any]:
    """The two-signer packet with the lease and signers named by role, given no fields."""
    return two_signer_packet(
        name="Lease",
        files=[
            {
                "id": "lease",
                "title": "Lease",
                "file": {"data": base64.b64encode(data).decode(), "filename": filename},
                **file,
            }
        ],
        signers=[
            {
                "id": "tenant",
                "name": "Ada Lovelace",
                "email": "ada@example.com",
                "signerType": "embedded",
                "signatureMode": "text",
            },
            {
                "id": "landlord",
                "name": "Charles Babbage",
                "email": "charles@example.com",
                "signerType": "embedded",
                "signatureMode": "draw",
            },
        ],
    )


def created(graphql, variables: dict[str, Any]) -> Packet:
    result = graphql(CREATE, variables)
    assert "errors" not in result, result
    return Packet.objects.get(eid=result["data"]["createEtchPacket"]["eid"])


def test_a_tagged_pdf_places_its_fields_and_gives_them_to_the_signers_named(graphql) -> None:
    packet = created(graphql, lease_packet(lease_pdf()))

    document = packet.documents.get()
    fields = {f["id"]: f for f in document.fields}
    assert {i: (f["type"], f["page"]) for i, f in fields.items()} == {
        "tenantSignature": ("signature", 0),
        "moveIn": ("date", 0),
        "pets": ("checkbox", 0),
        "landlordSignature": ("signature", 0),
        "initial": ("initial", 0),
    }
    # Each field where its tag was written: from the tag's start, its baseline within the box.
    for (_text, x, y), field_id in zip(TAGS, fields, strict=True):
        rect = fields[field_id]["rect"]
        assert abs(rect["x"] - x) < 1, (field_id, rect)
        assert rect["y"] < y < rect["y"] + rect["height"], (field_id, rect)
        assert 9 < rect["height"] < 15, (field_id, rect)
    signature = fields["tenantSignature"]["rect"]
    assert signature["width"] > 150  # the tag's whole width
    box = fields["pets"]["rect"]
    assert box["width"] == box["height"]  # a checkbox: a square at the tag's start
    signers = {s.alias_id: s.fields for s in packet.signers.all()}
    assert signers == {
        "tenant": [
            {"fileId": "lease", "fieldId": "tenantSignature"},
            {"fileId": "lease", "fieldId": "moveIn"},
            {"fileId": "lease", "fieldId": "pets"},
        ],
        "landlord": [
            {"fileId": "lease", "fieldId": "landlordSignature"},
            {"fileId": "lease", "fieldId": "initial"},
        ],
    }
    stored = page_text(blob_read(document.prepared_path, document.prepared_sha256))
    assert "Residential lease" in stored
    assert "{{" not in stored
    assert "Tenant" not in stored
    assert "r2" not in stored


def test_given_fields_come_first_and_keep_their_ids(graphql) -> None:
    own = {"id": "tenantSignature", "type": "shortText", "pageNum": 0}
    own["rect"] = {"x": 72, "y": 100, "width": 100, "height": 20}
    packet = created(graphql, lease_packet(lease_pdf(), fields=[own]))

    ids = [f["id"] for f in packet.documents.get().fields]
    assert ids[:2] == ["tenantSignature", "tenantSignature2"]
    tenant = packet.signers.get(alias_id="tenant")
    assert {"fileId": "lease", "fieldId": "tenantSignature2"} in tenant.fields


def test_the_tagged_lease_is_signed_end_to_end_and_sealed(
    graphql, sign_url, django_capture_on_commit_callbacks
) -> None:
    packet = created(graphql, lease_packet(lease_pdf()))
    bodies = {
        "tenant": {
            "signature": {"typed": "Ada Lovelace"},
            "values": {"lease/moveIn": "2027-01-01", "lease/pets": True},
        },
        "landlord": {"signature": {"drawn": DRAWN}, "initials": "CB"},
    }
    for signer in packet.signers.order_by("routing_order"):
        browser = Client(HTTP_USER_AGENT=USER_AGENT)
        token = token_of(sign_url(signer.eid))
        assert browser.get(f"/api/etch/verify/{signer.eid}?token={token}").status_code == 200
        with django_capture_on_commit_callbacks(execute=True):
            done = sign(browser, signer.eid, token, bodies[signer.alias_id])
        assert done.status_code == 200, done.content

    assert packet_seal(packet_id=packet.pk) == "sealed (PAdES-B-B)"
    packet.refresh_from_db()
    assert packet.status == "completed"
    document = packet.documents.get()
    sealed = blob_read(document.sealed_path, document.sealed_sha256)
    status = validate(sealed, trust_roots())
    assert (status.intact, status.valid, status.trusted) == (True, True, True)
    text = page_text(sealed)
    assert "2027" in text or "01/01" in text  # the date the tenant gave, where its tag was
    assert "{{" not in text


def assert_refused(graphql, variables: dict[str, Any], *parts: str) -> None:
    """One problem, on the file, whose message holds each of ``parts``; no packet stored."""
    result = graphql(CREATE, variables)
    assert result["data"]["createEtchPacket"] is None
    (field,) = result["errors"][0]["extensions"]["fields"]
    assert field["property"] == "files.0.file"
    for part in parts:
        assert part in field["message"], field
    assert Packet.objects.count() == 0


def test_a_malformed_tag_is_refused_naming_it_and_its_page(graphql) -> None:
    broken = [*TAGS, ("{{Deposit;type=nonsense;role=Tenant}}", 72, 300)]

    assert_refused(graphql, lease_packet(lease_pdf(broken)), "{{Deposit;type=nonsense", "page 1")


def test_a_tag_naming_no_signer_is_refused_with_two_signers(graphql) -> None:
    stray = [*TAGS, ("{{Witness Signature;type=signature;role=Witness}}", 72, 200)]

    assert_refused(
        graphql,
        lease_packet(lease_pdf(stray)),
        "Text tag 'Witness Signature' (role=Witness) on page 1 names no signer",
    )


def test_with_one_signer_every_tag_is_theirs(graphql) -> None:
    variables = lease_packet(lease_pdf())
    variables["signers"] = variables["signers"][:1]

    packet = created(graphql, variables)

    (signer,) = packet.signers.all()
    assert [f["fieldId"] for f in signer.fields] == [
        "tenantSignature",
        "moveIn",
        "pets",
        "landlordSignature",
        "initial",
    ]


def test_a_pdf_without_tags_is_stored_as_before(graphql) -> None:
    variables = two_signer_packet()
    packet = created(graphql, variables)

    document = packet.documents.get()
    assert [f["id"] for f in document.fields] == ["sig1", "date1", "title1", "sig2", "date2"]
    assert "Services agreement, page 1" in page_text(
        blob_read(document.prepared_path, document.prepared_sha256)
    )


@pytest.mark.slow
def test_a_tagged_word_document_becomes_the_packet(graphql) -> None:
    from tests.office.documents import docx, paragraph

    lease = docx(
        paragraph("Residential lease")
        + paragraph("Tenant: {{Tenant Signature;type=signature;role=Tenant}}")
        # A tag typed in two runs, as Word often keeps one.
        + "<w:p><w:r><w:t>Landlord: {{Landlord</w:t></w:r>"
        + '<w:r><w:t xml:space="preserve"> Signature;type=signature;role=Landlord}}</w:t></w:r></w:p>'
    )

    packet = created(graphql, lease_packet(lease, filename="lease.docx"))

    document = packet.documents.get()
    assert document.filename == "lease.pdf"
    assert [(f["id"], f["type"]) for f in document.fields] == [
        ("tenantSignature", "signature"),
        ("landlordSignature", "signature"),
    ]
    signers = {s.alias_id: [f["fieldId"] for f in s.fields] for s in packet.signers.all()}
    assert signers == {"tenant": ["tenantSignature"], "landlord": ["landlordSignature"]}
    text = page_text(blob_read(document.prepared_path, document.prepared_sha256))
    assert "Residential lease" in text
    assert "Tenant:" in text
    assert "{{" not in text
    assert "role=" not in text
