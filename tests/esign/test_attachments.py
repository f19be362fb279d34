"""Attachment fields (an extension of the signer JSON: fields of type ``attachment``): declared in
createEtchPacket, shown by GraphQL, attached on the signing page's endpoint (checked by content,
stored with the packet's documents, audited with the SHA-256), required ones block finishing;
every bad value is refused in the wire shape with nothing stored."""

from __future__ import annotations

import hashlib
import io
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from PIL import Image

from accounts.models import Organization, User
from accounts.services import member_add
from esign.models import AuditEvent, Packet, Signer, SignerAttachment
from esign.packets.documents import signer_copy_url
from esign.sealing.config import trust_roots
from esign.sealing.seal import packet_seal
from esign.sending.packets import packet_delete
from tests.esign.conftest import (
    CREATE,
    DRAWN,
    contract_pdf,
    sign,
    signing_post,
    token_of,
    two_signer_packet,
)
from tests.esign.test_packet_admin_roles import staff
from tests.esign.test_seal_packets import validate
from tests.pdfcheck import words
from tests.s3server import S3Storage

pytestmark = pytest.mark.django_db

SIGNERS_QUERY = """
query Packet($eid: String!) {
  etchPacket(eid: $eid) { documentGroup { signers { aliasId attachments {
    fieldId label required acceptedTypes maxBytes filename contentType size sha256 } } } }
}
"""

ID_PHOTO = {
    "type": "attachment",
    "id": "idPhoto",
    "label": "Photo of your ID",
    "acceptedTypes": ["jpeg", "png"],
    "maxBytes": 2_000_000,
}
PROOF = {"type": "attachment", "id": "proof", "label": "Proof of address", "required": False}


def jpeg(size: tuple[int, int] = (640, 480)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (200, 120, 40)).save(out, "JPEG", quality=80)
    return out.getvalue()


def heic() -> bytes:
    return b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + b"\x00" * 200


def with_attachments(*fields: dict[str, Any]) -> dict[str, Any]:
    variables = two_signer_packet()
    variables["signers"][0]["attachments"] = list(fields)
    return variables


def problems(result: dict[str, Any]) -> list[str]:
    assert result["errors"][0]["extensions"]["code"] == "ValidationError", result
    return [f["property"] for f in result["errors"][0]["extensions"]["fields"]]


@pytest.fixture
def attach_packet(
    graphql: Callable[..., Any], sign_url: Callable[..., Any]
) -> Callable[..., tuple[dict[str, Any], str, str]]:
    """A packet whose first signer has ``fields`` to attach: (packet, signer eid, token)."""

    def make(*fields: dict[str, Any]) -> tuple[dict[str, Any], str, str]:
        created = graphql(CREATE, with_attachments(*(fields or (ID_PHOTO, PROOF))))
        assert "errors" not in created, created
        packet = created["data"]["createEtchPacket"]
        signer_eid = packet["documentGroup"]["signers"][0]["eid"]
        return packet, signer_eid, token_of(sign_url(signer_eid))

    return make


def upload(
    client: Client, signer_eid: str, token: str, field_id: str, data: bytes, name: str
) -> Any:
    """What the signing page sends: the field's id and the file, as a browser names it."""
    file = SimpleUploadedFile(name, data, content_type="application/octet-stream")
    return client.post(
        f"/api/etch/sign/{signer_eid}/attachments",
        {"fieldId": field_id, "file": file},
        HTTP_X_SIGNING_TOKEN=token,
    )


