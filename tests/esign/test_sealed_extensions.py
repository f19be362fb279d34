"""A sealed packet with the senders' extensions of the stop before (issue 40, items 1 and 5): a
signer verified by an emailed code and an expiry the sender moved. Every file of the zip
validates in pyHanko (intact, valid, trusted), and the sealed certificate of completion records
the code's sending and success and the new expiry."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from esign.models import Packet
from esign.sealing.seal import packet_seal
from tests.esign.conftest import CREATE, DRAWN, sign, token_of, two_signer_packet
from tests.esign.test_expiry import EXTEND
from tests.esign.test_seal_packets import trusted_archive
from tests.esign.test_verification import code_in, signers_with
from tests.pdfcheck import joined_words

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_verified_signer_and_a_moved_expiry_seal_and_validate(
    graphql, sign_url, api_client, django_capture_on_commit_callbacks
) -> None:
    created = graphql(CREATE, two_signer_packet(signers=signers_with({"method": "email"})))
    assert "errors" not in created, created
    packet = created["data"]["createEtchPacket"]
    later = (timezone.now() + timedelta(days=30)).replace(microsecond=0)
    moved = graphql(EXTEND, {"eid": packet["eid"], "at": later.isoformat()})
    assert "errors" not in moved, moved
    ada, charles = (s["eid"] for s in packet["documentGroup"]["signers"])

    link = sign_url(ada).replace("http://127.0.0.1:8000", "")
    token = token_of(link)
    browser = Client()
    code_page = f"/api/etch/sign/{ada}/code"
    assert browser.post(code_page, {"token": token, "action": "send"}).status_code == 200
    entered = browser.post(code_page, {"token": token, "code": code_in(mail.outbox[-1].body)})
    assert entered.status_code == 302
    signed = sign(
        browser,
        ada,
        token,
        {"signature": {"typed": "Ada Lovelace"}, "values": {"agreement/title1": "Countess"}},
    )
    assert signed.status_code == 200, signed.content
    with django_capture_on_commit_callbacks(execute=True):
        done = sign(Client(), charles, token_of(sign_url(charles)), {"signature": {"drawn": DRAWN}})
    assert done.json()["event"]["documentGroupStatus"] == "completed"
    assert packet_seal(packet_id=Packet.objects.get(eid=packet["eid"]).pk).startswith("sealed")

    archive = trusted_archive(api_client, packet)
    trail = joined_words(archive.read("audit-trail.pdf"))
    for label in (
        "Verification code sent",
        "Verified with a code",
        "a***@example.com",
        "Expiry date changed by the sender",
    ):
        assert label in trail, label
