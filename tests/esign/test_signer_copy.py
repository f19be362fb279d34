"""The signer's copy: the documents from the signing page (as they stand, then sealed), an
email with a link to the sealed documents once the packet is sealed (enableEmails), and the
packet's admin page: download, void, audit events named for people."""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

import pytest
from django.conf import settings
from django.core import mail
from django.test import Client

from esign.links.tokens import signer_token_issue
from esign.models import AuditEvent, Packet, PacketDocument, Signer, SignerEmail
from esign.sealing.seal import packet_seal
from tests.esign.conftest import send_queued_emails, sign, token_of
from tests.staff import admin_action, superuser_client

pytestmark = pytest.mark.django_db


def _link(message: Any) -> str:
    url = re.search(r"(https?://\S+)", message.body)[1]  # type: ignore[index]
    return url.replace(settings.PUBLIC_BASE_URL, "")


def test_the_sealed_packet_emails_a_link_to_their_copy_to_each_signer_who_gets_emails(
    complete: Any,
) -> None:
    wire, packet = complete()
    # The first signer is an email signer; the second turned emails off (enableEmails).
    Signer.objects.filter(packet=packet, alias_id="client").update(signer_type="email")
    Signer.objects.filter(packet=packet, alias_id="provider").update(
        signer_type="email", enable_emails=False
    )
    mail.outbox.clear()
    assert SignerEmail.objects.filter(kind="copy").count() == 0  # not before it is sealed
    assert packet_seal(packet_id=packet.pk) == "sealed (PAdES-B-B)"
    assert list(SignerEmail.objects.values_list("kind", "signer__alias_id")) == [("copy", "client")]
    assert send_queued_emails() == ["sent"]
    [message] = mail.outbox
    assert message.to == ["ada@example.com"]
    assert message.subject == "Signed: Services agreement"
    assert "works for 90 days" in message.body

    response = Client().get(_link(message))
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="Services agreement.zip"'
    names = zipfile.ZipFile(io.BytesIO(response.content)).namelist()
    assert names == ["agreement.pdf", "audit-trail.pdf"]
    sealed = PacketDocument.objects.get(packet=packet)
    pdf = zipfile.ZipFile(io.BytesIO(response.content)).read("agreement.pdf")
    import hashlib

    assert hashlib.sha256(pdf).hexdigest() == sealed.sealed_sha256

    # Another signer's eid with this key, or a changed key: nothing.
    other = Signer.objects.get(packet=packet, alias_id="provider").eid
    link = _link(message)
    forged = Client().get(link.replace(link.split("/")[4].split("?")[0], other))
    assert forged.status_code == 404
    assert Client().get(link[:-2] + "xx").status_code == 404
    assert AuditEvent.objects.filter(packet=packet, action="signerEmailSent").count() == 1


def test_the_signing_link_downloads_the_document_as_it_stands_then_sealed(
    complete: Any, sign_url: Any
) -> None:
    wire, packet = complete()
    signer = Signer.objects.get(packet=packet, alias_id="client")
    # A link the signer holds from before (generateEtchSignURL makes none after they signed).
    token = signer_token_issue(signer=signer)
    document = PacketDocument.objects.get(packet=packet)
    url = f"/api/etch/sign/{signer.eid}/documents/agreement.pdf?token={token}&download=1"
    import hashlib

    before = Client().get(url)
    assert before.status_code == 200
    assert before["Content-Disposition"] == 'attachment; filename="agreement.pdf"'
    assert hashlib.sha256(before.content).hexdigest() == document.current_sha256
    packet_seal(packet_id=packet.pk)
    document.refresh_from_db()
    after = Client().get(url)
    assert hashlib.sha256(after.content).hexdigest() == document.sealed_sha256
    inline = Client().get(url.replace("&download=1", ""))
    assert inline["Content-Disposition"] == 'inline; filename="agreement.pdf"'
    page = Client().get(f"/api/etch/verify/{signer.eid}?token={token}").content.decode()
    assert '"sealed": true' in page
    assert '"filename": "agreement.pdf"' in page


def test_the_packet_admin_downloads_voids_and_names_audit_events_for_people(
    complete: Any, create_packet: Any
) -> None:
    wire, packet = complete()
    browser = superuser_client()

    page = browser.get(f"/admin/esign/packet/{packet.pk}/change/").content.decode()
    assert "Once sealed (sealing: pending)." in page
    assert ">Packet created<" in page
    assert ">packetCreated<" not in page
    assert ">Signed<" in page
    packet_seal(packet_id=packet.pk)
    page = browser.get(f"/admin/esign/packet/{packet.pk}/change/").content.decode()
    download = f"/admin/esign/packet/{packet.pk}/download/"
    assert f'href="{download}"' in page
    response = browser.get(download)
    assert response.status_code == 200
    assert "audit-trail.pdf" in zipfile.ZipFile(io.BytesIO(response.content)).namelist()
    assert Client().get(download).status_code == 302  # to the login page

    open_packet = Packet.objects.get(eid=create_packet()["eid"])
    done = admin_action(
        browser, "/admin/esign/packet/", "void", open_packet.pk, packet.pk
    ).content.decode()
    assert "1 packet(s) voided." in done
    assert "only an open packet can be voided" in done
    open_packet.refresh_from_db()
    packet.refresh_from_db()
    assert (open_packet.status, packet.status) == ("voided", "completed")


