"""The settings page in a real browser (headless Chromium through Playwright, against the live
server): an owner logs in, creates a production key, the key works on the API, the owner revokes
it, and the API refuses it. Screenshots, desktop and phone, go to test-artifacts/."""

from __future__ import annotations

import pytest
from django.utils import timezone

from accounts.models import ApiKey, Organization, User
from tests.axe import axe_violations
from tests.browser import Tab, acme_key_status, settings_log_in
from tests.templates_app.conftest import ARTIFACTS
from webhooks.models import WebhookAttempt, WebhookDelivery
from webhooks.services import event_emit

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-settings-123456789"


def log_entries(organization: Organization) -> None:
    """A delivery not sent (no URL yet) and one that failed twice then arrived."""
    event_emit(organization=organization, action="weldCreate", data={"eid": "w"})
    event = event_emit(
        organization=organization,
        action="signerComplete",
        data={"signerEid": "s"},
        webhook_url="https://hooks.example.com/in",
    )
    delivery = event.deliveries.get()
    now = timezone.now()
    for number, (code, outcome, error) in enumerate(
        [
            (503, "retry", "HTTP 503 Service Unavailable"),
            (None, "retry", "timeout: The server did not answer in time."),
            (200, "delivered", ""),
        ],
        start=1,
    ):
        WebhookAttempt.objects.create(
            delivery=delivery,
            number=number,
            outcome=outcome,
            status_code=code,
            error=error,
            duration_ms=40 * number,
            started_at=now,
            finished_at=now,
            response_excerpt="ok" if code == 200 else "",
        )
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status="delivered", attempt_count=3, last_status_code=200, delivered_at=now
    )


def test_an_owner_creates_a_key_uses_it_and_revokes_it(
    browser, live_server, organization: Organization, owner: User
) -> None:
    owner.set_password(PASSWORD)
    owner.save()
    log_entries(organization)
    # Every script or console error of its pages fails the test when it closes.
    tab = Tab(browser, {"width": 1280, "height": 900})
    page = tab.page

    page.goto(f"{live_server.url}/settings/")
    page.wait_for_url("**/accounts/login/?next=/settings/")
    page.get_by_label("User name").fill("olivia")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/settings/acme/")

    page.get_by_label("Name (what it is for").fill("browser key")
    page.get_by_label("Production").check()
    page.get_by_role("button", name="Create key", exact=True).click()
    new_key = page.locator("#new-key-value")
    new_key.wait_for()
    raw_key = new_key.input_value()
    assert raw_key.startswith("prod_")
    assert page.evaluate("document.activeElement.id") == "new-key-value"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "settings-new-key.png"), full_page=True)

    assert acme_key_status(live_server.url, raw_key) == 200

    key = ApiKey.objects.get(name="browser key")
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(f"{live_server.url}/settings/acme/")
    assert raw_key not in page.content()  # shown once only
    row = page.locator(f"tr[data-key='{key.eid}']")
    row.get_by_role("button", name="Revoke").click()
    page.wait_for_selector(f"tr[data-key='{key.eid}'] .badge.revoked")
    assert "revoked: it no longer works" in page.locator(".messages").inner_text()

    assert acme_key_status(live_server.url, raw_key) == 401
    page.locator("#log details summary").first.click()
    page.locator("#log").screenshot(path=str(ARTIFACTS / "settings-delivery-log.png"))
    key.refresh_from_db()
    assert key.revoked_at is not None

    # The same page on a phone: no horizontal scrolling of the page itself.
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone.add_cookies(tab.context.cookies())
    mobile = phone.new_page()
    mobile.goto(f"{live_server.url}/settings/acme/")
    overflow = mobile.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    mobile.screenshot(path=str(ARTIFACTS / "settings-phone.png"), full_page=True)
    phone.close()
    tab.close()
    assert overflow <= 0


def test_a_refused_webhook_url_is_shown_by_the_url_field_only(
    browser, live_server, organization: Organization, owner: User
) -> None:
    owner.set_password(PASSWORD)
    owner.save()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    settings_log_in(page, live_server, owner.username, PASSWORD)

    field = page.get_by_label("Webhook URL")
    # type=url lets an ftp: URL through, so the refusal shown is the server's.
    field.fill("ftp://hooks.example.com/in")
    page.get_by_role("button", name="Save URL").click()
    page.wait_for_selector("#webhook-url-error")

    assert page.locator("#keys .error").count() == 0
    assert page.locator(".error").all_inner_texts() == ["Enter an http or https URL."]
    assert field.get_attribute("aria-invalid") == "true"
    assert "dict_keys" not in page.content()
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#keys").screenshot(path=str(ARTIFACTS / "settings-refused-url-keys.png"))
    page.locator("#webhook").screenshot(path=str(ARTIFACTS / "settings-refused-url.png"))
    assert axe_violations(page) == []
    context.close()


@pytest.mark.parametrize(("width", "height", "name"), [(1280, 900, "desktop"), (390, 844, "phone")])
def test_a_refused_url_brings_focus_and_view_to_an_error_summary_linking_to_the_field(
    browser, live_server, organization: Organization, owner: User, width, height, name
) -> None:
    """After a refused URL the page comes back at its top: an error summary, focused and in
    view (on a phone too), whose link moves focus to the URL field and shows it."""
    owner.set_password(PASSWORD)
    owner.save()
    context = browser.new_context(
        viewport={"width": width, "height": height}, is_mobile=name == "phone"
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    settings_log_in(page, live_server, owner.username, PASSWORD)

    page.get_by_label("Webhook URL").fill("ftp://hooks.example.com/in")
    page.get_by_role("button", name="Save URL").click()
    page.wait_for_selector("#webhook-url-error")

    assert page.title().startswith("Error: ")
    summary = page.locator("#error-summary")
    assert page.evaluate("document.activeElement.id") == "error-summary"
    assert summary.get_by_role("heading").inner_text() == "There is a problem"
    link = summary.get_by_role("link", name="Enter an http or https URL.")
    assert link.get_attribute("href") == "#webhook-url"
    in_view = "(el) => { const r = el.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }"
    assert summary.evaluate(in_view)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"settings-error-summary-{name}.png"))
    assert axe_violations(page, best_practice=True) == []

    link.click()
    assert page.evaluate("document.activeElement.id") == "webhook-url"
    assert page.locator("#webhook-url").evaluate(in_view)
    assert page.locator("label[for=webhook-url]").evaluate(in_view)
    page.screenshot(path=str(ARTIFACTS / f"settings-error-summary-field-{name}.png"))
    context.close()
