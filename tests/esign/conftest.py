"""Fixtures for e-signature tests: a document to sign, packets made through GraphQL, signing."""

from __future__ import annotations

import base64
import contextlib
import io
import json
import socket
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client
from PIL import Image, ImageDraw
from reportlab.pdfgen.canvas import Canvas

from accounts.models import Organization, User
from esign.models import Packet
from esign.sealing.seal import packet_seal
from tests.esign.ltvpki import ShortLivedPki
from tests.esign.sealpki import softhsm_key
from tests.staff import staff_member

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


def first_signer_created(graphql: Callable[..., Any], language: str = "en", **first: Any) -> Any:
    """createEtchPacket of two_signer_packet() whose first signer has ``first``'s keys and, but
    for English, ``language`` (it must succeed): the created packet's first signer's eid and the
    packet."""
    variables = two_signer_packet()
    variables["signers"][0].update(first)
    if language != "en":
        variables["signers"][0]["language"] = language
    result = graphql(CREATE, variables)
    assert "errors" not in result, result
    created = result["data"]["createEtchPacket"]
    return created["documentGroup"]["signers"][0]["eid"], created


def to_the_adoption(page: Any) -> None:
    """On a signing page of two_signer_packet()'s first signer: fill the title, go on, and open
    the signature's adoption dialog."""
    page.fill("#sg-value", "Chief Analyst")
    page.click("#sg-next")
    page.click("#sg-adopt-open")
    page.wait_for_selector("#sg-adopt[open]")


def embedded_ada(file_id: str, **extra: Any) -> dict[str, Any]:
    """The embedded signer "signer1", Ada Lovelace, who signs the field "sig" of ``file_id``."""
    return {
        "id": "signer1",
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "signerType": "embedded",
        "fields": [{"fileId": file_id, "fieldId": "sig"}],
        **extra,
    }


def ada_terms_packet(name: str) -> dict[str, Any]:
    """Variables of createEtchPacket: ``name``, one generated document "f1" ("Terms") with a
    signature field "sig", and embedded_ada to sign it."""
    return {
        "name": name,
        "signers": [embedded_ada("f1")],
        "files": [
            {
                "id": "f1",
                "title": "Terms",
                "markup": {"html": "<h1>Terms</h1><p>Agreed.</p>", "css": ""},
                "fields": [
                    {
                        "id": "sig",
                        "type": "signature",
                        "pageNum": 0,
                        "rect": {"x": 72, "y": 400, "width": 200, "height": 40},
                    }
                ],
            }
        ],
    }


def uploaded_file() -> dict[str, Any]:
    """A packet's file "upload": a one-page contract_pdf, base64, with one signature field
    "sig" (the payload the client tests send)."""
    return {
        "id": "upload",
        "title": "Uploaded",
        "file": {
            "data": base64.b64encode(contract_pdf(1)).decode(),
            "filename": "upload.pdf",
            "mimetype": "application/pdf",
        },
        "fields": [
            {
                "id": "sig",
                "type": "signature",
                "pageNum": 0,
                "rect": {"x": 72, "y": 400, "width": 200, "height": 40},
            }
        ],
    }


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


def placed(field_id: str, kind: str, page: int, rect: tuple[int, int, int, int]) -> dict[str, Any]:
    """A packet file's field: its id, type, page and rect (x, y, width, height)."""
    x, y, width, height = rect
    rectangle = {"x": x, "y": y, "width": width, "height": height}
    return {"id": field_id, "type": kind, "pageNum": page, "rect": rectangle}


