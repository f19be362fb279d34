"""The same rules in the browser: every case of test_rules.CASES is checked by form.js, in
Chromium, on a webform page that has those fields, and gives the server's message exactly."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import Organization
from tests.workflows.test_rules import CASES, FIELDS, message
from workflows.definitions.versions import workflow_import

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_form_js_gives_the_servers_message_for_every_case(
    browser: Any, live_server: Any, organization: Organization
) -> None:
    workflow_import(
        organization=organization,
        data={
            "slug": "rules",
            "name": "Rules",
            "webforms": [
                {
                    "slug": "all",
                    "name": "All",
                    "pages": [{"title": "All", "fields": [f.to_json() for f in FIELDS.values()]}],
                }
            ],
        },
        publish=True,
    )
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{live_server.url}/form/acme/rules")
    page.wait_for_selector("#wf-form[data-state=ready]")

    in_browser = page.evaluate(
        """async (cases) => {
          const form = await import("/static/workflows/form.js");
          const rules = JSON.parse(document.getElementById("wf-rules").textContent);
          const byKey = Object.fromEntries(rules.fields.map((f) => [f.key, f]));
          return cases.map(([key, raw]) => form.check(byKey[key], raw));
        }""",
        [[key, raw] for key, raw, _ in CASES],
    )
    context.close()

    on_server = [message(FIELDS[key], raw) for key, raw, _ in CASES]
    differences = [
        (key, raw, server, browser_says)
        for (key, raw, _), server, browser_says in zip(CASES, on_server, in_browser, strict=True)
        if server != browser_says
    ]
    assert differences == []
    assert on_server == [expected for _, _, expected in CASES]
