"""The workflow admin in a real browser: the workflow's page leads to each webform's builder,
whose live preview checks a page as people's are checked; the mapping page offers each alias
the fields that can fill it. (The builder itself: test_builder_browser.py.) Screenshots go to
test-artifacts/workflows/."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from accounts.models import Organization
from tests.browser import admin_log_in, watched_tab
from tests.staff import staff_member
from tests.templates_app.conftest import ARTIFACTS, PASSWORD
from workflows.demo import demo_workflow_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = ARTIFACTS / "workflows"


@pytest.fixture
def page(browser: Any, live_server: Any, settings: Any) -> Iterator[Any]:
    settings.PUBLIC_BASE_URL = live_server.url
    with watched_tab(browser, width=1440, height=1000) as tab:
        yield tab


def log_in(page: Any, live_server: Any, organization: Organization) -> None:
    staff_member(organization, "builder", "admin", ["workflows", "templates_app"], PASSWORD)
    admin_log_in(page, live_server, "builder", PASSWORD)


def test_the_builders_preview_checks_a_page_and_the_mapping_offers_compatible_fields(
    page: Any, live_server: Any, organization: Organization, demo_template: Any
) -> None:
    workflow = demo_workflow_create(organization=organization, template=demo_template)
    webform = workflow.webforms.get(slug="order")
    log_in(page, live_server, organization)
    page.goto(f"{live_server.url}/admin/workflows/workflow/{workflow.pk}/change/")
    page.wait_for_selector("#webforms-group .wf-handle")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "admin-01-workflow.png"), full_page=True)

    # The webform's builder, from its row; its preview draws the page as people see it.
    page.click(f"#webforms-group a[href$='/webform/{webform.pk}/builder/']")
    page.wait_for_selector("#wfb[data-state=ready]")
    page.wait_for_selector("iframe.wfb-frame:not([data-spare])[title^='Preview of page 1:']")
    preview = page.frame_locator("iframe.wfb-frame:not([data-spare])")
    preview.locator("#wf-form[data-state=ready]").wait_for()
    labels = preview.locator(".wf-field").evaluate_all("boxes => boxes.map(b => b.dataset.key)")
    assert labels == ["amount", "quantity", "discount", "colour", "comments", "agree"]
    # The preview checks a page on the server too (the admin's CSRF check included).
    preview.locator("[name=amount]").fill("12")
    preview.locator("[name=agree]").check()
    preview.locator("#wf-next").click()
    preview.locator("#wf-form-error").wait_for()
    assert "Every field of this page passes its checks" in (
        preview.locator("#wf-form-error").inner_text()
    )
    assert preview.locator("[name=amount]").input_value() == "12"
    page.screenshot(path=str(SHOTS / "admin-03-live-preview.png"), full_page=True)

    # The mapping page of the document: a select per template field, with compatible fields.
    document = workflow.documents.get()
    page.goto(
        f"{live_server.url}/admin/workflows/workflow/{workflow.pk}/documents/{document.pk}/mapping/"
    )
    options = page.eval_on_selector_all(
        "select", "selects => selects.map(s => [s.closest('tr').querySelector('th label').innerText, "
        "Array.from(s.options).map(o => o.text)])",
    )  # fmt: skip
    by_alias = {label.strip(): choices for label, choices in options}
    assert by_alias["Email"] == ["— not filled —", "Email (email, email)"]
    assert "Favourite colour (colour, radioGroup)" in by_alias["Favourite colour"]
    page.screenshot(path=str(SHOTS / "admin-04-mapping.png"), full_page=True)
