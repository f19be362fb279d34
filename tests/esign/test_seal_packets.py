"""Sealing completed packets: the task enqueued on completion, the zip before and after sealing,
the key in SoftHSM2, B-LTA with a local TSA, a TSA that is down, retries that run out, and
another organization's key."""

from __future__ import annotations

import hashlib
import io
import zipfile
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.ades.report import AdESPassed
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko_certvalidator import ValidationContext

from esign.engine.seal_keys import DEVELOPMENT_SEAL_NAME
from esign.models import AuditEvent, Packet
from esign.packets.documents import document_pdf
from esign.sealing.config import trust_roots
from esign.sealing.seal import packet_seal, packet_seal_retry
from tests.esign.sealpki import asn1, shared_pki, softhsm_key, with_the_hsm_seal
from tests.esign.test_seal_engine import lta_validation
from tests.pdfcheck import words
from tests.staff import admin_action, superuser_client

pytestmark = pytest.mark.django_db


def zip_url(packet: dict[str, Any]) -> str:
    return packet["documentGroup"]["downloadZipURL"].replace("http://127.0.0.1:8000", "")


def seal_tasks() -> list[DBTaskResult]:
    return list(
        DBTaskResult.objects.filter(task_path="esign.tasks.packet_seal_task").order_by(
            "enqueued_at"
        )
    )


def validate(pdf: bytes, roots: list) -> Any:
    signature = PdfFileReader(io.BytesIO(pdf)).embedded_regular_signatures[0]
    return validate_pdf_signature(signature, ValidationContext(trust_roots=roots))


def trusted_archive(api_client: Any, created: dict[str, Any]) -> zipfile.ZipFile:
    """The created packet's sealed zip, each of its files sealed intact, valid and trusted."""
    archive = zipfile.ZipFile(io.BytesIO(api_client.get(zip_url(created)).content))
    roots = trust_roots()
    for name in archive.namelist():
        status = validate(archive.read(name), roots)
        assert (status.intact, status.valid, status.trusted) == (True, True, True), name
    return archive


# --- the task and the download --------------------------------------------------------------------


def test_completion_marks_the_seal_pending_and_enqueues_one_task(complete) -> None:
    _, packet = complete()

    (task,) = seal_tasks()
    assert task.args_kwargs == {"args": [], "kwargs": {"packet_id": packet.pk}}
    assert task.queue_name == "default"
    assert packet.seal_status == "pending"
    assert not packet.documents.get().sealed_sha256


def test_the_zip_answers_503_until_sealed_then_holds_sealed_pdfs_and_the_audit_trail(
    complete, api_client: Client
) -> None:
    created, packet = complete()
    stamped = document_pdf(packet.documents.get())

    waiting = api_client.get(zip_url(created))
    assert waiting.status_code == 503
    assert waiting["Retry-After"] == "5"
    assert waiting.json() == {
        "name": "SealPendingError",
        "message": "Every signer has signed; the documents are being sealed with the service's "
        "certificate. Try again in 5 seconds.",
    }
    assert waiting["X-RateLimit-Limit"]  # an API response like any other

    assert packet_seal(packet_id=packet.pk) == "sealed (PAdES-B-B)"

    response = api_client.get(zip_url(created))
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="Services agreement.zip"'
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert archive.namelist() == ["agreement.pdf", "audit-trail.pdf"]
    packet.refresh_from_db()
    document = packet.documents.get()
    sealed = archive.read("agreement.pdf")
    assert sealed.startswith(stamped)  # the stamped document, the seal appended
    assert document.sealed_sha256 == hashlib.sha256(sealed).hexdigest()
    roots = trust_roots()
    for name in archive.namelist():
        status = validate(archive.read(name), roots)
        assert (status.intact, status.valid, status.trusted) == (True, True, True), name
        assert status.signing_cert.subject.native["common_name"] == DEVELOPMENT_SEAL_NAME
    assert packet.seal_status == "sealed"
    assert packet.sealed_at is not None
    assert packet.seal_attempts == 0
    assert AuditEvent.objects.filter(packet=packet, action="packetSealed").count() == 1


