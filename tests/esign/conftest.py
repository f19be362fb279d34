"""Fixtures for e-signature tests: a document to sign, packets made through GraphQL, signing."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client
from PIL import Image, ImageDraw
from reportlab.pdfgen.canvas import Canvas

from esign.models import Packet
from tests.esign.sealpki import softhsm_key

CREATE = """
mutation Create($name: String, $files: [EtchFile!], $signers: [JSON!], $isTest: Boolean,
                $isDraft: Boolean, $data: JSON, $webhookURL: String, $mergePDFs: Boolean) {
  createEtchPacket(name: $name, files: $files, signers: $signers, isTest: $isTest,
                   isDraft: $isDraft, data: $data, webhookURL: $webhookURL,
                   mergePDFs: $mergePDFs) {
    eid name status isTest allowUpdates numberRemainingSigners detailsURL webhookURL
    completedAt createdAt
    documentGroup { eid status files downloadZipURL
      signers { eid aliasId routingOrder name email status signActionType } }
  }
}
"""
SIGN_URL = """
mutation Url($signerEid: String!, $clientUserId: String!) {
  generateEtchSignURL(signerEid: $signerEid, clientUserId: $clientUserId)
}
"""
PACKET = """
query Packet($eid: String!) {
  etchPacket(eid: $eid) { eid status numberRemainingSigners
    documentGroup { eid status signers { eid aliasId status } } }
}
"""


def contract_pdf(pages: int = 2) -> bytes:
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(612, 792), invariant=1)
    for number in range(1, pages + 1):
        canvas.setFont("Helvetica", 14)
        canvas.drawString(72, 720, f"Services agreement, page {number}")
        canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def drawn_signature_png() -> bytes:
    image = Image.new("RGBA", (300, 100), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.line([(10, 80), (80, 20), (150, 80), (220, 20), (290, 70)], fill=(0, 0, 0, 255), width=8)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def two_signer_packet(**overrides: Any) -> dict[str, Any]:
    """Variables of createEtchPacket: one uploaded PDF, signer 1 (embedded, typed) then
    signer 2 (embedded, drawn), each with a signature, a date and a text field."""
    pdf = base64.b64encode(contract_pdf()).decode()
    fields = [
        {
            "id": "sig1",
            "type": "signature",
            "pageNum": 1,
            "rect": {"x": 72, "y": 500, "width": 200, "height": 50},
        },
        {
            "id": "date1",
            "type": "signatureDate",
            "pageNum": 1,
            "rect": {"x": 300, "y": 500, "width": 120, "height": 20},
        },
        {
            "id": "title1",
            "type": "shortText",
            "pageNum": 0,
            "rect": {"x": 72, "y": 600, "width": 200, "height": 20},
        },
        {
            "id": "sig2",
            "type": "signature",
            "pageNum": 1,
            "rect": {"x": 72, "y": 300, "width": 200, "height": 50},
        },
        {
            "id": "date2",
            "type": "signatureDate",
            "pageNum": 1,
            "rect": {"x": 300, "y": 300, "width": 120, "height": 20},
        },
    ]
    variables = {
        "name": "Services agreement",
        "files": [
            {
                "id": "agreement",
                "title": "Services agreement",
                "file": {"data": pdf, "filename": "agreement.pdf", "mimetype": "application/pdf"},
                "fields": fields,
            }
        ],
        "signers": [
            {
                "id": "client",
                "name": "Ada Lovelace",
                "email": "ada@example.com",
                "signerType": "embedded",
                "routingOrder": 1,
                "signatureMode": "text",
                "fields": [
                    {"fileId": "agreement", "fieldId": "sig1"},
                    {"fileId": "agreement", "fieldId": "date1"},
                    {"fileId": "agreement", "fieldId": "title1"},
                ],
            },
            {
                "id": "provider",
                "name": "Charles Babbage",
                "email": "charles@example.com",
                "signerType": "embedded",
                "routingOrder": 2,
                "signatureMode": "draw",
                "redirectURL": "https://app.example.com/done?from=esign",
                "fields": [
                    {"fileId": "agreement", "fieldId": "sig2"},
                    {"fileId": "agreement", "fieldId": "date2"},
                ],
            },
        ],
        "isTest": False,
    }
    variables.update(overrides)
    return variables


@pytest.fixture
def graphql(api_client: Client) -> Callable[..., dict[str, Any]]:
    def call(query: str, variables: dict[str, Any] | None = None, client: Client | None = None):
        response = (client or api_client).post(
            "/graphql",
            data=json.dumps({"query": query, "variables": variables or {}}),
            content_type="application/json",
        )
        assert response.status_code in (200, 400), response.content
        return response.json()

    return call


@pytest.fixture
def create_packet(graphql: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    def create(**overrides: Any) -> dict[str, Any]:
        result = graphql(CREATE, two_signer_packet(**overrides))
        assert "errors" not in result, result
        return result["data"]["createEtchPacket"]

    return create


@pytest.fixture
def sign_url(graphql: Callable[..., dict[str, Any]]) -> Callable[[str], str]:
    def url(signer_eid: str, client_user_id: str = "user-1") -> str:
        result = graphql(SIGN_URL, {"signerEid": signer_eid, "clientUserId": client_user_id})
        assert "errors" not in result, result
        return result["data"]["generateEtchSignURL"]

    return url


def token_of(url: str) -> str:
    return parse_qs(urlsplit(url).query)["token"][0]


def sign(client: Client, signer_eid: str, token: str, body: dict[str, Any]) -> Any:
    return client.post(
        f"/api/etch/sign/{signer_eid}/complete",
        data=json.dumps(body),
        content_type="application/json",
        HTTP_X_SIGNING_TOKEN=token,
    )


# --- sealing ------------------------------------------------------------------------------------

DRAWN = "data:image/png;base64," + base64.b64encode(drawn_signature_png()).decode()
USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64) SealTest/1.0"


@pytest.fixture(scope="session")
def development_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One development key for the session: made once, like on a server's first run."""
    return tmp_path_factory.mktemp("seal") / "seal-dev"


