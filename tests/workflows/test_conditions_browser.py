"""Conditional fields in a real browser (Chromium via Playwright): form.js hides a field whose
showWhen field has no value, does not require it, and shows it (required) once that field has
one, as the server's rules do; its ``hasValue`` agrees with ``rules.has_value``.
Screenshots go to test-artifacts/workflows/conditions-*-{desktop,phone}.png."""

from __future__ import annotations

from typing import Any

import pytest

from tests.workflows.test_conditions import FIELDS
from tests.workflows.test_webform_browser import DESKTOP, form_tab, public_base, shoot  # noqa: F401
from workflows.definitions.versions import workflow_import
from workflows.engine.rules import has_value
from workflows.models import WebformSubmission

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

VALUES: list[Any] = [None, "", "  ", False, True, 0, "x", {"num": "", "region": "US"},
                     {"firstName": "A"}]  # fmt: skip


def test_a_field_shows_and_is_required_only_when_its_condition_holds(
    browser, public_base, organization  # noqa: F811
) -> None:  # fmt: skip
    workflow_import(
        organization=organization,
        data={
            "slug": "pets",
            "name": "Pets",
            "webforms": [
                {
                    "slug": "you",
                    "name": "You",
                    "pages": [
                        {"title": "You", "fields": FIELDS},
                        {"title": "More", "fields": [
                            {"key": "notes", "type": "longText", "label": "Notes"}]},
                    ],
                }
            ],
        },
        publish=True,
    )  # fmt: skip
    tab = form_tab(browser, DESKTOP, f"{public_base}/form/acme/pets")
    page = tab.page
    in_browser = page.evaluate(
        """async (values) => {
          const form = await import("/static/workflows/form.js");
          return values.map((v) => form.hasValue(v));
        }""",
        VALUES,
    )
    assert in_browser == [has_value(v) for v in VALUES]
    assert page.is_hidden(".wf-field[data-key=petName]")
    assert page.is_hidden(".wf-field[data-key=petAge]")

    # Ticked: the pet's name shows and is required; its age shows once the name is given.
    page.fill("[name=name]", "Ada")
    page.check("[name=pets]")
    assert page.is_visible(".wf-field[data-key=petName]")
    assert page.is_hidden(".wf-field[data-key=petAge]")
    page.click("#wf-next")
    page.wait_for_selector("#wf-summary:not([hidden])")
    assert page.get_attribute("[name=petName]", "aria-invalid") == "true"
    page.fill("[name=petName]", "Rex")
    assert page.is_visible(".wf-field[data-key=petAge]")
    shoot(tab, "conditions-shown")

    # Unticked: both hide again, Next is not blocked, and the server drops what they held.
    page.uncheck("[name=pets]")
    assert page.is_hidden(".wf-field[data-key=petName]")
    assert page.is_hidden(".wf-field[data-key=petAge]")
    shoot(tab, "conditions-hidden")
    page.click("#wf-next")
    page.wait_for_selector("text=Step 2 of 2")
    assert WebformSubmission.objects.get().payload == {"name": "Ada", "pets": False}
    tab.close()
