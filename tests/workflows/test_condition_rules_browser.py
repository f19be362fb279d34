"""The browser's ``conditionHolds`` (static/workflows/checks.js) against the server's
conditions (workflows.engine.conditions), in Chromium: the same table, the same answers, each
value read as the public page reads it (a group's field as one value an entry)."""

from __future__ import annotations

import json

import pytest

from tests.workflows.test_condition_rules import CASES, VALUES
from tests.workflows.test_webform_browser import DESKTOP, form_tab, public_base  # noqa: F401
from workflows.definitions.versions import workflow_import
from workflows.engine.conditions import parse_condition

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_browser_reads_every_condition_as_the_server_does(
    browser, public_base, organization  # noqa: F811
) -> None:  # fmt: skip
    workflow_import(
        organization=organization,
        data={"slug": "w", "name": "W", "webforms": [{"slug": "f", "name": "F", "pages": [
            {"title": "P", "fields": [{"key": "a", "type": "shortText", "label": "A"}]}]}]},
        publish=True,
    )  # fmt: skip
    tab = form_tab(browser, DESKTOP, f"{public_base}/form/acme/w")
    values = json.loads(json.dumps(VALUES, default=float))
    in_browser = tab.page.evaluate(
        """async ([cases, values]) => {
          const checks = await import("/static/workflows/checks.js");
          const read = (key) => {
            const [group, field] = key.split(".");
            if (!field) return values[key];
            return Array.isArray(values[group]) ? values[group].map((e) => e[field]) : undefined;
          };
          return cases.map((condition) => checks.conditionHolds(condition, read));
        }""",
        [[condition for condition, _ in CASES], values],
    )
    on_server = [parse_condition(condition).holds(VALUES) for condition, _ in CASES]

    assert in_browser == on_server
    assert on_server == [expected for _, expected in CASES]
    tab.close()


def test_the_public_page_shows_fields_and_pages_by_their_rules_live(
    browser, public_base, organization  # noqa: F811
) -> None:  # fmt: skip
    workflow_import(
        organization=organization,
        data={"slug": "lease", "name": "Lease", "webforms": [{"slug": "you", "name": "You",
              "pages": [
            {"title": "You", "fields": [
                {"key": "kind", "type": "radioGroup", "label": "Kind",
                 "options": [{"value": "flat", "label": "Flat"},
                             {"value": "house", "label": "House"}]},
                {"key": "rent", "type": "dollar", "label": "Rent"},
                {"key": "garden", "type": "shortText", "label": "Garden", "required": True,
                 "showWhen": {"all": [{"field": "kind", "equals": "house"},
                                      {"field": "rent", "lt": 5000}]}}]},
            {"title": "Deposit", "showWhen": {"field": "rent", "gte": 2000}, "fields": [
                {"key": "deposit", "type": "dollar", "label": "Deposit"}]},
        ]}]},
        publish=True,
    )  # fmt: skip
    tab = form_tab(browser, DESKTOP, f"{public_base}/form/acme/lease")
    page = tab.page
    garden = ".wf-field[data-key=garden]"
    assert page.is_hidden(garden)
    assert page.text_content("#wf-step") == "Step 1 of 1: You"

    page.check("input[name=kind][value=house]")
    assert page.is_hidden(garden)  # no rent yet: "less than 5000" does not hold
    page.fill("[name=rent]", "1,200")
    assert page.is_visible(garden)
    page.fill("[name=rent]", "2500")
    assert page.is_visible(garden)
    assert (page.text_content("#wf-step"), page.text_content("#wf-next")) == (
        "Step 1 of 2: You",
        "Next",
    )
    page.fill("[name=rent]", "6000")
    assert page.is_hidden(garden)
    page.check("input[name=kind][value=flat]")
    page.fill("[name=rent]", "900")
    assert page.is_hidden(garden)
    assert page.text_content("#wf-step") == "Step 1 of 1: You"

    # The server agrees: the house at 2500 needs a garden, then goes to the Deposit page.
    page.check("input[name=kind][value=house]")
    page.fill("[name=rent]", "2500")
    page.click("#wf-next")
    page.wait_for_selector("#wf-summary:not([hidden])")
    page.fill("[name=garden]", "Small")
    page.click("#wf-next")
    page.wait_for_selector("text=Step 2 of 2: Deposit")
    tab.close()
