"""A signer's verification before signing (an extension: the signer JSON's ``verify``): the link
leads to a code page until a one-time code sent by email or SMS is entered; codes are hashed,
single use, short-lived, locked after wrong tries; the audit trail records each send and success.
Time moves by patching the clock the code reads."""

from __future__ import annotations

import re
from datetime import UTC, timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from esign.links import sms
from esign.links.codes import LOCK_WAIT, MAX_TRIES
from esign.models import AuditEvent, Packet, Signer, SignerCode
from esign.sealing.certificate import audit_trail_pdf
from tests.esign.conftest import CREATE, token_of, two_signer_packet
from tests.pdfcheck import words

pytestmark = pytest.mark.django_db


def signers_with(verify: Any, **first: Any) -> list[dict[str, Any]]:
    signers = two_signer_packet()["signers"]
    signers[0]["verify"] = verify
    signers[0].update(first)
    return signers


def fields_of(result: dict[str, Any]) -> list[dict[str, str]]:
    return result["errors"][0]["extensions"]["fields"]


def code_in(text: str) -> str:
    match = re.search(r"\b(\d{6})\b", text)
    assert match, text
    return match.group(1)


@pytest.mark.parametrize(
    ("verify", "first", "property_"),
    [
        ({"method": "fax"}, {}, "signers.0.verify.method"),
        ("email", {}, "signers.0.verify"),
        ({"method": "sms"}, {}, "signers.0.verify.phone"),
        ({"method": "sms", "phone": "12345"}, {}, "signers.0.verify.phone"),
        ({"method": "sms", "phone": "+1 202\n555"}, {}, "signers.0.verify.phone"),
        ({"method": "integrator"}, {"signerType": "email"}, "signers.0.verify.method"),
        ({"method": "email"}, {"email": ""}, "signers.0.verify.method"),
    ],
)
def test_a_bad_verify_is_a_validation_error_and_nothing_is_stored(
    graphql, verify: Any, first: dict[str, Any], property_: str
) -> None:
    result = graphql(CREATE, two_signer_packet(signers=signers_with(verify, **first)))
    assert result["errors"][0]["extensions"]["code"] == "ValidationError"
    assert property_ in [f["property"] for f in fields_of(result)]
    assert Packet.objects.count() == 0


def packet_with(graphql, verify: Any, **first: Any) -> str:
    created = graphql(CREATE, two_signer_packet(signers=signers_with(verify, **first)))
    assert "errors" not in created, created
    return created["data"]["createEtchPacket"]["documentGroup"]["signers"][0]["eid"]


def test_an_email_code_opens_the_documents(graphql, sign_url) -> None:
    signer_eid = packet_with(graphql, {"method": "email"})
    link = sign_url(signer_eid).replace("http://127.0.0.1:8000", "")
    token = token_of(link)
    browser = Client()

    opened = browser.get(link)
    code_page = f"/api/etch/sign/{signer_eid}/code"
    assert opened.status_code == 302
    assert opened["Location"].startswith(code_page)
    document = browser.get(f"/api/etch/sign/{signer_eid}/documents/agreement.pdf", {"token": token})
    assert document.status_code == 403
    assert document.json()["reason"] == "verificationRequired"

    page = browser.get(code_page, {"token": token}).content.decode()
    assert "a***@example.com" in page
    sent = browser.post(code_page, {"token": token, "action": "send"})
    assert sent.status_code == 200
    html = sent.content.decode()
    assert 'autocomplete="one-time-code"' in html
    assert 'inputmode="numeric"' in html
    assert '<label class="sg-label" for="code">' in html
    assert mail.outbox[-1].to == ["ada@example.com"]
    code = code_in(mail.outbox[-1].body)
    stored = SignerCode.objects.get()
    assert code not in stored.code_hash  # only a keyed hash at rest

    wrong = "000000" if code != "000000" else "111111"
    assert browser.post(code_page, {"token": token, "code": wrong}).status_code == 400
    right = browser.post(code_page, {"token": token, "code": code})
    assert right.status_code == 302
    assert browser.get(right["Location"]).status_code == 200
    # Used once: the same code no longer works, and the link stays verified.
    assert browser.get(link).status_code == 200
    signer = Signer.objects.get(eid=signer_eid)
    entries = AuditEvent.objects.filter(
        signer=signer, action__in=["signerCodeSent", "signerVerified"]
    )
    assert [(e.action, e.detail) for e in entries] == [
        ("signerCodeSent", {"method": "email", "to": "a***@example.com"}),
        ("signerVerified", {"method": "email", "to": "a***@example.com"}),
    ]
    # A new link asks again.
    again = sign_url(signer_eid).replace("http://127.0.0.1:8000", "")
    assert browser.get(again).status_code == 302


