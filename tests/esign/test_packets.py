"""E-signature packets through GraphQL and the signer's endpoints: create, route, sign, download."""

from __future__ import annotations

import base64
import io
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from pypdf import PdfReader

from core.importmap import import_map_csp_source
from esign.models import AuditEvent, Packet, Signer
from esign.sealing.seal import packet_seal
from tests.esign.conftest import (
    CREATE,
    PACKET,
    contract_pdf,
    drawn_signature_png,
    send_queued_emails,
    sign,
    token_of,
    two_signer_packet,
)
from tests.pdfcheck import words
from tests.pdfsound import assert_sound

DRAWN = "data:image/png;base64," + base64.b64encode(drawn_signature_png()).decode()


def signers_of(packet: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["aliasId"]: s for s in packet["documentGroup"]["signers"]}


def test_create_returns_the_packet_the_clients_select(create_packet) -> None:
    packet = create_packet()

    assert packet["name"] == "Services agreement"
    assert packet["status"] == "sent"
    assert packet["allowUpdates"] is False
    assert packet["numberRemainingSigners"] == 2
    assert packet["createdAt"].endswith("Z")
    group = packet["documentGroup"]
    assert group["status"] == "sent"
    assert group["files"][0]["id"] == "agreement"
    assert group["downloadZipURL"].endswith(f"/api/document-group/{group['eid']}.zip")
    signers = signers_of(packet)
    assert signers["client"]["status"] == "sent"  # first in routing order: its turn
    assert signers["provider"]["status"] == "created"  # waits for the client
    assert signers["client"]["signActionType"] == "embedded"
    assert len(signers["client"]["eid"]) == 20
    assert mail.outbox == []  # embedded signers get no email


def test_a_draft_is_not_sent_until_asked(create_packet, graphql) -> None:
    packet = create_packet(isDraft=True)
    assert packet["status"] == "draft"

    sent = graphql(
        "mutation($eid: String!) { sendEtchPacket(eid: $eid) { status } }", {"eid": packet["eid"]}
    )
    assert sent["data"]["sendEtchPacket"]["status"] == "sent"


def test_email_signers_get_a_link_in_routing_order(
    create_packet, client: Client, django_capture_on_commit_callbacks
) -> None:
    variables = two_signer_packet()
    for signer in variables["signers"]:
        signer["signerType"] = "email"
    with django_capture_on_commit_callbacks(execute=True):
        packet = create_packet(signers=variables["signers"])

    assert mail.outbox == []  # queued, not sent inside the request
    assert send_queued_emails() == ["sent"]
    assert [m.to for m in mail.outbox] == [["ada@example.com"]]
    link = next(line for line in mail.outbox[0].body.splitlines() if "/api/etch/verify/" in line)
    client_eid = signers_of(packet)["client"]["eid"]
    assert client.get(link.replace("http://127.0.0.1:8000", "")).status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        response = sign(
            client,
            client_eid,
            token_of(link),
            {"signature": {"typed": "Ada Lovelace"}, "values": {"agreement/title1": "CTO"}},
        )
    assert response.status_code == 200, response.content
    assert send_queued_emails() == ["sent"]
    assert [m.to for m in mail.outbox] == [["ada@example.com"], ["charles@example.com"]]


