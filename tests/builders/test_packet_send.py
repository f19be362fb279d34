"""The packet builder's send: createEtchPacket's own code, as the token's organization, with only
the templates the token names; a draft when the token does not grant send."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from accounts.models import Organization
from esign.models import Packet
from templates_app.engine.demo import build_demo_template
from templates_app.models import PdfTemplate
from templates_app.services import template_create_with_spec

pytestmark = pytest.mark.django_db

PACKET = "edit-etch-packet"
RECT = {"x": 72.0, "y": 100.0, "width": 180.0, "height": 36.0}


def pdf_file() -> dict[str, str]:
    pdf, _spec = build_demo_template()
    return {
        "data": base64.b64encode(pdf).decode(),
        "filename": "lease.pdf",
        "mimetype": "application/pdf",
    }


def request(cast_eid: str | None = None) -> dict[str, Any]:
    files: list[dict[str, Any]] = [
        {
            "id": "file1",
            "title": "Lease",
            "file": pdf_file(),
            "fields": [{"id": "field1", "type": "signature", "pageNum": 0, "rect": RECT}],
        }
    ]
    if cast_eid:
        files.append(
            {
                "id": "file2",
                "title": "Annex",
                "castEid": cast_eid,
                "fields": [{"id": "field2", "type": "signatureDate", "pageNum": 0, "rect": RECT}],
            }
        )
    signers = [
        {
            "id": "signer1",
            "name": "Ada Tenant",
            "email": "ada@example.com",
            "signerType": "email",
            "routingOrder": 1,
            "fields": [{"fileId": "file1", "fieldId": "field1"}],
        },
        {
            "id": "signer2",
            "name": "Bob Landlord",
            "email": "bob@example.com",
            "signerType": "embedded",
            "routingOrder": 2,
            "fields": [{"fileId": "file2", "fieldId": "field2"}] if cast_eid else [],
        },
    ]
    return {"name": "Lease for Ada", "files": files, "signers": signers}


def send(client: Client, path: str, body: dict[str, Any]) -> Any:
    return client.post(f"{path}send/", data=json.dumps(body), content_type="application/json")


def test_send_creates_the_packet_as_createEtchPacket_does(
    embed_url: Callable[..., str], organization: Organization, demo_template: PdfTemplate
) -> None:
    options = {"castEids": [demo_template.eid], "isTest": True}
    path = embed_url(eid=organization.eid, type=PACKET, options=options)

    answer = send(Client(enforce_csrf_checks=True), path, request(demo_template.eid))

    assert answer.status_code == 200, answer.content
    body = answer.json()
    packet = Packet.objects.get(eid=body["etchPacketEid"])
    assert packet.organization == organization
    assert packet.name == "Lease for Ada"
    assert packet.status == Packet.Status.SENT
    assert packet.is_test is True  # the token's options.isTest
    assert [(s["aliasId"], s["routingOrder"]) for s in body["signers"]] == [
        ("signer1", 1),
        ("signer2", 2),
    ]
    documents = list(packet.documents.order_by("position"))
    assert [d.title for d in documents] == ["Lease", "Annex"]
    first = {f["id"]: f for f in documents[0].fields}
    assert first["field1"]["rect"] == RECT
    assert body["documentGroupEid"] == packet.document_group.eid


def test_send_takes_only_a_post_answering_drfs_405(
    embed_url: Callable[..., str], organization: Organization, demo_template: PdfTemplate
) -> None:
    path = embed_url(eid=organization.eid, type=PACKET, options={"castEids": [demo_template.eid]})

    answer = Client().get(f"{path}send/")

    assert (answer.status_code, answer.json(), answer["Allow"]) == (
        405,
        {"name": "MethodNotAllowedError", "message": 'Method "GET" not allowed.'},
        "POST",
    )
    assert not Packet.objects.exists()


def test_an_edit_only_token_saves_a_draft(
    embed_url: Callable[..., str], organization: Organization
) -> None:
    path = embed_url(eid=organization.eid, type=PACKET, permissions=["edit"])

    answer = send(Client(), path, request())

    assert answer.status_code == 200, answer.content
    packet = Packet.objects.get()
    assert packet.status == Packet.Status.DRAFT
    assert packet.is_test is False


def test_a_template_the_token_does_not_name_is_refused_and_nothing_stored(
    embed_url: Callable[..., str], organization: Organization, demo_template: PdfTemplate
) -> None:
    pdf, spec = build_demo_template()
    other = template_create_with_spec(organization=organization, title="Other", pdf=pdf, spec=spec)
    path = embed_url(eid=organization.eid, type=PACKET, options={"castEids": [demo_template.eid]})

    answer = send(Client(), path, request(other.eid))

    assert answer.status_code == 403
    assert answer.json() == {
        "name": "ForbiddenError",
        "message": f"This link does not allow the template '{other.eid}'.",
    }
    assert Packet.objects.count() == 0


@pytest.mark.parametrize(
    ("change", "property", "start"),
    [
        (lambda b: b["files"][0].update(webhookURL="https://x"), "files.0", "Not accepted here"),
        (lambda b: b["signers"][0].update(name=""), "signers.0.name", ""),
        (lambda b: b.update(files=[]), "files", "Add at least one document."),
        (
            lambda b: b["files"][0]["fields"][0].update(pageNum=7),
            "files.0.fields.0",
            "",
        ),
    ],
)
def test_a_bad_request_is_refused_naming_the_argument_and_nothing_stored(
    embed_url: Callable[..., str],
    organization: Organization,
    change: Callable[[dict[str, Any]], None],
    property: str,
    start: str,
) -> None:
    path = embed_url(eid=organization.eid, type=PACKET)
    body = request()
    change(body)

    answer = send(Client(), path, body)

    assert answer.status_code == 400, answer.content
    wire = answer.json()
    assert wire["name"] == "ValidationError"
    assert any(
        f["property"].startswith(property) and f["message"].startswith(start)
        for f in wire["fields"]
    ), wire
    assert Packet.objects.count() == 0


def test_another_organizations_packet_token_cannot_reach_this_one(
    client_for: Callable[[str], Client],
    embed_url: Callable[..., str],
    other_api_key: str,
    other_organization: Organization,
    demo_template: PdfTemplate,
) -> None:
    # The other organization's builder, naming our template: refused when the URL is asked for.
    from tests.builders.conftest import GENERATE

    result = client_for(other_api_key).post(
        "/graphql",
        data=json.dumps(
            {
                "query": GENERATE,
                "variables": {
                    "eid": other_organization.eid,
                    "type": PACKET,
                    "options": {"castEids": [demo_template.eid]},
                },
            }
        ),
        content_type="application/json",
    )
    assert result.json()["errors"][0]["extensions"]["fields"] == [
        {
            "property": "options.castEids.0",
            "message": f"No template with eid '{demo_template.eid}'.",
        }
    ]
    # And its packets are its own.
    path = embed_url(client_for(other_api_key), eid=other_organization.eid, type=PACKET)
    assert send(Client(), path, request()).status_code == 200
    assert Packet.objects.get().organization == other_organization


def test_the_page_offers_only_the_named_templates_and_says_what_the_button_does(
    embed_url: Callable[..., str], organization: Organization, demo_template: PdfTemplate
) -> None:
    pdf, spec = build_demo_template()
    other = template_create_with_spec(organization=organization, title="Other", pdf=pdf, spec=spec)
    options = {"castEids": [demo_template.eid]}
    sends = Client().get(embed_url(eid=organization.eid, type=PACKET, options=options))
    drafts = Client().get(
        embed_url(eid=organization.eid, type=PACKET, options=options, permissions=["edit"])
    )

    assert sends.status_code == 200
    html = sends.content.decode()
    assert demo_template.eid in html
    assert other.eid not in html
    assert ">Send</button>" in html
    assert ">Save draft</button>" in drafts.content.decode()


@pytest.mark.parametrize(
    ("lang", "title", "sent"),
    [
        (
            "de",
            "Neues Signaturpaket",
            "Gesendet: Das Paket ist auf dem Weg zu seinen Unterzeichnern.",
        ),
        ("ar", "حزمة توقيع جديدة", "أُرسلت: الحزمة في طريقها إلى الموقّعين."),
    ],
)
def test_the_builder_speaks_the_readers_language(
    embed_url: Callable[..., str], organization: Organization, lang: str, title: str, sent: str
) -> None:
    path = embed_url(eid=organization.eid, type=PACKET)

    chosen = Client().get(f"{path}?lang={lang}").content.decode()
    browser = Client(HTTP_ACCEPT_LANGUAGE=lang).get(path).content.decode()

    for page in (chosen, browser):
        assert f'<html lang="{lang}"' in page
        assert title in page
        assert json.dumps(sent)[1:-1] in page  # the script's sentences, in its config
    assert 'dir="rtl"' in browser if lang == "ar" else 'dir="ltr"' in browser


def test_a_link_makes_one_packet_and_a_refused_one_does_not_count(
    embed_url: Callable[..., str], organization: Organization
) -> None:
    path = embed_url(eid=organization.eid, type=PACKET)
    bad = request()
    bad["signers"][0]["email"] = "not an address"

    refused = send(Client(), path, bad)
    made = send(Client(), path, request())
    again = send(Client(), path, request())

    assert refused.status_code == 400
    assert made.status_code == 200, made.content
    assert again.status_code == 409
    assert again.json() == {
        "name": "ConflictError",
        "message": "This link has made its packet already: ask for a new link.",
    }
    assert Packet.objects.count() == 1
