"""The step line of a webform page follows the pages its answers show, live (Chromium via
Playwright): ticking the box that shows the Pets page makes it "Step 1 of 2" with Next, as the
server counts the steps once the page is sent; unticking brings back "Step 1 of 1" and Finish."""

from __future__ import annotations

import pytest

from tests.axe import axe_violations
from tests.workflows.test_webform_browser import DESKTOP, SHOTS, form_tab, public_base  # noqa: F401
from workflows.definitions.versions import workflow_import

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def pets_workflow(organization, *, home: bool = True) -> None:
    """You (a box that shows the Pets page), Pets; and a Home webform after them."""
    workflow_import(
        organization=organization,
        data={
            "slug": "tenants",
            "name": "Tenants",
            "webforms": [
                {
                    "slug": "you",
                    "name": "You",
                    "pages": [
                        {"title": "You", "fields": [
                            {"key": "name", "type": "shortText", "label": "Name"},
                            {"key": "hasPets", "type": "checkbox", "label": "I have pets"},
                        ]},
                        {"title": "Pets", "showWhen": {"field": "hasPets", "hasValue": True},
                         "fields": [{"key": "petName", "type": "shortText", "label": "Pet"}]},
                    ],
                },
                *([{
                    "slug": "home",
                    "name": "Home",
                    "pages": [{"title": "Home", "fields": [
                        {"key": "rent", "type": "shortText", "label": "Rent"}]}],
                }] if home else []),
            ],
        },
        publish=True,
    )  # fmt: skip


def test_the_step_count_follows_the_pages_shown_as_the_box_is_ticked(
    browser, public_base, organization  # noqa: F811
) -> None:  # fmt: skip
    pets_workflow(organization)
    tab = form_tab(browser, DESKTOP, f"{public_base}/form/acme/tenants")
    page = tab.page
    assert page.text_content("#wf-step") == "Step 1 of 2: You"
    assert page.get_attribute("#wf-bar", "max") == "2"

    page.check("[name=hasPets]")
    assert page.text_content("#wf-step") == "Step 1 of 3: You"
    assert page.get_attribute("#wf-bar", "max") == "3"
    assert page.text_content("#wf-next") == "Next"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "step-count-pets-ticked-desktop.png"))
    assert axe_violations(page) == []

    page.uncheck("[name=hasPets]")
    assert page.text_content("#wf-step") == "Step 1 of 2: You"

    # What the server counts once the page is sent agrees with what the line said.
    page.check("[name=hasPets]")
    page.fill("[name=name]", "Ada")
    page.click("#wf-next")
    page.wait_for_selector("text=Step 2 of 3: Pets")
    page.wait_for_selector("#wf-form[data-state=ready]")
    assert page.text_content("#wf-step") == "Step 2 of 3: Pets"
    tab.close()


def test_one_webform_says_step_1_of_1_and_finish_until_the_box_shows_the_pets_page(
    browser, public_base, organization  # noqa: F811
) -> None:  # fmt: skip
    pets_workflow(organization, home=False)
    tab = form_tab(browser, DESKTOP, f"{public_base}/form/acme/tenants")
    page = tab.page
    assert (page.text_content("#wf-step"), page.text_content("#wf-next")) == (
        "Step 1 of 1: You",
        "Finish",
    )

    page.check("[name=hasPets]")

    assert (page.text_content("#wf-step"), page.text_content("#wf-next")) == (
        "Step 1 of 2: You",
        "Next",
    )
    tab.close()
