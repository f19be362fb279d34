"""The organization's admin page in a real browser (headless Chromium, 1400 px wide, and a phone
390 px wide): an owner names a key, presses "Create development key", copies the key shown once,
and the key works on the API. Screenshots go to test-artifacts/admin/ to be looked at."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import ApiKey, Membership, Organization, User
from accounts.services import api_key_create
from tests.browser import ARTIFACTS, acme_key_status, admin_log_in
from tests.staff import staff_member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = ARTIFACTS / "admin"
PASSWORD = "pw-key-button-123456789"


@pytest.fixture
def owner(organization: Organization) -> User:
    return staff_member(organization, "acme-owner", Membership.Role.OWNER, ["accounts"], PASSWORD)


def log_in(tab, live_server, user: User) -> None:
    admin_log_in(tab, live_server, user.username, PASSWORD)


def no_sideways_scroll(page) -> bool:
    return page.evaluate(
        "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )


def test_an_owner_creates_a_key_with_the_button_and_copies_it(
    page, live_server, organization: Organization, owner: User
) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    api_key_create(organization=organization, kind=ApiKey.Kind.PRODUCTION, name="billing service")
    log_in(page, live_server, owner)
    change_url = live_server.url + reverse(
        "admin:accounts_organization_change", args=[organization.pk]
    )

    page.goto(change_url)
    section = page.locator("#api-keys")
    section.scroll_into_view_if_needed()
    assert section.locator("tbody tr").count() == 1
    page.get_by_label("Name of a new key").fill("reporting job")
    page.screenshot(path=str(SHOTS / "org-keys.png"), full_page=True)

    with page.expect_navigation():
        page.get_by_role("button", name="Create development key").click()

    shown = page.locator("#new-key")
    raw_key = shown.text_content().strip()
    assert raw_key.startswith("dev_")
    assert page.content().count(raw_key) == 1
    assert raw_key not in page.url
    assert page.get_by_text("stored only as a hash").is_visible()
    key = ApiKey.objects.get(name="reporting job")
    assert (key.kind, key.organization, key.prefix) == ("development", organization, raw_key[:10])
    assert acme_key_status(live_server.url, raw_key) == 200

    page.click("#copy-key")
    page.wait_for_selector("#copy-key:text('Copied')")
    assert page.evaluate("navigator.clipboard.readText()") == raw_key
    assert no_sideways_scroll(page)
    page.screenshot(path=str(SHOTS / "org-key-created.png"), full_page=True)

    # On a phone the long key wraps inside the page; nothing scrolls sideways.
    page.set_viewport_size({"width": 390, "height": 844})
    box = shown.bounding_box()
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= 390
    assert no_sideways_scroll(page)
    page.screenshot(path=str(SHOTS / "org-key-created-phone.png"), full_page=True)
    page.emulate_media(color_scheme="dark")
    page.wait_for_timeout(500)  # the admin's links fade to their new colour
    page.screenshot(path=str(SHOTS / "org-key-created-phone-dark.png"), full_page=True)
    page.emulate_media(color_scheme="light")

    # Back on the organization's page the key is listed by its prefix, and shown no more.
    page.set_viewport_size({"width": 1400, "height": 900})
    page.get_by_role("link", name=f"Back to {organization}").click()
    page.wait_for_url(change_url + "#api-keys")
    assert page.locator("#api-keys tbody tr").count() == 2
    assert page.locator("#api-keys", has_text=raw_key[:10]).count() == 1
    assert raw_key not in page.content()


def test_enter_in_the_name_field_makes_a_development_key(
    page, live_server, organization: Organization, owner: User
) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    api_key_create(organization=organization, kind=ApiKey.Kind.PRODUCTION, name="billing service")
    log_in(page, live_server, owner)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(
        live_server.url + reverse("admin:accounts_organization_change", args=[organization.pk])
    )
    page.locator("#api-keys").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "org-keys-phone.png"), full_page=True)
    page.emulate_media(color_scheme="dark")
    page.wait_for_timeout(500)
    page.locator("#api-keys").screenshot(path=str(SHOTS / "org-keys-phone-dark.png"))
    page.emulate_media(color_scheme="light")

    with page.expect_navigation():
        page.get_by_label("Name of a new key").press("Enter")

    assert page.locator("#new-key").text_content().strip().startswith("dev_")
    assert ApiKey.objects.get(kind="development").name == "created by acme-owner"
    # The organization itself was not saved by that form.
    assert Organization.objects.get().name == "Acme Inc."
