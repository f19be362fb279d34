"""Verification for programs (POST /api/v1/verify) and people (/verify): sealed files, a changed
byte, foreign and broken files, limits, CSRF, and nothing kept."""

from __future__ import annotations

import datetime
import io
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import TemporaryUploadedFile
from django.test import Client
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from pyhanko.pdf_utils.reader import PdfFileReader

from esign.models import AuditEvent, Packet, PacketDocument
from esign.sealing.config import trust_roots
from tests.esign.sealpki import asn1, shared_pki
from tests.esign.test_seal_engine import three_pages

pytestmark = pytest.mark.django_db

SIGNATURE_KEYS = [
    "fieldName",
    "signer",
    "signedAt",
    "intact",
    "trusted",
    "coversWholeDocument",
    "level",
    "timestamp",
]


@pytest.fixture
def sealed(packet_files: dict[str, bytes]) -> dict[str, bytes]:
    """The sealed document and audit trail of a completed packet, as downloaded."""
    return packet_files


def changed_in_content(pdf: bytes) -> bytes:
    """One byte changed inside the signed part: a digit of the first page's MediaBox."""
    position = pdf.index(b"/MediaBox [ 0 0 612 792 ]") + len(b"/MediaBox [ 0 0 61")
    return pdf[:position] + b"3" + pdf[position + 1 :]


def page_text(response: Any) -> str:
    """The page's HTML with its whitespace collapsed."""
    return " ".join(response.content.decode().split())


def post_file(client: Client, data: bytes, name: str = "document.pdf", **extra: Any) -> Any:
    upload = io.BytesIO(data)
    upload.name = name
    return client.post("/api/v1/verify", {"file": upload}, **extra)


# --- POST /api/v1/verify --------------------------------------------------------------------------


def test_a_sealed_document_is_intact_trusted_and_ours(sealed, api_client: Client) -> None:
    response = post_file(api_client, sealed["agreement.pdf"])

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert list(body)[:2] == ["signatures", "sealedByUs"]  # the fields of before come first
    assert body["sealedByUs"] is True
    # The development key's seal: valid here, and said to be trusted here only.
    assert body["verdict"] == "valid_development"
    assert body["knownAs"] == "sealed_document"
    (signature,) = body["signatures"]
    assert list(signature)[:8] == SIGNATURE_KEYS
    assert signature["development"] is True
    assert [p["code"] for p in body["problems"]] == ["development_seal"]
    assert [(s["name"], s["source"]) for s in body["signers"]] == [
        ("Ada Lovelace", "audit_trail"),
        ("Charles Babbage", "audit_trail"),
    ]
    seal = PdfFileReader(io.BytesIO(sealed["agreement.pdf"])).embedded_regular_signatures[0]
    assert {key: signature[key] for key in SIGNATURE_KEYS} == {
        "fieldName": "DocumentSeal",
        "signer": "DEVELOPMENT ONLY - document automation seal (not trusted)",
        "signedAt": signature["signedAt"],
        "intact": True,
        "trusted": True,
        "coversWholeDocument": True,
        "level": "PAdES-B-B",
        "timestamp": None,
    }
    assert signature["signedAt"].endswith("Z")
    assert signature["signedAt"][:19] == seal.self_reported_timestamp.strftime("%Y-%m-%dT%H:%M:%S")


def test_the_audit_trail_is_ours_too(sealed, api_client: Client) -> None:
    body = post_file(api_client, sealed["audit-trail.pdf"]).json()

    assert body["sealedByUs"] is True
    assert body["signatures"][0]["intact"] is True


def test_one_changed_byte_is_detected(sealed, api_client: Client) -> None:
    body = post_file(api_client, changed_in_content(sealed["agreement.pdf"])).json()

    assert body["sealedByUs"] is False
    (signature,) = body["signatures"]
    assert signature["intact"] is False
    assert signature["trusted"] is False
    assert signature["level"] is None