def test_sealing_again_changes_nothing(complete) -> None:
    _, packet = complete()
    packet_seal(packet_id=packet.pk)
    packet.refresh_from_db()
    before = (packet.audit_trail_sha256, packet.documents.get().sealed_sha256)

    assert packet_seal(packet_id=packet.pk) == "already sealed"
    assert packet_seal_retry(packet=packet) is False

    packet.refresh_from_db()
    assert (packet.audit_trail_sha256, packet.documents.get().sealed_sha256) == before
    assert AuditEvent.objects.filter(packet=packet, action="packetSealed").count() == 1


def test_a_packet_not_completed_is_not_sealed(create_packet, api_client: Client) -> None:
    created = create_packet()
    packet = Packet.objects.get(eid=created["eid"])

    assert packet_seal(packet_id=packet.pk) == "not completed (sent)"
    assert api_client.get(zip_url(created)).status_code == 409
    assert seal_tasks() == []
    assert packet.seal_status == ""


def test_a_test_packet_keeps_its_mark_and_so_does_its_audit_trail(
    complete, api_client: Client
) -> None:
    created, packet = complete(isTest=True)
    packet_seal(packet_id=packet.pk)

    archive = zipfile.ZipFile(io.BytesIO(api_client.get(zip_url(created)).content))

    for name in ("agreement.pdf", "audit-trail.pdf"):
        text = " ".join(w.text for page in words(archive.read(name)) for w in page)
        assert "TEST" in text, name
        assert "legally binding" in text, name


def test_another_organizations_key_gets_nothing_of_the_zip(
    complete, api_client: Client, client_for, other_api_key: str
) -> None:
    created, packet = complete()
    outsider = client_for(other_api_key)

    before = outsider.get(zip_url(created))
    packet_seal(packet_id=packet.pk)
    after = outsider.get(zip_url(created))

    for response in (before, after):
        assert response.status_code == 404
        assert response["Content-Type"] == "application/json"
        assert response.json()["name"] == "NotFoundError"
        # No zip in the answer: a zip starts with its local header (the JSON body names the
        # eid, random text in which "PK" may well appear).
        assert not response.content.startswith(b"PK\x03\x04")
        assert set(response.json()) <= {"name", "message", "fields"}
    assert api_client.get(zip_url(created)).status_code == 200


# --- the key in SoftHSM2, a TSA -------------------------------------------------------------------


@with_the_hsm_seal
def test_documents_sealed_in_softhsm2_validate_against_the_test_ca(
    complete, api_client: Client
) -> None:
    created, packet = complete()

    assert packet_seal(packet_id=packet.pk) == "sealed (PAdES-B-B)"

    archive = zipfile.ZipFile(io.BytesIO(api_client.get(zip_url(created)).content))
    root = asn1(shared_pki().certificate)
    for name in archive.namelist():
        status = validate(archive.read(name), [root])
        assert (status.intact, status.valid, status.trusted) == (True, True, True), name
        assert status.signing_cert.subject.native["common_name"] == "Seal tests HSM seal"


def seal_while_down(service: str, complete: Any, settings: Any, capture: Any) -> Any:
    """A completed packet sealed (with the shared PKI's TSA) while that PKI's ``service`` (its
    flag: "tsa_available", "crl_available") is down, the retry it enqueues on commit captured;
    up again after. The seal is retrying: the PKI, the created packet's answer and the packet."""
    pki = shared_pki()
    settings.SEAL_TSA_URLS = [pki.tsa_url]
    created, packet = complete()
    setattr(pki, service, False)
    try:
        with capture(execute=True):  # the retry is enqueued on commit
            outcome = packet_seal(packet_id=packet.pk)
    finally:
        setattr(pki, service, True)

    assert outcome.startswith("retrying at ")
    packet.refresh_from_db()
    assert packet.seal_status == "retrying"
    return pki, created, packet


