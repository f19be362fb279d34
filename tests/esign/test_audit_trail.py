"""The certificate of completion: what it says about the packet, its documents (hashes before and
after), each signer (adopted signature, every event with time, IP and user agent), and that it is
sealed itself."""

from __future__ import annotations

import hashlib
import io
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pikepdf
import pytest
from django.test import Client

from core.resources import font_library
from esign.engine.audit_trail import (
    AuditTrail,
    TrailDocument,
    TrailEvent,
    TrailSigner,
    draw_audit_trail,
)
from esign.models import Packet
from esign.sealing.config import trust_roots
from esign.sealing.seal import packet_seal
from tests.esign.conftest import USER_AGENT, drawn_signature_png
from tests.esign.test_seal_packets import validate, zip_url
from tests.pdfcheck import render, words
from tests.pdfsound import assert_sound
from tests.templates_app.conftest import ARTIFACTS as ALL_ARTIFACTS

ARTIFACTS = ALL_ARTIFACTS / "verify"


def text_of(pdf: bytes) -> str:
    return " ".join(w.text for page in words(pdf) for w in page)


def images_on_pages(pdf: bytes) -> int:
    with pikepdf.open(io.BytesIO(pdf)) as document:
        return sum(len(page.get_images()) for page in document.pages)


def when(value: Any) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


@pytest.mark.django_db
def test_the_trail_records_documents_signers_and_every_event(
    complete,  # noqa: F811 - the fixture imported above
    api_client: Client,
) -> None:
    created, packet = complete()
    assert packet_seal(packet_id=packet.pk).startswith("sealed")
    packet = Packet.objects.get(pk=packet.pk)
    archive = zipfile.ZipFile(io.BytesIO(api_client.get(zip_url(created)).content))
    trail = archive.read("audit-trail.pdf")
    text = text_of(trail)

    assert hashlib.sha256(trail).hexdigest() == packet.audit_trail_sha256
    status = validate(trail, trust_roots())
    assert (status.intact, status.trusted) == (True, True)
    assert "Certificate of completion" in text
    for value in ("Services agreement", packet.eid, "Acme Inc.", "completed"):
        assert value in text
    document = packet.documents.get()
    assert document.prepared_sha256 in text
    assert document.sealed_sha256 in text
    assert document.sealed_sha256 == hashlib.sha256(archive.read("agreement.pdf")).hexdigest()
    assert document.prepared_sha256 != document.sealed_sha256
    for signer in packet.signers.all():
        assert signer.name in text
        assert signer.email in text
        assert when(signer.completed_at) in text
        for event in signer.audit_events.all():
            assert when(event.at) in text
    for label in ("Asked to sign", "Signing link created", "Opened the signing link", "Signed"):
        assert label in text
    assert "203.0.113.9" in text
    assert "2001:db8::7" in text
    assert text.count("SealTest/1.0") == 4  # the user agent of both signers' view and sign
    assert USER_AGENT.split()[0] in text
    for label in ("Packet created", "Packet sent", "Every signer signed"):
        assert label in text
    assert "typed" in text  # Ada's adopted signature, set in the handwriting font
    assert "drawn" in text  # Charles's, as the image he drew
    assert images_on_pages(trail) == 1
    assert_sound(trail)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)  # for people to look at
    render(trail, page=0, dpi=80).save(ARTIFACTS / "audit-trail-page-1.png")


def trail(**overrides: Any) -> AuditTrail:
    values: dict[str, Any] = {
        "packet_name": "Договор 合同 agreement",
        "packet_eid": "Packet1234567890abcd",
        "organization": "Acme Inc.",
        "status": "completed",
        "is_test": False,
        "created_at": "2026-03-04 05:00:00 UTC",
        "completed_at": "2026-03-04 05:10:00 UTC",
        "generated_at": datetime(2026, 3, 4, 5, 10, 1, tzinfo=UTC),
        "sealed_by": "Common Name: Test seal",
        "documents": (TrailDocument("Agreement", "agreement.pdf", 2, "a" * 64, "b" * 64),),
        "signers": (
            TrailSigner(
                name="Чарльз Бэббидж",
                email="charles@example.com",
                routing_order=1,
                status="completed",
                completed_at="2026-03-04 05:09:00 UTC",
                signature_png=drawn_signature_png(),
                events=tuple(
                    TrailEvent(
                        f"2026-03-04 05:0{n}:00 UTC", "Signed", "198.51.100.1", "UA/" + str(n)
                    )
                    for n in range(10)
                )
                * 8,
            ),
        ),
    }
    values.update(overrides)
    return AuditTrail(**values)


def test_long_trails_flow_onto_numbered_pages_in_any_script() -> None:
    pdf = draw_audit_trail(trail(), fonts=font_library())

    pages = words(pdf)
    assert len(pages) >= 2
    text = text_of(pdf)
    assert "Договор" in text
    assert "合同" in text
    assert "Чарльз" in text
    assert f"page 1 of {len(pages)}" in text
    assert f"page {len(pages)} of {len(pages)}" in text
    assert text.count("UA/7") == 8
    assert_sound(pdf)


def test_a_test_packets_trail_is_marked_and_a_broken_image_is_not_fatal() -> None:
    broken = TrailSigner("Ada", "ada@example.com", 1, "completed", "", signature_png=b"not png")

    pdf = draw_audit_trail(
        trail(is_test=True, signers=(broken,)),
        fonts=font_library(),
        handwriting_font=Path("/nonexistent.ttf"),
    )

    text = text_of(pdf)
    assert "TEST" in text
    assert "(none adopted)" in text
    assert images_on_pages(pdf) == 0


def test_the_trail_pdf_is_dated_when_it_was_made_and_names_its_author() -> None:
    pdf = draw_audit_trail(trail(), fonts=font_library())

    with pikepdf.open(io.BytesIO(pdf)) as document:
        info = document.docinfo
        assert str(info["/CreationDate"]) == "D:20260304051001+00'00'"
        assert str(info["/ModDate"]) == "D:20260304051001+00'00'"
        assert str(info["/Author"]) == "Common Name: Test seal"
    assert "2026-03-04 05:10:01 UTC" in text_of(pdf)