def test_an_unsigned_pdf_has_no_signatures(api_client: Client) -> None:
    response = post_file(api_client, three_pages())

    body = response.json()
    assert body == {
        "signatures": [],
        "sealedByUs": False,
        "verdict": "not_signed",
        "problems": [
            {"code": "not_signed", "message": "The file has no signature.", "fieldName": None}
        ],
        "documentTimestamps": [],
        "signers": [],
        "knownAs": None,
        "sha256": body["sha256"],
    }


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"GIF89a\x01\x00 not a pdf", "The file is not a PDF."),
        (b"%PDF-1.7\nnothing else", "The PDF could not be read."),
    ],
)
def test_a_file_that_is_not_a_pdf_is_a_validation_error(
    data: bytes, message: str, api_client: Client
) -> None:
    response = post_file(api_client, data)

    assert response.status_code == 400
    assert response.json() == {
        "name": "ValidationError",
        "fields": [{"message": message, "property": "file"}],
    }


def test_the_file_part_is_required(api_client: Client) -> None:
    response = api_client.post("/api/v1/verify", {"other": "x"})

    assert response.status_code == 400
    assert response.json()["fields"] == [{"message": "Required", "property": "file"}]


def test_an_api_key_is_required(sealed) -> None:
    response = post_file(Client(), sealed["agreement.pdf"])

    assert response.status_code == 401
    assert response.json() == {"name": "AuthorizationError", "message": "Not logged in."}


def test_a_file_over_the_limit_is_refused(api_client: Client, settings: Any) -> None:
    settings.VERIFY_MAX_BYTES = 1000
    pdf = three_pages()
    assert len(pdf) > 1000

    response = post_file(api_client, pdf)

    assert response.status_code == 413
    assert response.json()["name"] == "RequestTooLarge"


def test_nothing_uploaded_is_kept(
    sealed, api_client: Client, settings: Any, tmp_path: Path, monkeypatch
) -> None:
    """Not in storage, not in the database, not even as a temporary file while checking (a file
    over FILE_UPLOAD_MAX_MEMORY_SIZE would otherwise be buffered to disk)."""
    temporary: list[str] = []
    original = TemporaryUploadedFile.__init__

    def record(self: Any, *args: Any, **kwargs: Any) -> None:
        temporary.append(str(args[0] if args else kwargs.get("name")))
        original(self, *args, **kwargs)

    monkeypatch.setattr(TemporaryUploadedFile, "__init__", record)
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1024  # the sealed PDF is far larger
    media = Path(settings.MEDIA_ROOT)
    stored = sorted(p for p in media.rglob("*") if p.is_file())
    counts = (
        PacketDocument.objects.count(),
        Packet.objects.count(),
        AuditEvent.objects.count(),
        DBTaskResult.objects.count(),
    )

    for path in ("/api/v1/verify", "/verify"):
        client = api_client if path.startswith("/api") else Client()
        upload = io.BytesIO(sealed["agreement.pdf"])
        upload.name = "agreement.pdf"
        assert client.post(path, {"file": upload}).status_code == 200

    assert temporary == []
    assert sorted(p for p in media.rglob("*") if p.is_file()) == stored
    assert (
        PacketDocument.objects.count(),
        Packet.objects.count(),
        AuditEvent.objects.count(),
        DBTaskResult.objects.count(),
    ) == counts


# --- the page ---------------------------------------------------------------------------------------


def test_the_page_has_a_form_with_a_csrf_token(client: Client) -> None:
    response = client.get("/verify")

    assert response.status_code == 200
    html = response.content.decode()
    assert '<form class="upload" method="post" enctype="multipart/form-data"' in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert '<label for="file">' in html
    assert 'accept="application/pdf,.pdf"' in html
    assert response["Cache-Control"] == "no-store"


def test_the_page_refuses_a_post_without_the_csrf_token(sealed) -> None:
    client = Client(enforce_csrf_checks=True)
    upload = io.BytesIO(sealed["agreement.pdf"])
    upload.name = "agreement.pdf"

    assert client.post("/verify", {"file": upload}).status_code == 403