def two_signer_packet(**overrides: Any) -> dict[str, Any]:
    """Variables of createEtchPacket: one uploaded PDF, signer 1 (embedded, typed) then
    signer 2 (embedded, drawn), each with a signature, a date and a text field."""
    pdf = base64.b64encode(contract_pdf()).decode()
    fields = [
        placed("sig1", "signature", 1, (72, 500, 200, 50)),
        placed("date1", "signatureDate", 1, (300, 500, 120, 20)),
        placed("title1", "shortText", 0, (72, 600, 200, 20)),
        placed("sig2", "signature", 1, (72, 300, 200, 50)),
        placed("date2", "signatureDate", 1, (300, 300, 120, 20)),
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


def signing_post(client: Client, signer_eid: str, token: str, action: str, body: Any) -> Any:
    """The signing page's POST of ``body`` to its ``action`` (complete, decline...), with the
    link's token in its header, as the page's scripts send it."""
    return client.post(
        f"/api/etch/sign/{signer_eid}/{action}",
        data=json.dumps(body),
        content_type="application/json",
        HTTP_X_SIGNING_TOKEN=token,
    )


def sign(client: Client, signer_eid: str, token: str, body: dict[str, Any]) -> Any:
    return signing_post(client, signer_eid, token, "complete", body)


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
def packet_files(complete: Any, api_client: Client) -> dict[str, bytes]:
    """The files of a completed packet's sealed zip, as downloaded: name -> bytes."""
    created, packet = complete()
    packet_seal(packet_id=packet.pk)
    url = created["documentGroup"]["downloadZipURL"].replace("http://127.0.0.1:8000", "")
    archive = zipfile.ZipFile(io.BytesIO(api_client.get(url).content))
    return {name: archive.read(name) for name in archive.namelist()}


@pytest.fixture
def sign_both(
    sign_url: Callable[..., str], django_capture_on_commit_callbacks: Callable[..., Any]
) -> Callable[[dict[str, Any]], Packet]:
    """Have both signers of a created two-signer packet sign it (each opens the page first);
    the packet as it is then."""

    def run(packet: dict[str, Any]) -> Packet:
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
        return Packet.objects.get(eid=packet["eid"])

    return run


@pytest.fixture
def complete(
    create_packet: Callable[..., dict[str, Any]], sign_both: Callable[[dict[str, Any]], Packet]
) -> Callable[..., tuple[dict[str, Any], Packet]]:
    """Create the two-signer packet and have both sign (sign_both)."""

    def run(**overrides: Any) -> tuple[dict[str, Any], Packet]:
        packet = create_packet(**overrides)
        return packet, sign_both(packet)

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


def esign_staff(
    organization: Organization,
    *,
    role: str = "admin",
    username: str = "sender",
    password: str = "-",
) -> User:
    """A staff user with every esign permission, a member of ``organization`` in ``role``."""
    return staff_member(organization, username, role, ["esign"], password)


def esign_staff_client(
    organization: Organization, *, role: str = "admin", username: str = "sender"
) -> Client:
    """A client signed in as ``esign_staff(organization, role=role, username=username)``."""
    client = Client()
    client.force_login(esign_staff(organization, role=role, username=username))
    return client


@contextlib.contextmanager
def silent_listener(backlog: int) -> Iterator[tuple[int, list[socket.socket], list[float]]]:
    """A port on 127.0.0.1 that accepts connections and never says a word: its number, the
    connections it holds, and when each came (all closed at the end)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(backlog)
    held: list[socket.socket] = []
    arrivals: list[float] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            arrivals.append(time.monotonic())
            held.append(connection)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], held, arrivals
    finally:
        stop.set()
        thread.join()
        for connection in held:
            connection.close()
        server.close()


@pytest.fixture(scope="module")
def pki() -> ShortLivedPki:
    """A test module's PKI for the verification tests, whose revocation data lasts a day (a
    module that needs another defines its own)."""
    return ShortLivedPki(revocation_seconds=86400)


@pytest.fixture
def trusted(pki: ShortLivedPki, settings: Any, tmp_path: Path) -> Any:
    """The service trusts the module's PKI's root (its settings, for a test to change)."""
    roots = tmp_path / "roots.pem"
    roots.write_bytes(pki.ca_pem)
    settings.SEAL_TRUST_ROOTS_FILE = str(roots)
    return settings
