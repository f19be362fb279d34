"""allowUpdates in Chromium (issue 51, item 4), at 1366×900 and on a phone (390×844): the first
signer sees the sender's value over the page, read-only; the signer given the field finds it in
the guide with the sender's value and a note that they may change it, changes it and signs; the
document then holds the new value. Screenshots in test-artifacts/esign/; axe finds nothing."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from esign.models import AuditEvent, Signer
from tests.axe import axe_violations
from tests.browser import TOUCH_SIZES, Tab
from tests.esign.test_allow_updates import client_signs, created, fee_on_page_one, fee_packet
from tests.esign.test_roles_browser import link
from tests.esign.test_signing_browser import SHOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize(("size", "viewport", "options"), TOUCH_SIZES)
def test_the_signer_changes_a_value_the_sender_filled_in(
    browser, live_server, graphql, size, viewport, options
) -> None:
    variables = fee_packet(allowUpdates=True)
    variables["signers"][1].update(signatureMode="text")
    del variables["signers"][1]["redirectURL"]
    packet = created(graphql, variables)
    SHOTS.mkdir(parents=True, exist_ok=True)

    # The first signer sees the sender's value over the page, not as a field of theirs.
    tab = Tab(browser, viewport, reduced_motion="reduce", **options)
    tab.page.goto(link(live_server, "client"))
    tab.page.wait_for_selector("#signing[data-state=ready]")
    shown = tab.page.locator('.sg-field.is-prefilled[data-key="agreement/fee"]')
    expect(shown).to_have_text("1200 EUR")
    shown.scroll_into_view_if_needed()
    tab.page.screenshot(path=str(SHOTS / f"allow-updates-first-signer-{size}.png"))
    assert axe_violations(tab.page) == []
    tab.close()
    client_signs()

    tab = Tab(browser, viewport, reduced_motion="reduce", **options)
    tab.page.goto(link(live_server, "provider"))
    page = tab.page
    page.wait_for_selector("#signing[data-state=ready]")
    page.click('.sg-fieldlist-item:has-text("Text")')
    expect(page.locator("#sg-value")).to_have_value("1200 EUR")
    expect(page.locator("#sg-value-help")).to_have_text(
        "Filled in by the sender. You may change it before you sign."
    )
    page.fill("#sg-value", "1250 EUR")
    expect(page.locator('.sg-field[data-key="agreement/fee"]')).to_have_text("1250 EUR")
    page.screenshot(path=str(SHOTS / f"allow-updates-changed-{size}.png"))
    assert axe_violations(page) == []
    page.click('.sg-fieldlist-item:has-text("Signature")')
    page.click("#sg-adopt-open")
    page.click("#sg-adopt-ok")
    page.click("#sg-finish")
    page.wait_for_selector("#signing[data-state=done]")
    tab.close()

    assert Signer.objects.get(alias_id="provider").status == "completed"
    entry = AuditEvent.objects.get(action="signerUpdatedValue")
    assert (entry.detail["before"], entry.detail["after"]) == ("1200 EUR", "1250 EUR")
    assert fee_on_page_one(packet["eid"]) == "1250 EUR"
