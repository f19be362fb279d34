"""The "Edit fields & style" page in a real browser (headless Chromium, 1400 × 900, the admin's
sidebar open): no horizontal scroll, no JSON input, every input labelled, a "More settings"
disclosure edited and saved. Screenshots go to test-artifacts/admin/ to look at."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import User
from templates_app import services
from templates_app.models import PdfTemplate
from tests.templates_app.conftest import ARTIFACTS
from tests.templates_app.test_admin_product_browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = ARTIFACTS / "admin"

# Every input a person fills in has a name a screen reader can read out.
UNLABELLED = """() => [...document.querySelectorAll(
    '#content-main form input:not([type=hidden]):not([type=submit]), '
    + '#content-main form select, #content-main form textarea')]
  .filter((el) => !el.labels.length && !el.getAttribute('aria-label'))
  .map((el) => el.name)"""


def scroll_width(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def test_the_fields_page_fits_1400_px_and_saves_a_more_setting(
    page, live_server, member: User, fw9_template: PdfTemplate
) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    name = services.working_version(fw9_template).spec["fields"][0]["name"]
    log_in(page, live_server, member)

    url = reverse("admin:templates_app_pdftemplate_fields", args=[fw9_template.pk])
    page.goto(f"{live_server.url}{url}?page=0")

    assert page.locator("#nav-sidebar").is_visible()
    assert scroll_width(page) <= 1400
    assert page.locator("textarea[name*=extra], input[name*=extra]").count() == 0
    assert page.evaluate(UNLABELLED) == []
    page.screenshot(path=str(SHOTS / "fields-page.png"), full_page=True)

    first = page.locator("tbody.field[data-field-id=f1]")
    details = first.locator("details.more-settings")
    assert details.get_attribute("open") is None
    # "More settings" start closed (a page of many fields stays short); the summary says what
    # is set in them, here a character-box field's count.
    comb = page.locator("tbody.field[data-field-id=f18] details")
    assert comb.get_attribute("open") is None
    assert "boxes or lines 3" in comb.locator("summary").inner_text()
    assert page.locator("tbody.field[data-field-id=f18] input[name$='-boxes']").input_value() == "3"

    first.locator("summary").click()
    assert details.get_attribute("open") == ""
    first.get_by_label("Max length").fill("40")
    first.get_by_label("Text rotation").select_option("90")
    first.get_by_label("Shrink text to fit").check()
    first.get_by_label("Font weight").select_option("bold")
    assert scroll_width(page) <= 1400
    first.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "fields-page-more.png"))

    page.locator("input[type=submit][value=Save]").click()
    page.wait_for_selector(".messagelist .success")

    field = next(
        f for f in services.working_version(fw9_template).spec["fields"] if f["id"] == "f1"
    )
    assert (field["maxLength"], field["rotation"], field["autoSize"]) == (40, 90, True)
    assert field["style"]["fontWeight"] == "bold"
    assert field["name"] == name
    # Shown as saved: the summary names the values set.
    first = page.locator("tbody.field[data-field-id=f1]")
    summary = first.locator("details.more-settings summary").inner_text()
    assert "max length 40" in summary
    assert "shrink text to fit" in summary
    assert scroll_width(page) <= 1400

    # A value the validator refuses: shown on its row's input, nothing saved.
    before = services.working_version(fw9_template).spec
    boxes = page.locator("tbody.field[data-field-id=f18]")
    boxes.locator("summary").click()
    boxes.get_by_label("Max length").fill("5")
    page.locator("input[type=submit][value=Save]").click()
    page.wait_for_selector(".messagelist .error")
    boxes = page.locator("tbody.field[data-field-id=f18]")
    assert "has-error" in boxes.get_attribute("class")
    assert (
        "Box count mismatch: 3 boxes for maxLength 5." in boxes.locator(".errorlist").inner_text()
    )
    assert page.locator("tbody.field.has-error").count() == 1
    # The row with the error has its settings open.
    assert boxes.locator("details.more-settings").get_attribute("open") == ""
    assert services.working_version(fw9_template).spec == before
    assert scroll_width(page) <= 1400
    boxes.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "fields-page-error.png"))
