"""Initials on every page (``initialsOnEveryPage``, ``initialsPosition`` in the signer JSON, issue
51 item 3; esign.packets.initials): each page of the chosen documents gets an initials field of
the signer's, at their position, the template's initials field's or the bottom-right corner; one
adopted set of initials is stamped in each, as the sealed PDF's text shows; bad values are the
wire's ValidationError with nothing stored."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from django.test import Client

from esign.links.tokens import signer_token_issue
from esign.models import Packet, PacketDocument, Signer
from tests.esign.conftest import CREATE, contract_pdf, sign, two_signer_packet
from tests.esign.test_roles import sealed_b_b_archive
from tests.esign.test_template_signer_fields import form_template, packet_variables
from tests.esign.test_verification_mark import qr_corner
from tests.pdfcheck import text_in_rect, words

pytestmark = pytest.mark.django_db

# The bottom-right corner of a US Letter page (612 x 792), as esign.packets.initials puts it.
CORNER = {"x": 612 - 36 - 72, "y": 36, "width": 72, "height": 30}
POSITION = {"x": 40, "y": 20, "width": 60, "height": 24}


def initialled(**provider: Any) -> dict[str, Any]:
    """two_signer_packet on a three-page document, Charles Babbage with ``provider``'s keys."""
    variables = two_signer_packet()
    variables["files"][0]["file"]["data"] = base64.b64encode(contract_pdf(3)).decode()
    variables["signers"][1].update(provider)
    return variables


def created(graphql, variables: dict[str, Any], query: str = CREATE) -> dict[str, Any]:
    result = graphql(query, variables)
    assert "errors" not in result, result
    return result["data"]["createEtchPacket"]


def initials_fields(alias: str) -> list[dict[str, Any]]:
    signer = Signer.objects.get(alias_id=alias)
    document = PacketDocument.objects.get(packet=signer.packet)
    given = {ref["fieldId"] for ref in signer.fields}
    return [f for f in document.fields if f["type"] == "initial" and f["id"] in given]


def signs(alias: str, **body: Any) -> Any:
    person = Signer.objects.get(alias_id=alias)
    return sign(Client(), person.eid, signer_token_issue(signer=person), body)


def test_every_page_gets_the_signers_initials_in_its_corner_and_the_seal_carries_them(
    graphql, api_client: Client
) -> None:
    packet = created(graphql, initialled(initialsOnEveryPage=True))

    fields = initials_fields("provider")
    assert [(f["page"], f["rect"]) for f in fields] == [(page, CORNER) for page in range(3)]
    assert initials_fields("client") == []
    done = signs("client", signature={"typed": "Ada Lovelace"}, values={"agreement/title1": "A"})
    assert done.status_code == 200, done.content
    # Without initials the finish is refused, and nothing is stamped.
    refused = signs("provider", signature={"drawn": ""})
    assert refused.status_code == 400
    done = signs("provider", signature={"typed": "Charles Babbage"}, initials="CB")
    assert done.status_code == 200, done.content

    archive = sealed_b_b_archive(api_client, packet)
    pages = words(archive.read("agreement.pdf"))
    assert len(pages) == 3
    assert [text_in_rect(page, CORNER, tolerance=2) for page in pages] == ["CB", "CB", "CB"]


def test_initials_at_a_position_on_the_listed_documents_only(graphql) -> None:
    variables = initialled(initialsOnEveryPage=["agreement"], initialsPosition=POSITION)
    variables["signers"][1]["fields"].append({"fileId": "agreement", "fieldId": "own"})
    variables["files"][0]["fields"].append(
        {"id": "own", "type": "initial", "pageNum": 1, "rect": {**POSITION, "x": 300}}
    )
    created(graphql, variables)

    fields = initials_fields("provider")
    # Page 2 keeps the signer's own initials field; pages 1 and 3 get one at the position.
    assert sorted((f["page"], f["id"]) for f in fields) == [
        (0, "initials-provider-1"),
        (1, "own"),
        (2, "initials-provider-3"),
    ]
    assert {f["id"]: f["rect"] for f in fields}["initials-provider-3"] == POSITION


def test_the_templates_initials_field_places_them(graphql, organization) -> None:
    rect = {"x": 500, "y": 700, "width": 50, "height": 20}
    template = form_template(
        organization, extra=[{"id": "in1", "type": "initial", "page": 0, "rect": rect}]
    )
    variables = packet_variables(template, [], signers=None)
    variables["signers"] = [
        {
            "id": "employee",
            "name": "Ada Lovelace",
            "email": "ada@example.com",
            "signerType": "embedded",
            "fields": [],
            "initialsOnEveryPage": True,
        }
    ]

    created(graphql, variables)

    fields = initials_fields("employee")
    assert fields
    assert {tuple(f["rect"].values()) for f in fields} == {tuple(rect.values())}


@pytest.mark.parametrize(
    ("keys", "property_"),
    [
        ({"initialsOnEveryPage": "yes"}, "signers.1.initialsOnEveryPage"),
        ({"initialsOnEveryPage": []}, "signers.1.initialsOnEveryPage"),
        ({"initialsOnEveryPage": ["lease"]}, "signers.1.initialsOnEveryPage.0"),
        ({"initialsPosition": POSITION}, "signers.1.initialsPosition"),
        (
            {"initialsOnEveryPage": True, "initialsPosition": {"x": 1, "y": 1}},
            "signers.1.initialsPosition",
        ),
        (
            {"initialsOnEveryPage": True, "initialsPosition": {**POSITION, "width": 0}},
            "signers.1.initialsPosition",
        ),
        (
            {"initialsOnEveryPage": True, "role": "approver", "fields": []},
            "signers.1.initialsOnEveryPage",
        ),
    ],
)
def test_bad_initials_options_are_refused_with_nothing_stored(graphql, keys, property_) -> None:
    result = graphql(CREATE, initialled(**keys))

    assert result["errors"][0]["extensions"]["code"] == "ValidationError", result
    assert property_ in [f["property"] for f in result["errors"][0]["extensions"]["fields"]]
    assert Packet.objects.count() == 0


def test_the_verification_mark_keeps_clear_of_the_initials(graphql, api_client: Client) -> None:
    marked = CREATE.replace("$mergePDFs: Boolean)", "$mergePDFs: Boolean, $stamp: Boolean)")
    marked = marked.replace(
        "mergePDFs: $mergePDFs)", "mergePDFs: $mergePDFs, verificationStamp: $stamp)"
    )
    packet = created(graphql, {**initialled(initialsOnEveryPage=True), "stamp": True}, query=marked)
    assert (
        signs(
            "client", signature={"typed": "Ada Lovelace"}, values={"agreement/title1": "A"}
        ).status_code
        == 200
    )
    assert (
        signs("provider", signature={"typed": "Charles Babbage"}, initials="CB").status_code == 200
    )

    archive = sealed_b_b_archive(api_client, packet)
    sealed = archive.read("agreement.pdf")
    # The initials hold the bottom right corner of every page: the mark takes the next one.
    assert [qr_corner(sealed, page) for page in range(3)] == ["bottom left"] * 3
    assert [text_in_rect(page, CORNER, tolerance=2) for page in words(sealed)] == ["CB"] * 3
