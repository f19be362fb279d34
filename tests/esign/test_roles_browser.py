"""Approvers and viewers in Chromium (issue 51, item 2), at 1366×900 and on a phone (390×844): the
approver's page offers Approve and Reject, no field and no guide; approving finishes their turn,
rejecting asks for a reason and declines the packet; a viewer's page shows the documents to
read, with nothing to sign. Screenshots in test-artifacts/esign/; axe finds nothing."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from esign.links.tokens import signer_token_issue
from esign.models import AuditEvent, Packet, Signer
from tests.axe import axe_violations
from tests.browser import TOUCH_SIZES, Tab
from tests.esign.conftest import CREATE
from tests.esign.test_roles import client_signs, roles_packet
from tests.esign.test_signing_browser import SHOTS, refused_request

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def roles_sent(graphql: Any, settings: Any, live_server: Any) -> str:
    """The roles packet, after Ada signed: the approver's and the reading viewer's turn."""
    settings.PUBLIC_BASE_URL = live_server.url
    result = graphql(CREATE, roles_packet())
    assert "errors" not in result, result
    client_signs()
    return result["data"]["createEtchPacket"]["eid"]


def link(live_server: Any, alias: str) -> str:
    person = Signer.objects.get(alias_id=alias)
    return (
        f"{live_server.url}/api/etch/verify/{person.eid}?token={signer_token_issue(signer=person)}"
    )


def open_link(
    browser: Any, live_server: Any, viewport: dict, options: dict, alias: str, loaded: str
) -> Tab:
    """A tab of ``viewport`` (and context ``options``) on the signer ``alias``'s link, once the
    page shows ``loaded``."""
    tab = Tab(browser, viewport, expected=refused_request, **options)
    tab.page.goto(link(live_server, alias))
    tab.page.wait_for_selector(loaded)
    return tab


def shot(tab: Tab, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / f"{name}.png"))


@pytest.mark.parametrize(("size", "viewport", "options"), TOUCH_SIZES)
def test_the_approver_approves(browser, live_server, roles_sent, size, viewport, options) -> None:
    tab = open_link(
        browser, live_server, viewport, options, "manager", "#signing[data-state=ready]"
    )
    page = tab.page
    expect(page.locator(".sg-role")).to_have_text(
        "As an approver: approve or reject these documents."
    )
    expect(page.locator("#sg-approve")).to_be_visible()
    expect(page.locator("#sg-decline-open")).to_have_text("Reject")
    assert page.locator("#sg-guide, #sg-finish, .sg-field").count() == 0
    page.wait_for_selector(".sg-page img.sg-canvas")
    shot(tab, f"roles-approver-{size}")
    assert axe_violations(page) == []

    page.click("#sg-approve")

    expect(page.locator("#sg-result-title")).to_have_text("You approved the documents")
    expect(page.locator("#sg-copies-list a")).to_have_count(1)  # their copy of what they approved
    shot(tab, f"roles-approver-approved-{size}")
    assert axe_violations(page) == []
    assert Signer.objects.get(alias_id="manager").status == "completed"
    assert AuditEvent.objects.filter(action="signerApproved").count() == 1
    assert Signer.objects.get(alias_id="provider").status == "sent"
    tab.close()


@pytest.mark.parametrize(("size", "viewport", "options"), TOUCH_SIZES)
def test_the_approver_rejects_with_a_reason(
    browser, live_server, roles_sent, size, viewport, options
) -> None:
    tab = open_link(
        browser, live_server, viewport, options, "manager", "#signing[data-state=ready]"
    )
    page = tab.page

    page.click("#sg-decline-open")
    expect(page.locator("#sg-decline-title")).to_have_text("Reject the documents")
    page.click("#sg-decline-ok")  # no reason yet
    expect(page.locator("#sg-decline-error")).to_have_text("Say why you reject the documents.")
    shot(tab, f"roles-approver-reject-{size}")
    assert axe_violations(page) == []
    page.fill("#sg-decline-reason", "The fee in clause 2 is wrong.")
    page.click("#sg-decline-ok")

    expect(page.locator("#sg-result-title")).to_have_text("You rejected the documents")
    shot(tab, f"roles-approver-rejected-{size}")
    assert Packet.objects.get(eid=roles_sent).status == "declined"
    entry = AuditEvent.objects.get(action="signerRejected")
    assert entry.detail == {"reason": "The fee in clause 2 is wrong.", "decision": "rejected"}
    tab.close()


@pytest.mark.parametrize(("size", "viewport", "options"), TOUCH_SIZES)
def test_the_viewer_reads_only(browser, live_server, roles_sent, size, viewport, options) -> None:
    tab = open_link(
        browser, live_server, viewport, options, "auditor", "#signing:not([data-state=loading])"
    )
    page = tab.page
    expect(page.locator("#sg-notice")).to_have_text(
        "These documents are shared with you to read. You have nothing to sign."
    )
    expect(page.locator(".sg-role")).to_have_text(
        "Shared with you to read: you have nothing to sign."
    )
    page.wait_for_selector(".sg-page img.sg-canvas")
    assert page.locator("#sg-finish, #sg-approve, #sg-decline-open, .sg-field").count() == 0
    shot(tab, f"roles-viewer-{size}")
    assert axe_violations(page) == []
    assert Signer.objects.get(alias_id="auditor").status == "viewed"
    tab.close()
