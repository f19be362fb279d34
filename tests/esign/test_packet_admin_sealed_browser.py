"""A sealed packet's page in the admin, in Chromium at 1366×900 and on a phone: its sealed
files named by the document's title (not "document-15"), no sealing counters that mean nothing
once sealed, the copy email described for people, and axe (best practice too) finding nothing.
Screenshots in test-artifacts/esign/admin-packet-sealed-*.png."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import Organization, User
from esign.models import Packet
from esign.packets.audit import AuditAction
from esign.packets.lifecycle import audit
from esign.sealing.seal import packet_seal
from tests.axe import axe_violations
from tests.browser import Tab, admin_log_in
from tests.esign.conftest import esign_staff
from tests.esign.test_signing_browser import SHOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-packets-123456789"


@pytest.fixture
def staff(organization: Organization) -> User:
    return esign_staff(organization, password=PASSWORD)


@pytest.mark.parametrize(("width", "height"), [(1366, 900), (390, 844)])
def test_a_sealed_packets_page_says_what_means_something(
    browser, live_server, staff: User, complete, width: int, height: int
) -> None:
    _, packet = complete()
    assert packet_seal(packet_id=packet.pk).startswith("sealed")
    packet = Packet.objects.get(pk=packet.pk)
    signer = packet.signers.order_by("routing_order").first()
    audit(
        packet=packet, signer=signer, action=AuditAction.SIGNER_EMAIL_SENT, detail={"kind": "copy"}
    )
    document = packet.documents.get()

    tab = Tab(browser, {"width": width, "height": height})
    admin_log_in(tab.page, live_server, staff.username, PASSWORD)
    tab.page.goto(live_server.url + reverse("admin:esign_packet_change", args=[packet.pk]))
    files = tab.page.locator("td.field-file").all_inner_texts()
    assert f"{document.title} (document)" in files, files
    assert "Audit trail" in files
    assert not any(text.startswith("document-") for text in files)
    content = tab.page.inner_text("#content-main")
    assert "Seal attempts" not in content
    assert "Seal retry at" not in content
    events = tab.page.locator("td.field-what").all_inner_texts()
    assert "Emailed a link to their copy of the signed documents" in events, events
    details = tab.page.locator("td.field-details").all_inner_texts()
    assert not any("kind: copy" in text for text in details)
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / f"admin-packet-sealed-{width}.png"), full_page=True)
    assert axe_violations(tab.page, best_practice=True) == []
    tab.close()