def test_wrong_tries_lock_the_code_until_the_wait_passed(graphql, sign_url, monkeypatch) -> None:
    signer_eid = packet_with(graphql, {"method": "email"})
    token = token_of(sign_url(signer_eid))
    code_page = f"/api/etch/sign/{signer_eid}/code"
    browser = Client()
    browser.post(code_page, {"token": token, "action": "send"})
    code = code_in(mail.outbox[-1].body)
    wrong = "000000" if code != "000000" else "111111"
    for _ in range(MAX_TRIES):
        browser.post(code_page, {"token": token, "code": wrong})
    locked = browser.post(code_page, {"token": token, "code": code})
    assert locked.status_code == 400
    assert "Too many wrong tries" in locked.content.decode()
    assert browser.post(code_page, {"token": token, "action": "send"}).status_code == 429
    assert AuditEvent.objects.filter(action="signerCodeLocked").count() == 1

    later = timezone.now() + LOCK_WAIT + timedelta(seconds=1)
    monkeypatch.setattr(timezone, "now", lambda: later)
    assert browser.post(code_page, {"token": token, "action": "send"}).status_code == 200
    fresh = code_in(mail.outbox[-1].body)
    assert browser.post(code_page, {"token": token, "code": fresh}).status_code == 302


def test_a_code_lasts_ten_minutes(graphql, sign_url, monkeypatch) -> None:
    signer_eid = packet_with(graphql, {"method": "email"})
    token = token_of(sign_url(signer_eid))
    code_page = f"/api/etch/sign/{signer_eid}/code"
    Client().post(code_page, {"token": token, "action": "send"})
    code = code_in(mail.outbox[-1].body)
    later = timezone.now() + timedelta(minutes=10, seconds=1)
    monkeypatch.setattr(timezone, "now", lambda: later)
    late = Client().post(code_page, {"token": token, "code": code})
    assert late.status_code == 400
    assert "expired" in late.content.decode()


def test_an_sms_code_goes_to_the_normalised_phone(graphql, sign_url, settings) -> None:
    settings.ESIGN_SMS_BACKEND = "database"
    sms.outbox.clear()
    signer_eid = packet_with(graphql, {"method": "sms", "phone": "+44 20 7946 0958"})
    assert Signer.objects.get(eid=signer_eid).verify_phone == "+442079460958"
    token = token_of(sign_url(signer_eid))
    code_page = f"/api/etch/sign/{signer_eid}/code"
    Client().post(code_page, {"token": token, "action": "send"})
    assert [m.to for m in sms.outbox] == ["+442079460958"]
    assert mail.outbox == []
    code = code_in(sms.outbox[-1].body)
    assert Client().post(code_page, {"token": token, "code": code}).status_code == 302
    sent = AuditEvent.objects.get(action="signerCodeSent")
    assert sent.detail == {"method": "sms", "to": "+********0958"}


def test_the_integrator_may_say_it_verified_an_embedded_signer(graphql, sign_url) -> None:
    signer_eid = packet_with(graphql, {"method": "integrator"})
    link = sign_url(signer_eid).replace("http://127.0.0.1:8000", "")
    assert Client().get(link).status_code == 200
    created = AuditEvent.objects.get(signer__eid=signer_eid, action="signingUrlCreated")
    assert created.detail == {"verifiedBy": "integrator"}


def test_the_code_page_is_in_the_signers_language(graphql, sign_url) -> None:
    signer_eid = packet_with(graphql, {"method": "email"}, language="es")
    token = token_of(sign_url(signer_eid))
    page = Client().get(f"/api/etch/sign/{signer_eid}/code", {"token": token})
    html = page.content.decode()
    assert "Introduzca su código para firmar" in html
    assert "Enviarme un código" in html


def test_the_trail_pdf_records_each_send_and_success(graphql, sign_url, settings) -> None:
    settings.ESIGN_SMS_BACKEND = "database"
    signer_eid = packet_with(graphql, {"method": "sms", "phone": "+44 20 7946 0958"})
    token = token_of(sign_url(signer_eid))
    code_page = f"/api/etch/sign/{signer_eid}/code"
    Client().post(code_page, {"token": token, "action": "send"})
    Client().post(code_page, {"token": token, "code": code_in(sms.outbox[-1].body)})
    packet = Signer.objects.get(eid=signer_eid).packet

    pdf = audit_trail_pdf(packet, credentials=SimpleNamespace(subject="Test seal"))  # type: ignore[arg-type]
    text = " ".join(w.text for page in words(pdf) for w in page)
    assert "Verification code sent" in text
    assert "Verified with a code" in text
    # The detail column wraps: its words come out between the other columns'.
    assert text.count("(by SMS") == 2
    assert text.count("to +********0958)") == 2
    for entry in AuditEvent.objects.filter(action__in=["signerCodeSent", "signerVerified"]):
        assert entry.at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC") in text
