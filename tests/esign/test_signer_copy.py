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

from accounts.models import User
from esign.models import AuditEvent, Packet, PacketDocument, Signer, SignerEmail
from esign.sealing import packet_seal
from tests.esign.conftest import send_queued_emails, token_of

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
    token = token_of(sign_url(signer.eid))
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
    admin = User.objects.create_superuser("root", "root@example.com", "pw-for-tests-only")
    browser = Client()
    browser.force_login(admin)

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
    done = browser.post(
        "/admin/esign/packet/",
        {"action": "void", "_selected_action": [open_packet.pk, packet.pk]},
        follow=True,
    ).content.decode()
    assert "1 packet(s) voided." in done
    assert "only an open packet can be voided" in done
    open_packet.refresh_from_db()
    packet.refresh_from_db()
    assert (open_packet.status, packet.status) == ("voided", "completed")
