"""The builder's rule on a field with options (a radio group): "is" and "is not" pick one of
the field's options instead of free text ("Yes" saved where the value is "yes" never held), and
a value no option has, kept from before, is shown as such and refused by the save beside the
condition. Screenshots, desktop and phone, go to test-artifacts/workflows/."""

from __future__ import annotations

import json
from typing import Any

import pytest

from accounts.models import Organization
from tests.axe import axe_violations
from tests.workflows.test_builder_browser import SHOTS, open_builder, tab_to, wait_saved
from tests.workflows.test_builder_browser import page as page  # noqa: F401 - the fixture
from workflows.definitions.versions import workflow_import
from workflows.models import Webform

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def pets_webform(organization: Organization) -> Webform:
    workflow, _created = workflow_import(
        organization=organization,
        data={"slug": "lease", "name": "Lease", "webforms": [{"slug": "you", "name": "You",
              "pages": [
            {"title": "You", "fields": [
                {"key": "pets", "type": "radioGroup", "label": "Pets",
                 "options": [{"value": "yes", "label": "Yes"}, {"value": "no", "label": "No"}]},
                {"key": "rent", "type": "dollar", "label": "Rent"}]},
            {"title": "More", "fields": [
                {"key": "petName", "type": "shortText", "label": "Pet's name"}]}]}]},
    )  # fmt: skip
    return workflow.webforms.get()


def value_choices(page: Any, rule: int) -> list[str]:
    return page.eval_on_selector_all(
        f"select[data-rule='{rule}'][data-part=value] option", "os => os.map(o => o.textContent)"
    )


@pytest.mark.parametrize(("width", "height"), [(1366, 900), (390, 844)])
def test_is_on_a_radio_group_offers_its_options(
    page: Any, live_server: Any, organization: Organization, width: int, height: int
) -> None:
    page.set_viewport_size({"width": width, "height": height})
    webform = pets_webform(organization)
    open_builder(page, live_server, organization, webform)
    page.click(".wfb-field[data-key=petName] [data-role=item]")

    tab_to(page, "[data-path=showWhen]")
    page.keyboard.type("Pets (")
    tab_to(page, "[data-rule='1'][data-part=test]")
    page.select_option("[data-rule='1'][data-part=test]", "equals")
    assert page.evaluate("document.activeElement.dataset.part") == "test"
    value = page.locator("[data-rule='1'][data-part=value]")
    assert value.evaluate("el => el.tagName") == "SELECT"
    assert value_choices(page, 1) == ["Yes (yes)", "No (no)"]
    assert value.input_value() == "yes"
    page.select_option("[data-rule='1'][data-part=value]", "no")
    page.screenshot(path=str(SHOTS / f"builder-condition-options-{width}.png"), full_page=True)
    assert axe_violations(page, best_practice=True) == []
    page.keyboard.press("Control+S")
    wait_saved(page)
    assert json.loads(webform.fields.get(key="petName").show_when) == {
        "field": "pets",
        "equals": "no",
    }

    # A number field's rule stays typed text.
    page.select_option("[data-path=showWhen]", "rent")
    page.select_option("[data-rule='1'][data-part=test]", "gte")
    assert page.locator("[data-rule='1'][data-part=value]").evaluate("el => el.type") == "text"


def test_a_value_no_option_has_is_shown_as_such_and_the_save_refuses_it(
    page: Any, live_server: Any, organization: Organization
) -> None:
    webform = pets_webform(organization)
    # Kept before values were checked: the page never showed ("Yes" is not "yes").
    webform.fields.filter(key="petName").update(show_when='{"field":"pets","equals":"Yes"}')
    open_builder(page, live_server, organization, webform)
    page.click(".wfb-field[data-key=petName] [data-role=item]")

    assert value_choices(page, 1) == ["Yes (not an option)", "Yes (yes)", "No (no)"]
    page.fill("[data-path=label]", "Name of the pet")
    page.keyboard.press("Control+S")
    page.wait_for_selector("#wfb-status[data-status=error]")
    page.click(".wfb-field[data-key=petName] [data-role=item]")
    error = page.locator(".wfb-setting.has-error .wfb-error")
    assert error.inner_text() == (
        "No option of 'pets' has the value 'Yes'; its values: 'yes', 'no'."
    )
    page.screenshot(path=str(SHOTS / "builder-condition-not-an-option-1366.png"), full_page=True)
    assert axe_violations(page, best_practice=True) == []

    page.select_option("[data-rule='1'][data-part=value]", "yes")
    page.keyboard.press("Control+S")
    wait_saved(page)
    assert json.loads(webform.fields.get(key="petName").show_when) == {
        "field": "pets",
        "equals": "yes",
    }