def test_create_etch_packet_keeps_the_fields_and_graphql_shows_them(
    graphql: Callable[..., Any], attach_packet: Callable[..., Any]
) -> None:
    packet, _, _ = attach_packet()
    shown = graphql(SIGNERS_QUERY, {"eid": packet["eid"]})["data"]["etchPacket"]
    first = shown["documentGroup"]["signers"][0]["attachments"]
    assert first == [
        {
            "fieldId": "idPhoto",
            "label": "Photo of your ID",
            "required": True,
            "acceptedTypes": ["png", "jpeg"],
            "maxBytes": 2_000_000.0,
            "filename": None,
            "contentType": None,
            "size": None,
            "sha256": None,
        },
        {
            "fieldId": "proof",
            "label": "Proof of address",
            "required": False,
            "acceptedTypes": ["pdf", "png", "jpeg"],
            "maxBytes": 10 * 1_048_576.0,
            "filename": None,
            "contentType": None,
            "size": None,
            "sha256": None,
        },
    ]
    assert shown["documentGroup"]["signers"][1]["attachments"] == []


@pytest.mark.parametrize(
    ("field", "property_"),
    [
        ({"type": "attachment"}, "signers.0.attachments.0.id"),
        ({"type": "attachment", "id": "a", "acceptedTypes": ["heic"]}, "acceptedTypes.0"),
        ({"type": "attachment", "id": "a", "acceptedTypes": ["docx"]}, "acceptedTypes.0"),
        ({"type": "attachment", "id": "a", "acceptedTypes": "pdf"}, "acceptedTypes"),
        ({"type": "attachment", "id": "a", "maxBytes": 0}, "maxBytes"),
        ({"type": "attachment", "id": "a", "maxBytes": 10 * 1_048_576 + 1}, "maxBytes"),
        ({"type": "attachment", "id": "a", "required": "yes"}, "required"),
        ({"type": "attachment", "id": "a", "label": "two\nlines"}, "label"),
        ({"type": "attachment", "id": "a" * 201}, "signers.0.attachments.0.id"),
        ({"type": "signature", "id": "a"}, "signers.0.attachments.0.type"),
        ("photo", "signers.0.attachments.0"),
    ],
)
def test_a_bad_attachment_field_is_a_validation_error_and_nothing_is_stored(
    graphql: Callable[..., Any], field: Any, property_: str
) -> None:
    result = graphql(CREATE, with_attachments(field))
    assert any(p.endswith(property_) for p in problems(result)), problems(result)
    assert Packet.objects.count() == 0


def test_heic_is_refused_by_name_at_creation(graphql: Callable[..., Any]) -> None:
    result = graphql(
        CREATE, with_attachments({"type": "attachment", "id": "a", "acceptedTypes": ["HEIC"]})
    )
    message = result["errors"][0]["extensions"]["fields"][0]["message"]
    assert "HEIC" in message
    assert "jpeg" in message


def test_duplicate_ids_and_the_count_caps_are_refused(graphql: Callable[..., Any]) -> None:
    one = {"type": "attachment", "id": "same"}
    assert "signers.0.attachments.1.id" in problems(graphql(CREATE, with_attachments(one, one)))
    many = [{"id": f"a{n}"} for n in range(11)]
    assert "signers.0.attachments" in problems(graphql(CREATE, with_attachments(*many)))
    variables = two_signer_packet()
    for signer in variables["signers"]:
        signer["attachments"] = [{"id": f"a{n}"} for n in range(10)]
    variables["signers"].append(
        variables["signers"][0] | {"id": "third", "routingOrder": 3, "attachments": [{"id": "x"}]}
    )
    assert "signers" in problems(graphql(CREATE, variables))
    assert Packet.objects.count() == 0