def test_two_signers_sign_in_order_and_the_documents_show_both(
    create_packet,
    sign_url: Callable[..., str],
    client: Client,
    api_client: Client,
    settings,
    tmp_path,
) -> None:
    settings.SEAL_DEV_DIR = tmp_path / "seal-dev"
    packet = create_packet()
    signers = signers_of(packet)
    first, second = signers["client"]["eid"], signers["provider"]["eid"]
    first_token, second_token = token_of(sign_url(first)), token_of(sign_url(second))

    early = sign(client, second, second_token, {"signature": {"drawn": DRAWN}})
    assert early.status_code == 409
    assert early.json()["name"] == "ConflictError"

    done = sign(
        client,
        first,
        first_token,
        {"signature": {"typed": "Ada Lovelace"}, "values": {"agreement/title1": "Chief Analyst"}},
    )
    assert done.status_code == 200, done.content
    event = done.json()["event"]
    assert event["action"] == "signerComplete"
    assert event["signerEid"] == first
    assert event["signerStatus"] == "completed"
    assert event["nextSignerEid"] == second
    assert event["etchPacketEid"] == packet["eid"]
    assert event["documentGroupStatus"] == "partial"

    zip_url = packet["documentGroup"]["downloadZipURL"].replace("http://127.0.0.1:8000", "")
    assert api_client.get(zip_url).status_code == 409  # not before completion

    last = sign(client, second, second_token, {"signature": {"drawn": DRAWN}})
    assert last.status_code == 200, last.content
    body = last.json()
    assert body["event"]["nextSignerEid"] is None
    assert body["event"]["documentGroupStatus"] == "completed"
    assert body["redirectURL"].startswith(
        "https://app.example.com/done?from=esign&action=signerComplete"
    )
    assert f"signerEid={second}" in body["redirectURL"]

    sealing = api_client.get(zip_url)  # sealed in the background (tests/esign/test_seal_*.py)
    assert sealing.status_code == 503
    assert sealing.json()["name"] == "SealPendingError"
    packet_seal(packet_id=Packet.objects.get(eid=packet["eid"]).pk)
    response = api_client.get(zip_url)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"] == 'attachment; filename="Services agreement.zip"'
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert archive.namelist() == ["agreement.pdf", "audit-trail.pdf"]
    pdf = archive.read("agreement.pdf")
    assert_sound(pdf, template=contract_pdf())
    page_one, page_two = (" ".join(w.text for w in page) for page in words(pdf))
    assert "Chief Analyst" in page_one
    assert "Services agreement, page 2" in page_two
    assert "Ada Lovelace" in page_two  # the typed signature and its caption
    assert "Charles Babbage" in page_two  # the drawn signature's caption
    assert len(PdfReader(io.BytesIO(pdf)).pages) == 2

    stored = Packet.objects.get(eid=packet["eid"])
    assert stored.status == "completed"
    actions = list(AuditEvent.objects.filter(packet=stored).values_list("action", flat=True))
    assert actions.count("signerCompleted") == 2
    assert actions[-2:] == ["packetCompleted", "packetSealed"]


def test_a_signer_must_fill_their_fields(create_packet, sign_url, client: Client) -> None:
    packet = create_packet()
    first = signers_of(packet)["client"]["eid"]

    response = sign(client, first, token_of(sign_url(first)), {"signature": {}})

    assert response.status_code == 400
    assert {f["property"] for f in response.json()["fields"]} == {"signature", "agreement/title1"}
    assert Signer.objects.get(eid=first).status != "completed"


def test_bad_input_names_the_argument_and_creates_nothing(graphql) -> None:
    variables = two_signer_packet()
    variables["signers"][1]["fields"][0]["fieldId"] = "nope"
    variables["files"].append({"id": "cast", "castEid": "does-not-exist"})

    result = graphql(CREATE, variables)

    assert result["data"]["createEtchPacket"] is None
    fields = result["errors"][0]["extensions"]["fields"]
    assert {
        "property": "signers.1.fields.0.fieldId",
        "message": "File 'agreement' has no field 'nope'.",
    } in fields
    assert Packet.objects.count() == 0


def test_an_upload_that_is_not_a_pdf_is_refused(graphql) -> None:
    variables = two_signer_packet()
    variables["files"][0]["file"]["data"] = base64.b64encode(b"GIF89a not a pdf").decode()

    result = graphql(CREATE, variables)

    assert result["errors"][0]["extensions"]["fields"][0]["property"] == "files.0.file"
    assert Packet.objects.count() == 0


def test_a_template_of_another_organization_is_not_found(
    graphql, other_organization, demo_template
) -> None:
    demo_template.organization = other_organization
    demo_template.save()
    variables = two_signer_packet()
    variables["files"].append({"id": "theirs", "castEid": demo_template.eid})

    result = graphql(CREATE, variables)

    assert result["errors"][0]["extensions"]["fields"][0]["property"] == "files.1.castEid"


def test_a_template_is_filled_from_the_payloads(create_packet, demo_template, api_client) -> None:
    variables = two_signer_packet()
    variables["files"].append({"id": "demo", "castEid": demo_template.eid})
    packet = create_packet(
        files=variables["files"],
        data={"payloads": {"demo": {"data": {"email": "ada@example.com"}}}},
    )

    stored = Packet.objects.get(eid=packet["eid"])
    document = stored.documents.get(alias_id="demo")
    assert document.template_version is not None
    from esign.packets.documents import document_pdf

    assert "ada@example.com" in " ".join(w.text for w in words(document_pdf(document))[0])