@with_the_hsm_seal
def test_with_the_tsa_down_nothing_is_sealed_until_it_is_back_then_b_lta(
    complete, api_client: Client, settings: Any, django_capture_on_commit_callbacks
) -> None:
    pki, created, packet = seal_while_down(
        "tsa_available", complete, settings, django_capture_on_commit_callbacks
    )

    assert packet.seal_attempts == 1
    assert packet.seal_error.startswith("timestamp_unavailable: ")
    assert "HTTP status 503" in packet.seal_error
    assert packet.documents.get().sealed_sha256 == ""  # nothing sealed with a local time
    assert packet.audit_trail_sha256 == ""
    first, retry = seal_tasks()
    assert retry.args_kwargs["kwargs"] == {"packet_id": packet.pk, "attempt": 2}
    delay = retry.run_after - timezone.now()
    assert timedelta(seconds=20) < delay < timedelta(seconds=40)  # SEAL_RETRY_DELAYS[0], ±10 %
    waiting = api_client.get(zip_url(created))
    assert waiting.status_code == 503
    assert 20 <= int(waiting["Retry-After"]) <= 40

    assert packet_seal(packet_id=packet.pk, attempt=2) == "sealed (PAdES-B-LTA)"

    archive = zipfile.ZipFile(io.BytesIO(api_client.get(zip_url(created)).content))
    root = asn1(pki.certificate)
    for name in archive.namelist():
        assert lta_validation(archive.read(name), [root]).ades_subindic == AdESPassed.OK, name
    actions = list(packet.audit_events.values_list("action", flat=True))
    assert actions[-3:] == ["packetCompleted", "packetSealFailed", "packetSealed"]


def test_when_the_retries_run_out_the_packet_is_failed_until_an_operator_retries(
    complete, api_client: Client, settings: Any, django_capture_on_commit_callbacks
) -> None:
    pki = shared_pki()
    settings.SEAL_TSA_URLS = [pki.tsa_url]
    settings.SEAL_RETRY_DELAYS = [1.0]
    roots_file = Path(settings.SEAL_DEV_DIR).parent / "tsa-roots.pem"
    roots_file.write_bytes(pki.ca_pem)
    settings.SEAL_TRUST_ROOTS_FILE = str(roots_file)
    created, packet = complete()
    pki.tsa_available = False
    try:
        assert packet_seal(packet_id=packet.pk, attempt=1).startswith("retrying")
        assert packet_seal(packet_id=packet.pk, attempt=2) == "failed"
    finally:
        pki.tsa_available = True
    packet.refresh_from_db()
    assert packet.seal_status == "failed"
    assert packet.seal_retry_at is None
    failed = api_client.get(zip_url(created))
    assert failed.status_code == 503
    assert failed.json()["name"] == "SealFailedError"
    assert "Retry-After" not in failed

    with django_capture_on_commit_callbacks(execute=True):
        assert packet_seal_retry(packet=packet) is True
    assert seal_tasks()[-1].args_kwargs["kwargs"] == {"packet_id": packet.pk}
    assert packet_seal(packet_id=packet.pk) == "sealed (PAdES-B-LTA)"
    assert api_client.get(zip_url(created)).status_code == 200


def test_the_admin_shows_the_seal_and_seals_again(
    complete, django_capture_on_commit_callbacks
) -> None:

    _, packet = complete()
    Packet.objects.filter(pk=packet.pk).update(seal_status="failed", seal_error="x: broken")
    browser = superuser_client()

    page = browser.get(f"/admin/esign/packet/{packet.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Seal status" in html
    assert "x: broken" in html
    with django_capture_on_commit_callbacks(execute=True):
        done = admin_action(browser, "/admin/esign/packet/", "seal_again", packet.pk)
    assert "Sealing enqueued for 1 packet(s)." in done.content.decode()
    assert len(seal_tasks()) == 2  # at completion, and now
    assert Packet.objects.get(pk=packet.pk).seal_status == "pending"


@with_the_hsm_seal
def test_an_hsm_that_cannot_be_used_postpones_the_seal(
    complete, settings: Any, django_capture_on_commit_callbacks
) -> None:
    _, packet = complete()
    settings.SEAL_PKCS11_TOKEN_LABEL = "no-such-token"

    with django_capture_on_commit_callbacks(execute=True):
        assert packet_seal(packet_id=packet.pk).startswith("retrying at ")

    packet.refresh_from_db()
    assert packet.seal_status == "retrying"
    assert packet.seal_error.startswith("seal_key_unavailable: ")
    assert "no-such-token" in packet.seal_error
    settings.SEAL_PKCS11_TOKEN_LABEL = softhsm_key().token_label
    assert packet_seal(packet_id=packet.pk, attempt=2) == "sealed (PAdES-B-B)"