def test_an_embedded_signer_keeps_a_lasting_copy_that_opens_each_document_as_a_pdf(
    create_packet: Any, sign_url: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hashlib
    from datetime import timedelta

    from django.utils import timezone

    from webhooks.models import WebhookEvent

    packet = create_packet()  # two embedded signers, who get no email
    eids = {s["aliasId"]: s["eid"] for s in packet["documentGroup"]["signers"]}
    browser = Client()
    done = sign(
        browser,
        eids["client"],
        token_of(sign_url(eids["client"])),
        {"signature": {"typed": "Ada Lovelace"}, "values": {"agreement/title1": "Chief Analyst"}},
    )
    assert done.status_code == 200, done.content
    # The answer to finishing (the page's done state) and the signerComplete event (an
    # extension key, "documents") hand the signer the same lasting links; the event's keys
    # posted to the parent frame stay as they were.
    [copy] = done.json()["copies"]
    assert set(done.json()["event"]) == {
        "action", "signerEid", "signerStatus", "nextSignerEid", "documentGroupEid",
        "documentGroupStatus", "etchPacketEid",
    }  # fmt: skip
    assert copy["id"] == "agreement"
    assert copy["title"] == "Services agreement"
    assert copy["filename"] == "agreement.pdf"
    assert copy["url"].startswith(
        f"{settings.PUBLIC_BASE_URL}/api/etch/copy/{eids['client']}/agreement.pdf?key="
    )
    event = WebhookEvent.objects.get(action="signerComplete")
    [from_event] = event.data["documents"]  # its key is signed at its own second: the same link
    assert {**from_event, "url": ""} == {**copy, "url": ""}
    assert from_event["url"].split("?")[0] == copy["url"].split("?")[0]
    assert event.data["signer"]["eid"] == eids["client"]

    # On a phone it opens as a PDF (inline), the document as it stands, sealed once sealed.
    url = copy["url"].replace(settings.PUBLIC_BASE_URL, "")
    document = PacketDocument.objects.get(packet__eid=packet["eid"])
    before = Client().get(url)
    assert before.status_code == 200
    assert before["Content-Type"] == "application/pdf"
    assert before["Content-Disposition"] == 'inline; filename="agreement.pdf"'
    assert hashlib.sha256(before.content).hexdigest() == document.current_sha256
    # The completion page offers the same lasting links (not ones behind the signing token).
    completion = Client().get(done.json()["legacyURL"].replace(settings.PUBLIC_BASE_URL, ""))
    [offered] = re.findall(r'<a href="([^"]+)"', completion.content.decode())
    assert offered.startswith(copy["url"].split("?")[0] + "?key=")
    assert Client().get(offered.replace(settings.PUBLIC_BASE_URL, "")).status_code == 200
    assert Client().get(from_event["url"].replace(settings.PUBLIC_BASE_URL, "")).status_code == 200
    sign(
        browser,
        eids["provider"],
        token_of(sign_url(eids["provider"])),
        {"signature": {"typed": "Charles Babbage"}},
    )
    packet_seal(packet_id=Packet.objects.get(eid=packet["eid"]).pk)
    document.refresh_from_db()
    after = Client().get(url)
    assert hashlib.sha256(after.content).hexdigest() == document.sealed_sha256

    # Another signer's eid or document, a changed key: nothing. After 90 days: nothing.
    assert Client().get(url.replace(eids["client"], eids["provider"])).status_code == 404
    assert Client().get(url.replace("agreement.pdf", "other.pdf")).status_code == 404
    assert Client().get(url[:-2] + "xx").status_code == 404
    later = timezone.now() + timedelta(days=91)
    monkeypatch.setattr("time.time", lambda: later.timestamp())
    expired = Client().get(url)
    assert expired.status_code == 404
    assert "has expired" in expired.content.decode()


def test_a_signer_who_declined_gets_no_copy(create_packet: Any, sign_url: Any) -> None:
    packet = create_packet()
    signer = packet["documentGroup"]["signers"][0]["eid"]
    token = token_of(sign_url(signer))
    declined = Client().post(
        f"/api/etch/sign/{signer}/decline",
        data={"reason": "No."},
        content_type="application/json",
        HTTP_X_SIGNING_TOKEN=token,
    )
    assert declined.status_code == 200
    assert "copies" not in declined.json()
    from esign.packets.documents import signer_copy_url

    key = signer_copy_url(Signer.objects.get(eid=signer)).split("key=")[1]
    url = f"/api/etch/copy/{signer}/agreement.pdf?key={key}"
    assert Client().get(url).status_code == 404
