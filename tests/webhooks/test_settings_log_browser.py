"""The delivery log on a phone (390 px) and a desktop, in a real browser: a page of 20 rows,
nothing clipped, badges that stay badges, no Resend where an event could go nowhere, truthful
labels, the filter and the pages usable, and no axe-core violation. Screenshots go to
test-artifacts/settings-log-*.png."""

from __future__ import annotations

import pytest

from accounts.models import Organization, User
from tests.axe import axe_violations
from tests.browser import settings_log_in
from tests.templates_app.conftest import ARTIFACTS
from webhooks.models import WebhookDelivery
from webhooks.services import event_emit, webhook_test

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-settings-123456789"
# Every cell's content that is wider than its box (clipped), and every badge taller than a line.
CLIPPED = """() => [...document.querySelectorAll('#deliveries td > .cell')]
  .filter((cell) => cell.offsetParent !== null && cell.scrollWidth > cell.clientWidth + 1)
  .map((cell) => cell.closest('td').dataset.label)"""
BADGE_HEIGHTS = """() => [...document.querySelectorAll('#deliveries .badge')]
  .map((badge) => badge.getBoundingClientRect().height)"""


def test_the_log_fits_a_phone_and_reads_truthfully(
    browser, live_server, organization: Organization, owner: User
) -> None:
    owner.set_password(PASSWORD)
    owner.save()
    for n in range(44):
        event_emit(organization=organization, action="weldCreate", data={"n": n})
    own_url = event_emit(
        organization=organization,
        action="signerComplete",
        data={"signerEid": "s"},
        webhook_url="https://hooks.example.com/a-rather-long-path/that-must-wrap/on-a-phone?x=1",
    )
    WebhookDelivery.objects.filter(event=own_url).update(
        status="failed", last_error="HTTP 503 Service Unavailable", last_status_code=503
    )
    webhook_test(organization=organization, requested_by="olivia (settings page)")
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    for name, viewport in (("phone", {"width": 390, "height": 844}), ("desktop", None)):
        context = browser.new_context(
            viewport=viewport or {"width": 1280, "height": 900}, is_mobile=viewport is not None
        )
        tab = context.new_page()
        tab.set_default_timeout(15_000)
        tab.on("pageerror", lambda error: errors.append(str(error)))
        settings_log_in(tab, live_server, owner.username, PASSWORD)

        log = tab.locator("#deliveries tbody tr")
        assert log.count() == 20
        # Only the event with its own URL could go anywhere: no Resend on the "Not sent" rows.
        resend = tab.locator("#deliveries").get_by_role("button", name="Resend")
        assert resend.count() == 1
        assert (
            tab.locator(f"tr[data-delivery='{own_url.deliveries.get().eid}'] button").count() == 1
        )
        assert tab.locator("#log-no-url").is_visible()
        origin = tab.locator("#deliveries .origin")
        assert origin.all_inner_texts() == ["Test sent by olivia (settings page)"]
        assert tab.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        assert tab.evaluate(CLIPPED) == []
        assert max(tab.evaluate(BADGE_HEIGHTS)) < 26  # one line, not a tall oval
        assert axe_violations(tab) == []
        tab.locator("#log").screenshot(path=str(ARTIFACTS / f"settings-log-{name}.png"))
        if name == "phone":
            height = tab.locator("#log").bounding_box()["height"]
            assert height < 3000, height  # 20 rows, not 4,000 px of them

            tab.select_option("#f-action", "signerComplete")
            tab.get_by_role("button", name="Filter").click()
            tab.wait_for_url("**action=signerComplete**")
            assert log.count() == 1
            assert tab.evaluate(CLIPPED) == []
            assert tab.locator("#deliveries").get_by_role("button", name="Resend").count() == 1
            tab.locator("#log").screenshot(path=str(ARTIFACTS / "settings-log-phone-filtered.png"))

            tab.goto(f"{live_server.url}/settings/acme/#log")
            tab.get_by_role("link", name="Older").click()
            tab.wait_for_url("**page=2**")
            assert "Page 2 of 3" in tab.locator("#log nav").inner_text()
        context.close()
    assert errors == []
