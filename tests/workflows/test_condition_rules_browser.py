"""The browser's ``conditionHolds`` (static/workflows/checks.js) against the server's
conditions (workflows.engine.conditions), in Chromium: the same table, the same answers, each
value read as the public page reads it (a group's field as one value an entry)."""

from __future__ import annotations

import json

import pytest

from tests.browser import Tab
from tests.workflows.test_condition_rules import CASES, VALUES
from tests.workflows.test_webform_browser import DESKTOP, public_base  # noqa: F401
from workflows.engine.conditions import parse_condition
from workflows.services import workflow_import

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
    tab = Tab(browser, DESKTOP)
    tab.page.goto(f"{public_base}/form/acme/w")
    tab.page.wait_for_selector("#wf-form[data-state=ready]")
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