def test_an_attached_photo_is_stored_audited_and_shown(
    graphql: Callable[..., Any], attach_packet: Callable[..., Any]
) -> None:
    packet, signer_eid, token = attach_packet()
    photo = jpeg()
    browser = Client(REMOTE_ADDR="203.0.113.5", HTTP_USER_AGENT="Phone/1.0")
    answer = upload(browser, signer_eid, token, "idPhoto", photo, "IMG_0001.HEIC.png")
    assert answer.status_code == 200, answer.content
    sha = hashlib.sha256(photo).hexdigest()
    attached = answer.json()["attachments"][0]["file"]
    # Named after what it is (a JPEG), not after what the name or the browser said.
    assert attached["filename"] == "IMG_0001.HEIC.jpg"
    assert attached["contentType"] == "image/jpeg"
    assert attached["sha256"] == sha
    row = SignerAttachment.objects.get()
    assert row.path.startswith(f"packets/{row.signer.packet.organization.eid}/{packet['eid']}/")
    with default_storage.open(row.path, "rb") as handle:
        assert handle.read() == photo
    event = AuditEvent.objects.get(action="signerAttachmentAdded")
    assert event.detail["sha256"] == sha
    assert event.ip == "203.0.113.5"
    shown = graphql(SIGNERS_QUERY, {"eid": packet["eid"]})["data"]["etchPacket"]
    assert shown["documentGroup"]["signers"][0]["attachments"][0]["sha256"] == sha


@pytest.mark.parametrize(
    ("data", "name", "message"),
    [
        (heic(), "IMG_0002.HEIC", "HEIC"),
        (contract_pdf(), "scan.pdf", "PNG, JPEG"),  # a PDF where only images are accepted
        (b"GIF89a" + b"\x00" * 100, "photo.jpg", "PNG, JPEG"),  # the name lies
        (b"\xff\xd8\xff\xe0" + b"\x00" * 100, "broken.jpg", "damaged"),
        (b"", "empty.jpg", "empty"),
    ],
)
def test_a_refused_file_stores_nothing(
    attach_packet: Callable[..., Any], data: bytes, name: str, message: str
) -> None:
    _, signer_eid, token = attach_packet()
    answer = upload(Client(), signer_eid, token, "idPhoto", data, name)
    assert answer.status_code == 400, answer.content
    body = answer.json()
    assert body["name"] == "ValidationError"
    assert body["fields"][0]["property"] == "file"
    assert message in body["fields"][0]["message"]
    assert not SignerAttachment.objects.exists()
    assert not AuditEvent.objects.filter(action="signerAttachmentAdded").exists()
    _, files = default_storage.listdir(
        f"packets/{Packet.objects.get().organization.eid}/{Packet.objects.get().eid}"
    )
    assert not [f for f in files if "attachment" in f]


def test_an_image_that_declares_too_many_pixels_is_refused_unread(
    attach_packet: Callable[..., Any],
) -> None:
    _, signer_eid, token = attach_packet()
    out = io.BytesIO()
    Image.new("1", (9000, 9000)).save(out, "PNG")  # 81 MP in a few kilobytes
    answer = upload(Client(), signer_eid, token, "idPhoto", out.getvalue(), "bomb.png")
    assert answer.status_code == 400
    assert "megapixels" in answer.json()["fields"][0]["message"]
    assert not SignerAttachment.objects.exists()


def test_a_file_over_the_fields_cap_is_a_413_and_over_the_setting_is_refused_unread(
    attach_packet: Callable[..., Any], settings: Any
) -> None:
    _, signer_eid, token = attach_packet()
    big = jpeg() + b"\x00" * 2_000_000  # a JPEG, past the field's 2 MB
    answer = upload(Client(), signer_eid, token, "idPhoto", big, "big.jpg")
    assert answer.status_code == 413
    assert answer.json()["name"] == "RequestTooLarge"
    settings.ESIGN_ATTACHMENT_MAX_BYTES = 100_000
    answer = Client().post(
        f"/api/etch/sign/{signer_eid}/attachments",
        data=b"x" * 10,
        content_type="multipart/form-data; boundary=x",
        CONTENT_LENGTH=str(100_000 + 64 * 1024 + 1),
        HTTP_X_SIGNING_TOKEN=token,
    )
    assert answer.status_code == 413
    assert not SignerAttachment.objects.exists()