@pytest.fixture(autouse=True)
def development_seal(settings: Any, development_dir: Path) -> None:
    """Every e-signature test seals with the session's development key, no TSA and no HSM,
    unless it asks for more (``hsm_seal``, its own settings)."""
    settings.SEAL_DEV_DIR = development_dir
    settings.SEAL_PKCS11_MODULE = ""
    settings.SEAL_TSA_URLS = []
    settings.SEAL_TRUST_ROOTS_FILE = ""
    settings.SEAL_CERT_CHAIN_FILE = ""


@pytest.fixture
def hsm_seal(settings: Any) -> None:
    """Seal with the key in SoftHSM2 (tests.esign.sealpki)."""
    key = softhsm_key()
    settings.SEAL_PKCS11_MODULE = key.module
    settings.SEAL_PKCS11_TOKEN_LABEL = key.token_label
    settings.SEAL_PKCS11_KEY_LABEL = key.key_label
    settings.SEAL_PKCS11_PIN = key.pin


@pytest.fixture
def complete(
    create_packet: Callable[..., dict[str, Any]],
    sign_url: Callable[..., str],
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> Callable[..., tuple[dict[str, Any], Packet]]:
    """Create the two-signer packet and have both sign (the client opens the page first)."""

    def run(**overrides: Any) -> tuple[dict[str, Any], Packet]:
        packet = create_packet(**overrides)
        signers = {s["aliasId"]: s["eid"] for s in packet["documentGroup"]["signers"]}
        bodies = {
            "client": {
                "signature": {"typed": "Ada Lovelace"},
                "values": {"agreement/title1": "Chief Analyst"},
            },
            "provider": {"signature": {"drawn": DRAWN}},
        }
        for alias, address in (("client", "203.0.113.9"), ("provider", "2001:db8::7")):
            browser = Client(HTTP_USER_AGENT=USER_AGENT, REMOTE_ADDR=address)
            token = token_of(sign_url(signers[alias]))
            opened = browser.get(f"/api/etch/verify/{signers[alias]}?token={token}")
            assert opened.status_code == 200
            with django_capture_on_commit_callbacks(execute=True):
                done = sign(browser, signers[alias], token, bodies[alias])
            assert done.status_code == 200, done.content
        return packet, Packet.objects.get(eid=packet["eid"])

    return run


def send_queued_emails() -> list[str]:
    """Run what the worker runs for every signing email queued (esign.links.emails): each pending
    outbox row, once. Returns each attempt's outcome."""
    from esign.links.emails import signer_email_send
    from esign.models import SignerEmail

    return [
        signer_email_send(email_id=email_id)
        for email_id in SignerEmail.objects.filter(status=SignerEmail.Status.PENDING)
        .order_by("pk")
        .values_list("pk", flat=True)
    ]