def test_the_page_shows_a_valid_sealed_document(sealed) -> None:
    client = Client(enforce_csrf_checks=True)
    token = client.get("/verify").cookies["csrftoken"].value
    upload = io.BytesIO(sealed["agreement.pdf"])
    upload.name = "agreement.pdf"

    response = client.post("/verify", {"file": upload, "csrfmiddlewaretoken": token})

    assert response.status_code == 200
    html = page_text(response)
    assert "<strong>Valid, with a development seal.</strong> Sealed by this installation" in html
    assert "Sealed by this service.</strong> This exact file is a document" in html
    assert "DEVELOPMENT ONLY - document automation seal (not trusted)" in html
    assert "PAdES-B-B" in html
    assert (
        "<title>Valid, with a development seal: agreement.pdf | Verify a signed PDF</title>" in html
    )


def test_the_page_shows_a_changed_document_and_a_non_pdf(sealed, client: Client) -> None:
    changed = io.BytesIO(changed_in_content(sealed["agreement.pdf"]))
    changed.name = "agreement.pdf"
    image = io.BytesIO(b"GIF89a not a pdf")
    image.name = "picture.gif"

    not_valid = page_text(client.post("/verify", {"file": changed}))
    refused = client.post("/verify", {"file": image})

    assert "<strong>Changed after signing.</strong> The file is not as it was signed" in (not_valid)
    assert "<li>The document was changed after it was signed.</li>" in not_valid
    assert "Not a file this service sealed.</strong>" in not_valid
    assert refused.status_code == 400
    assert "picture.gif: </strong>The file is not a PDF." in page_text(refused)


def test_the_page_refuses_a_file_over_the_limit(client: Client, settings: Any) -> None:
    settings.VERIFY_MAX_BYTES = 100
    upload = io.BytesIO(three_pages() * 40)
    upload.name = "big.pdf"

    response = client.post("/verify", {"file": upload})

    assert response.status_code == 413
    assert "The file is larger than the limit of 100 bytes." in response.content.decode()


def test_verification_needs_no_hsm_session_when_the_chain_is_in_a_file(
    settings: Any, tmp_path: Path
) -> None:
    pki = shared_pki()
    chain = tmp_path / "chain.pem"
    chain.write_bytes(pki.ca_pem)
    settings.SEAL_PKCS11_MODULE = str(tmp_path / "no-such-module.so")
    settings.SEAL_PKCS11_TOKEN_LABEL = "seal"
    settings.SEAL_PKCS11_KEY_LABEL = "seal"
    settings.SEAL_CERT_CHAIN_FILE = str(chain)

    assert [c.sha256 for c in trust_roots()] == [asn1(pki.certificate).sha256]

    settings.SEAL_CERT_CHAIN_FILE = ""  # the roots would come from the token, which is away
    assert trust_roots() == []


def test_the_page_limits_verifications_per_client_address(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.VERIFY_PAGE_PER_MINUTE = 2
    # The limit counts a minute-long window of the clock the code reads: held mid-window, so
    # that the three posts below cannot fall in two windows.
    held = datetime.datetime(2026, 11, 28, 12, 0, 30, tzinfo=datetime.UTC)
    monkeypatch.setattr(timezone, "now", lambda: held)
    client = Client(REMOTE_ADDR="203.0.113.9")
    answers = [client.post("/verify", {"file": pdf_upload()}) for _ in range(3)]

    assert [a.status_code for a in answers] == [200, 200, 429]
    refused = answers[2]
    assert int(refused["Retry-After"]) == 30  # the rest of the held window
    assert "Too many files verified from your address" in page_text(refused)
    # A forged cross-site post (no CSRF token) is refused before it counts.
    forged = Client(REMOTE_ADDR="203.0.113.11", enforce_csrf_checks=True)
    assert [forged.post("/verify", {"file": pdf_upload()}).status_code for _ in range(3)] == [
        403
    ] * 3
    assert (
        Client(REMOTE_ADDR="203.0.113.11").post("/verify", {"file": pdf_upload()}).status_code
        == 200
    )
    # Another address has its own count.
    other = Client(REMOTE_ADDR="203.0.113.10").post("/verify", {"file": pdf_upload()})
    assert other.status_code == 200


def pdf_upload() -> io.BytesIO:
    upload = io.BytesIO(three_pages())
    upload.name = "document.pdf"
    return upload