def test_attaching_again_replaces_and_removing_removes(
    attach_packet: Callable[..., Any], django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    _, signer_eid, token = attach_packet()
    browser = Client()
    first, second = jpeg((100, 100)), jpeg((200, 100))
    assert upload(browser, signer_eid, token, "idPhoto", first, "a.jpg").status_code == 200
    row = SignerAttachment.objects.get()
    first_path = row.path
    with django_capture_on_commit_callbacks(execute=True):
        assert upload(browser, signer_eid, token, "idPhoto", second, "b.jpg").status_code == 200
    row = SignerAttachment.objects.get()
    assert row.sha256 == hashlib.sha256(second).hexdigest()
    assert not default_storage.exists(first_path)
    with django_capture_on_commit_callbacks(execute=True):
        removed = signing_post(
            browser, signer_eid, token, "attachments/remove", {"fieldId": "idPhoto"}
        )
    assert removed.status_code == 200
    assert removed.json()["attachments"][0]["file"] is None
    assert not SignerAttachment.objects.exists()
    assert not default_storage.exists(row.path)
    actions = list(
        AuditEvent.objects.filter(action__startswith="signerAttachment").values_list(
            "action", flat=True
        )
    )
    assert actions == ["signerAttachmentAdded", "signerAttachmentAdded", "signerAttachmentRemoved"]


def test_unknown_field_bad_token_and_another_signer_are_refused(
    attach_packet: Callable[..., Any],
) -> None:
    _, signer_eid, token = attach_packet()
    answer = upload(Client(), signer_eid, token, "nope", jpeg(), "a.jpg")
    assert answer.status_code == 404
    answer = upload(Client(), signer_eid, "wrong", "idPhoto", jpeg(), "a.jpg")
    assert answer.status_code == 403
    other = Signer.objects.get(alias_id="provider")
    answer = upload(Client(), other.eid, token, "idPhoto", jpeg(), "a.jpg")
    assert answer.status_code == 403
    assert not SignerAttachment.objects.exists()


def test_a_required_attachment_blocks_finishing_then_finishing_locks_it(
    attach_packet: Callable[..., Any],
) -> None:
    _, signer_eid, token = attach_packet()
    browser = Client()
    body = {"signature": {"typed": "Ada Lovelace"}, "values": {"agreement/title1": "CEO"}}
    refused = sign(browser, signer_eid, token, body)
    assert refused.status_code == 400
    assert refused.json()["fields"] == [
        {"message": "Attach “Photo of your ID” to finish.", "property": "attachments.idPhoto"}
    ]
    assert Signer.objects.get(eid=signer_eid).status != "completed"
    assert upload(browser, signer_eid, token, "idPhoto", jpeg(), "id.jpg").status_code == 200
    assert sign(browser, signer_eid, token, body).status_code == 200  # "proof" is optional
    late = upload(browser, signer_eid, token, "proof", contract_pdf(), "late.pdf")
    assert late.status_code in (403, 409)
    assert SignerAttachment.objects.count() == 1


def test_the_refusal_is_in_the_signers_language(attach_packet: Callable[..., Any]) -> None:
    _, signer_eid, token = attach_packet()
    Signer.objects.filter(eid=signer_eid).update(language="es")
    answer = upload(Client(), signer_eid, token, "idPhoto", heic(), "a.heic")
    assert "HEIC" in answer.json()["fields"][0]["message"]
    assert "no se puede" in answer.json()["fields"][0]["message"].lower()


def test_a_sealed_packet_lists_the_attachment_with_its_hash_and_the_zip_holds_it(
    attach_packet: Callable[..., Any],
    sign_url: Callable[..., Any],
    django_capture_on_commit_callbacks: Callable[..., Any],
    api_client: Client,
) -> None:
    packet, signer_eid, token = attach_packet()
    photo = jpeg()
    sha = hashlib.sha256(photo).hexdigest()
    browser = Client()
    assert upload(browser, signer_eid, token, "idPhoto", photo, "id card.jpg").status_code == 200
    first = {"signature": {"typed": "Ada"}, "values": {"agreement/title1": "CEO"}}
    with django_capture_on_commit_callbacks(execute=True):
        assert sign(browser, signer_eid, token, first).status_code == 200
    second = packet["documentGroup"]["signers"][1]["eid"]
    with django_capture_on_commit_callbacks(execute=True):
        done = sign(browser, second, token_of(sign_url(second)), {"signature": {"drawn": DRAWN}})
    assert done.status_code == 200
    stored = Packet.objects.get()
    assert packet_seal(packet_id=stored.pk) == "sealed (PAdES-B-B)"

    response = api_client.get(f"/api/document-group/{packet['documentGroup']['eid']}.zip")
    assert response.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    entry = "attachments/Ada Lovelace - Photo of your ID - id card.jpg"
    assert archive.namelist() == ["agreement.pdf", entry, "audit-trail.pdf"]
    assert archive.read(entry) == photo
    trail = archive.read("audit-trail.pdf")
    # The certificate of completion, sealed, names the file and its SHA-256.
    text = " ".join(w.text for page in words(trail) for w in page)
    assert "Attached files" in text
    assert "Photo of your ID (id card.jpg," in text
    assert sha in text
    assert "File attached (id card.jpg)" in text
    status = validate(trail, trust_roots())
    assert (status.intact, status.valid, status.trusted) == (True, True, True)

    # Each signer's own copy holds only the files they attached themselves.
    for alias, expected in (("client", [entry]), ("provider", [])):
        copy_url = signer_copy_url(Signer.objects.get(alias_id=alias))
        copy = Client().get(copy_url.removeprefix("http://127.0.0.1:8000"))
        assert copy.status_code == 200, copy.content
        names = zipfile.ZipFile(io.BytesIO(copy.content)).namelist()
        assert [n for n in names if n.startswith("attachments/")] == expected


def test_the_admin_lists_and_serves_the_file_to_its_organization_only(
    attach_packet: Callable[..., Any], organization: Organization
) -> None:
    packet, signer_eid, token = attach_packet()
    photo = jpeg()
    assert upload(Client(), signer_eid, token, "idPhoto", photo, "id.jpg").status_code == 200
    stored = Packet.objects.get()
    attached = SignerAttachment.objects.get()
    member = staff(organization, "member")
    page = member.get(reverse("admin:esign_packet_change", args=[stored.pk]))
    html = page.content.decode()
    url = reverse("admin:esign_packet_attachment", args=[stored.pk, attached.pk])
    assert url in html
    assert attached.sha256 in html
    served = member.get(url)
    assert served.status_code == 200
    assert served.content == photo
    assert served["Content-Type"] == "image/jpeg"

    other = Organization.objects.create(name="Other")
    outsider = User.objects.create_user(username="outsider", password="-", is_staff=True)
    outsider.user_permissions.set(Permission.objects.filter(content_type__app_label="esign"))
    member_add(organization=other, user=outsider, role="owner")
    browser = Client()
    browser.force_login(outsider)
    assert browser.get(url).status_code == 404


def test_in_an_s3_bucket_the_file_is_stored_zipped_and_removed_with_the_packet(
    s3_storage: S3Storage,
    attach_packet: Callable[..., Any],
    django_capture_on_commit_callbacks: Callable[..., Any],
    settings: Any,
) -> None:
    packet, signer_eid, token = attach_packet()
    photo = jpeg()
    assert upload(Client(), signer_eid, token, "idPhoto", photo, "id.jpg").status_code == 200
    attached = SignerAttachment.objects.get()
    stored = Packet.objects.get()
    assert attached.path.startswith(f"packets/{stored.organization.eid}/{stored.eid}/")
    assert s3_storage.read(attached.path) == photo
    assert not Path(settings.MEDIA_ROOT).exists()
    with django_capture_on_commit_callbacks(execute=True):
        packet_delete(packet=stored)
    assert attached.path not in s3_storage.names()