def test_another_organization_sees_nothing(
    create_packet, graphql, client_for, other_api_key
) -> None:
    packet = create_packet()
    outsider = client_for(other_api_key)
    signer = signers_of(packet)["client"]["eid"]

    read = graphql(PACKET, {"eid": packet["eid"]}, client=outsider)
    url = graphql(
        'mutation($s: String!) { generateEtchSignURL(signerEid: $s, clientUserId: "x") }',
        {"s": signer},
        client=outsider,
    )
    zip_url = packet["documentGroup"]["downloadZipURL"].replace("http://127.0.0.1:8000", "")

    assert read["data"]["etchPacket"] is None
    assert read["errors"][0]["extensions"]["code"] == "NotFoundError"
    assert url["errors"][0]["extensions"]["code"] == "NotFoundError"
    assert outsider.get(zip_url).status_code == 404


def test_a_token_opens_only_its_own_signer(create_packet, sign_url, client: Client) -> None:
    packet = create_packet()
    signers = signers_of(packet)
    token = token_of(sign_url(signers["client"]["eid"]))

    page = client.get(f"/api/etch/verify/{signers['provider']['eid']}?token={token}")
    assert page.status_code == 403
    assert b"tokenInvalid" in page.content


def test_expired_and_revoked_tokens_show_the_error_page(
    create_packet, sign_url, graphql, client: Client
) -> None:
    packet = create_packet()
    first = signers_of(packet)["client"]["eid"]
    token = token_of(sign_url(first))
    assert client.get(f"/api/etch/verify/{first}?token={token}").status_code == 200

    graphql("mutation($s: String!) { expireSignerTokens(signerEid: $s) }", {"s": first})

    page = client.get(f"/api/etch/verify/{first}?token={token}")
    assert page.status_code == 410
    assert b"tokenExpired" in page.content
    assert sign(client, first, token, {"signature": {"typed": "A"}}).status_code == 403


def test_signing_pages_may_be_framed_only_by_the_organization(
    create_packet, sign_url, client: Client, organization
) -> None:
    organization.embed_origins = ["https://app.example.com"]
    organization.save()
    packet = create_packet()
    url = sign_url(signers_of(packet)["client"]["eid"])

    page = client.get(url.replace("http://127.0.0.1:8000", ""))

    assert page["Content-Security-Policy"] == (
        "frame-ancestors 'self' https://app.example.com;"
        f" script-src 'self' {import_map_csp_source()}; object-src 'none'; base-uri 'self'"
    )
    assert "X-Frame-Options" not in page


def test_a_declined_packet_stops(create_packet, sign_url, client: Client) -> None:
    packet = create_packet()
    first = signers_of(packet)["client"]["eid"]
    token = token_of(sign_url(first))

    response = client.post(
        f"/api/etch/sign/{first}/decline",
        data='{"reason": "Wrong amount"}',
        content_type="application/json",
        HTTP_X_SIGNING_TOKEN=token,
    )

    assert response.status_code == 200
    assert response.json()["event"]["documentGroupStatus"] == "declined"
    assert Packet.objects.get(eid=packet["eid"]).status == "declined"
    assert sign(client, first, token, {"signature": {"typed": "A"}}).status_code == 409


@pytest.mark.parametrize("is_test", [True, False])
def test_test_packets_carry_a_visible_mark(create_packet, is_test: bool) -> None:
    packet = create_packet(isTest=is_test)
    from esign.packets.documents import document_pdf

    document = Packet.objects.get(eid=packet["eid"]).documents.get()
    text = " ".join(w.text for page in words(document_pdf(document)) for w in page)
    assert ("TEST" in text) is is_test


def test_every_step_writes_its_webhook_event(create_packet, sign_url, client: Client) -> None:
    from webhooks.models import WebhookEvent

    packet = create_packet(webhookURL="https://hooks.example.com/esign")
    signers = signers_of(packet)
    for alias, body in (
        ("client", {"signature": {"typed": "Ada"}, "values": {"agreement/title1": "CTO"}}),
        ("provider", {"signature": {"drawn": DRAWN}}),
    ):
        eid = signers[alias]["eid"]
        assert sign(client, eid, token_of(sign_url(eid)), body).status_code == 200

    events = list(WebhookEvent.objects.order_by("id"))
    actions = [e.action for e in events]
    assert actions[0] == "documentGroupCreate"
    assert actions.count("signerComplete") == 2
    assert actions[-1] == "etchPacketComplete"
    assert "signerUpdateStatus" in actions
    assert {e.webhook_url for e in events} == {"https://hooks.example.com/esign"}
    final = events[-1].data
    assert final["etchPacket"]["status"] == "completed"
    assert [s["status"] for s in final["signers"]] == ["completed", "completed"]
