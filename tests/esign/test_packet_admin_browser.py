"""A packet's page in the admin, in Chromium at 1366×900: its tools as buttons on the page itself
(email a new link, void after asking, download once sealed), the audit events by label and by
person, and tables that fit. Screenshots in test-artifacts/esign/admin-*.png."""

from __future__ import annotations

import zipfile

import pytest
from django.urls import reverse

from accounts.models import Organization, User
from esign.models import Packet, SignerEmail
from esign.sealing.seal import packet_seal
from tests.axe import axe_violations
from tests.browser import Tab, admin_log_in
from tests.esign.conftest import esign_staff, send_queued_emails, two_signer_packet
from tests.esign.test_signing_browser import SHOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1366, "height": 900}
PASSWORD = "pw-packets-123456789"


@pytest.fixture
def staff(organization: Organization) -> User:
    return esign_staff(organization, password=PASSWORD)


def change_url(live_server, packet: Packet) -> str:
    return live_server.url + reverse("admin:esign_packet_change", args=[packet.pk])


def packet_page(browser, live_server, staff: User, packet: Packet) -> Tab:  # noqa: ANN001
    """A desktop tab on the packet's change page, logged in as ``staff``."""
    tab = Tab(browser, DESKTOP)
    admin_log_in(tab.page, live_server, staff.username, PASSWORD)
    tab.page.goto(change_url(live_server, packet))
    return tab


def fits(tab: Tab) -> None:
    """The page fits 1366 px, and axe finds nothing on it."""
    assert tab.page.evaluate("document.documentElement.scrollWidth") <= DESKTOP["width"]
    assert axe_violations(tab.page, best_practice=True) == []


def test_an_open_packets_page_resends_and_voids(
    browser, live_server, staff: User, create_packet
) -> None:
    variables = two_signer_packet()
    variables["signers"][0]["signerType"] = "email"
    created = create_packet(signers=variables["signers"])
    assert send_queued_emails() == ["sent"]
    packet = Packet.objects.get(eid=created["eid"])

    tab = packet_page(browser, live_server, staff, packet)
    tools = tab.page.locator(".object-tools li").all_inner_texts()
    assert [text.strip().upper() for text in tools] == [
        "EMAIL A NEW LINK",
        "REASSIGN A SIGNER",
        "VOID",
        "HISTORY",
    ]
    events = tab.page.locator(".field-what").all_inner_texts()
    assert "Packet created" in events
    assert "Emailed a link to sign" in events
    assert "packetCreated" not in " ".join(events)
    who = tab.page.locator("td.field-who").all_inner_texts()
    assert "Ada Lovelace" in who
    fits(tab)
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / "admin-packet-open-desktop.png"), full_page=True)

    tab.page.click("text=Email a new link")
    assert (
        tab.page.inner_text(".messagelist") == "A new signing link is on its way to Ada Lovelace."
    )
    resend = SignerEmail.objects.filter(signer__packet=packet, kind=SignerEmail.Kind.RESEND)
    assert resend.count() == 1
    assert "A new signing link was asked for" in tab.page.locator(".field-what").all_inner_texts()

    tab.page.click(".object-tools a.packet-void")
    assert "Once voided, nobody can sign" in tab.page.inner_text("#content-main")
    assert Packet.objects.get(pk=packet.pk).status != "voided"  # asking changes nothing
    fits(tab)
    tab.page.screenshot(path=str(SHOTS / "admin-packet-void-confirm-desktop.png"))
    tab.page.click("input[value='Void the packet']")
    assert "was voided" in tab.page.inner_text(".messagelist")
    assert Packet.objects.get(pk=packet.pk).status == "voided"
    tools = tab.page.locator(".object-tools li").all_inner_texts()
    assert [text.strip().upper() for text in tools] == ["HISTORY"]
    assert "Packet voided" in tab.page.locator(".field-what").all_inner_texts()
    fits(tab)
    tab.page.screenshot(path=str(SHOTS / "admin-packet-voided-desktop.png"), full_page=True)
    tab.close()


def test_a_sealed_packets_page_downloads_its_documents(
    browser, live_server, staff: User, complete
) -> None:
    _, packet = complete()
    assert packet_seal(packet_id=packet.pk).startswith("sealed")

    tab = packet_page(browser, live_server, staff, packet)
    tools = tab.page.locator(".object-tools li").all_inner_texts()
    assert [text.strip().upper() for text in tools] == [
        "DOWNLOAD THE SEALED DOCUMENTS (ZIP)",
        "HISTORY",
    ]
    fits(tab)
    tab.page.screenshot(path=str(SHOTS / "admin-packet-sealed-desktop.png"), full_page=True)
    with tab.page.expect_download() as download:
        tab.page.click(".object-tools a:text-is('Download the sealed documents (zip)')")
    names = zipfile.ZipFile(download.value.path()).namelist()
    assert sorted(names) == ["agreement.pdf", "audit-trail.pdf"]
    tab.close()
