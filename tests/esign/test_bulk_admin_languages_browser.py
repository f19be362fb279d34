"""The bulk send's upload page (its columns and sample file) and its preview (each problem by
row and column) in Arabic, right to left, and in Japanese, at 1366 px and on a phone: the
words are the language's, the page fits its width, axe (best practice too) finds nothing.
Screenshots in test-artifacts/esign/bulk-languages-*.png."""

from __future__ import annotations

import pytest
from django.utils import translation

from accounts.models import Organization, User
from tests.axe import axe_violations
from tests.browser import Tab, admin_log_in
from tests.esign.test_bulk_admin_browser import (
    DESKTOP,
    PASSWORD,
    PHONE,
    rows_csv,
    signable_template,
    staff,  # noqa: F401 - the fixture
)
from tests.esign.test_signing_browser import SHOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def check(tab: Tab, name: str) -> None:
    for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        tab.page.set_viewport_size(viewport)
        assert axe_violations(tab.page, best_practice=True) == []
        width = viewport["width"]
        assert tab.page.evaluate("document.documentElement.scrollWidth") <= width
        SHOTS.mkdir(parents=True, exist_ok=True)
        tab.page.screenshot(path=str(SHOTS / f"bulk-languages-{name}-{size}.png"), full_page=True)
    tab.page.set_viewport_size(DESKTOP)


@pytest.mark.parametrize(("language", "direction"), [("ar", "rtl"), ("ja", "ltr")])
def test_the_columns_and_the_problems_in_arabic_and_japanese(
    browser,
    live_server,
    staff: User,  # noqa: F811
    organization: Organization,
    language: str,
    direction: str,
) -> None:
    template = signable_template(organization)
    with translation.override(language):
        words = {
            "columns": translation.gettext("The file's columns"),
            "sample": translation.gettext("Download a sample CSV for %(title)s")
            % {"title": template.title},
            "row 3": translation.gettext("Row %(number)s, column %(column)s")
            % {"number": 3, "column": "email"},
        }
    assert words["columns"] != "The file's columns"
    tab = Tab(browser, DESKTOP, locale=language)
    admin_log_in(tab.page, live_server, staff.username, PASSWORD)
    tab.page.goto(live_server.url + "/admin/esign/bulkbatch/add/")
    tab.page.wait_for_load_state("load")
    assert tab.page.evaluate("document.documentElement.dir") == direction
    tab.page.select_option("#id_template", label=template.title)
    assert tab.page.inner_text(".bulk-columns h2") == words["columns"]
    columns = tab.page.locator(".bulk-template-columns:visible")
    assert columns.get_by_role("link", name=words["sample"]).count() == 1
    tab.page.set_input_files(
        "#id_file", files=[{"name": "rows.csv", "mimeType": "text/csv", "buffer": rows_csv()}]
    )
    check(tab, f"upload-{language}")

    tab.page.click("#bulkbatch_form input[type=submit]")
    tab.page.wait_for_selector(".bulk-problem-list")
    assert words["row 3"] in tab.page.inner_text(".bulk-problem-list")
    # The API's English message, isolated from the page's direction (its full stop stays put).
    assert tab.page.locator(".bulk-problem-list li bdi").first.inner_text() == (
        "Must be an email address."
    )
    # A row's values keep their own direction: a formula's = stays at its start.
    assert (
        tab.page.locator("table.bulk-rows tbody tr:nth-child(5) td").first.get_attribute("dir")
        == "auto"
    )
    check(tab, f"preview-{language}")
    tab.close()
