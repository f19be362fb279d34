"""The webform builder in a real browser: a webform built from nothing with the keyboard alone,
fields reordered by keyboard and by dragging, a type changed (its settings with it), the live
preview following the typing, a refused save shown beside its field, a save and a reload, the
public form showing the result, axe finding nothing, and the page fitting 1366 px and a phone.
Screenshots go to test-artifacts/workflows/builder-*.png."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client

from accounts.models import Organization
from tests.axe import axe_violations
from tests.browser import watched_tab
from tests.templates_app.conftest import ARTIFACTS
from tests.workflows.test_admin_browser import log_in
from workflows.definitions.versions import workflow_import, workflow_publish
from workflows.models import Webform, WebformPage, Workflow

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = ARTIFACTS / "workflows"
SHOWN_FRAME = "iframe.wfb-frame:not([data-spare])"


@pytest.fixture
def page(browser: Any, live_server: Any, settings: Any) -> Iterator[Any]:
    settings.PUBLIC_BASE_URL = live_server.url
    with watched_tab(browser, width=1366, height=900, expected=refused_save) as tab:
        yield tab


def refused_save(message: Any) -> bool:
    """The console's note of the save this test has refused (a 400 of the builder's endpoint)."""
    return "status of 400" in message.text and "/builder/definition/" in message.location["url"]


def empty_webform(organization: Organization) -> Webform:
    """A workflow with one webform and its first page, as the workflow's admin page makes it."""
    workflow = Workflow.objects.create(organization=organization, slug="lease", name="Lease")
    webform = Webform.objects.create(workflow=workflow, slug="tenant", name="Tenant")
    WebformPage.objects.create(webform=webform, title="Page 1")
    return webform


def open_builder(page: Any, live_server: Any, organization: Organization, webform: Webform) -> None:
    """The webform's builder, ready, for a staff member of ``organization`` logged in first."""
    log_in(page, live_server, organization)
    page.goto(f"{live_server.url}/admin/workflows/webform/{webform.pk}/builder/")
    page.wait_for_selector("#wfb[data-state=ready]")


def tab_to(page: Any, selector: str, *, limit: int = 80, back: bool = False) -> None:
    """Press Tab (Shift+Tab with ``back``) until the focus is on ``selector``: reached by the
    keyboard, as people do."""
    for _ in range(limit):
        if page.evaluate("s => document.activeElement.matches(s)", selector):
            return
        page.keyboard.press("Shift+Tab" if back else "Tab")
    pytest.fail(f"Tab never reached {selector}")


def outline(page: Any) -> list[list[str]]:
    """The keys of the fields in the list (outside repeating groups), page by page."""
    return page.eval_on_selector_all(
        ".wfb-page", "pages => pages.map(p => [...p.querySelectorAll(':scope > .wfb-fields > "
        ".wfb-field')].map(f => f.dataset.key))",
    )  # fmt: skip


def settings_shown(page: Any) -> list[str]:
    return page.eval_on_selector_all(
        "#wfb-panel-body [data-path]", "inputs => inputs.map(i => i.dataset.path)"
    )


def preview_labels(page: Any, page_number: int = 1) -> list[str]:
    """The keys of the fields the preview shows, once it shows page ``page_number``."""
    page.wait_for_selector(f'{SHOWN_FRAME}[title^="Preview of page {page_number}:"]')
    frame = page.frame_locator(SHOWN_FRAME)
    frame.locator("#wf-form[data-state=ready]").wait_for()
    return frame.locator(".wf-field").evaluate_all("fields => fields.map(f => f.dataset.key)")


def wait_saved(page: Any) -> None:
    page.wait_for_selector("#wfb-status[data-status=saved]")


TYPE_NAMES = {
    "Email": "email",
    "Dollar": "dollar",
    "Radio group": "radioGroup",
    "Short text": "shortText",
    "Date": "date",
}


def choose_type(page: Any, name: str) -> None:
    """Pick a type in the palette by keyboard: Tab to its button, then Enter."""
    tab_to(page, f"#wfb-set-type button[data-type={name}]")
    page.keyboard.press("Enter")
    assert page.get_attribute(f"#wfb-set-type [data-type={name}]", "aria-pressed") == "true"


def add_field(
    page: Any, page_number: int, label: str, type_label: str, *, within: str = ""
) -> None:
    """Add a field to a page (or a group of it) by keyboard, name it and choose its type."""
    tab_to(page, f".wfb-page:nth-child({page_number}){within} > [data-role=add-field]")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.dataset.path") == "label"
    page.keyboard.type(label)
    choose_type(page, TYPE_NAMES[type_label])


def test_a_webform_is_built_from_nothing_by_keyboard_and_published(
    page: Any, live_server: Any, organization: Organization
) -> None:
    webform = empty_webform(organization)
    log_in(page, live_server, organization)
    page.goto(f"{live_server.url}/admin/workflows/workflow/{webform.workflow_id}/change/")
    page.click("text=Build its pages and fields")
    page.wait_for_selector("#wfb[data-state=ready]")
    SHOTS.mkdir(parents=True, exist_ok=True)

    # The builder as it opens: axe finds nothing, and it fits 1366 px.
    assert axe_violations(page) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366

    # Two fields on the first page: the key follows the label; the preview follows the typing.
    add_field(page, 1, "Email address", "Email")
    assert page.input_value("[data-path=key]") == "emailAddress"
    tab_to(page, "[data-path=required]")
    page.keyboard.press("Space")
    add_field(page, 1, "Monthly rent", "Dollar")
    assert page.input_value("[data-path=key]") == "monthlyRent"
    page.wait_for_function(
        "() => document.querySelector('" + SHOWN_FRAME + "').contentDocument"
        ".querySelector('[data-key=monthlyRent] label')?.textContent.includes('Monthly rent')"
    )
    assert preview_labels(page) == ["emailAddress", "monthlyRent"]

    # An amount has a smallest and largest value, no region; a phone the reverse.
    shown = settings_shown(page)
    assert {"validation.min", "validation.max"} <= set(shown)
    assert "baseRegion" not in shown
    tab_to(page, "[data-path='validation.min']")
    page.keyboard.type("5")
    page.click("#wfb-set-type [data-type=phone]")
    shown = settings_shown(page)
    assert "baseRegion" in shown
    assert "validation.min" not in shown
    frame = page.frame_locator(SHOWN_FRAME)
    frame.locator("[data-key=monthlyRent].wf-type-phone").wait_for()
    # Back to an amount: the phone had no smallest value, so there is none to keep.
    page.click("#wfb-set-type [data-type=dollar]")
    frame.locator("[data-key=monthlyRent].wf-type-dollar").wait_for()
    assert page.input_value("[data-path='validation.min']") == ""
    tab_to(page, "[data-path='validation.min']")
    page.keyboard.type("100")

    # A second page, by keyboard: its title is where the focus lands, to type it at once.
    tab_to(page, "[data-role=add-page]")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.dataset.path") == "title"
    page.keyboard.press("Control+A")
    page.keyboard.type("Pets")
    add_field(page, 2, "Pet", "Radio group")
    add_field(page, 2, "Pet's name", "Short text")
    tab_to(page, "[data-path=showWhen]")
    page.keyboard.type("Pet (")
    assert page.input_value("[data-path=showWhen]") == "pet"
    assert outline(page) == [["emailAddress", "monthlyRent"], ["pet", "petsName"]]

    # A repeating group on that page: its fields take no image and no condition of their own.
    tab_to(page, ".wfb-page:nth-child(2) [data-role=add-group]")
    page.keyboard.press("Enter")
    page.keyboard.type("Vehicles")
    assert page.input_value("[data-path=key]") == "vehicles"
    tab_to(page, "[data-path=maxEntries]")
    page.keyboard.type("3")
    add_field(page, 2, "Plate", "Short text", within=" .wfb-group[data-key=vehicles]")
    types = page.eval_on_selector_all(
        "#wfb-set-type [data-type]", "o => o.map(x => x.dataset.type)"
    )
    assert "imageFile" not in types
    assert "shortText" in types
    assert "showWhen" not in settings_shown(page)
    # The page shows only when the rent (on the page before) has a value.
    tab_to(page, ".wfb-page:nth-child(2) .wfb-page-head [data-role=item]", back=True)
    page.keyboard.press("Enter")
    tab_to(page, "[data-path=showWhen]")
    page.keyboard.type("Monthly")
    assert page.input_value("[data-path=showWhen]") == "monthlyRent"

    # Saved with Ctrl+S: refused, the problem shown beside the field's setting.
    page.keyboard.press("Control+S")
    page.wait_for_selector("#wfb-status[data-status=error]")
    assert page.evaluate("document.activeElement.id") == "wfb-problems"
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # the first problem: its field is selected
    error = page.locator(".wfb-setting.has-error .wfb-error")
    assert error.inner_text() == "A radio group needs options."
    assert page.get_attribute("[data-path=options]", "aria-invalid") == "true"
    assert page.input_value("[data-path=label]") == "Pet"
    assert axe_violations(page) == []
    page.screenshot(path=str(SHOTS / "builder-01-refused-1366.png"), full_page=True)
    tab_to(page, "[data-path=options]")
    page.keyboard.type("cat: Cat")
    page.keyboard.press("Enter")
    page.keyboard.type("dog: Dog")
    assert error.count() == 0

    # Reordered by keyboard: Alt+↑ moves the rent before the email.
    tab_to(page, ".wfb-field[data-key=monthlyRent] [data-role=item]", back=True)
    page.keyboard.press("Alt+ArrowUp")
    assert outline(page)[0] == ["monthlyRent", "emailAddress"]
    assert page.evaluate("document.activeElement.closest('.wfb-field').dataset.key") == (
        "monthlyRent"
    )
    page.keyboard.press("Control+S")
    wait_saved(page)
    # The focus stays on the item after the save, as does the selection.
    assert page.evaluate("document.activeElement.closest('.wfb-field').dataset.key") == (
        "monthlyRent"
    )

    group = webform.groups.get()
    assert (group.key, group.label, group.max_entries, group.page.title) == (
        "vehicles", "Vehicles", 3, "Pets",
    )  # fmt: skip
    assert [f.key for f in group.fields.all()] == ["plate"]
    assert group.page.show_when == "monthlyRent"
    fields = list(webform.fields.filter(group=None).order_by("page__position", "position"))
    assert [(f.page.title, f.key, f.type) for f in fields] == [
        ("Page 1", "monthlyRent", "dollar"),
        ("Page 1", "emailAddress", "email"),
        ("Pets", "pet", "radioGroup"),
        ("Pets", "petsName", "shortText"),
    ]
    assert fields[0].min_value == 100
    assert fields[1].required
    assert fields[2].options == [{"value": "cat", "label": "Cat"}, {"value": "dog", "label": "Dog"}]
    assert fields[3].show_when == "pet"

    # Reordered by dragging, across pages: the email goes after the pet's name.
    page.locator(".wfb-field[data-key=emailAddress] .wfb-handle").drag_to(
        page.locator(".wfb-field[data-key=petsName]"), target_position={"x": 20, "y": 30}
    )
    assert outline(page) == [["monthlyRent"], ["pet", "petsName", "emailAddress"]]
    page.click("#wfb-save")
    wait_saved(page)

    # After a reload the list is as saved, with a field selected: axe finds nothing.
    page.reload()
    page.wait_for_selector("#wfb[data-state=ready]")
    assert outline(page) == [["monthlyRent"], ["pet", "petsName", "emailAddress"]]
    page.click(".wfb-field[data-key=petsName] [data-role=item]")
    assert page.input_value("[data-path=label]") == "Pet's name"
    assert preview_labels(page, 2) == ["pet", "petsName", "emailAddress"]
    assert axe_violations(page) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    page.screenshot(path=str(SHOTS / "builder-02-field-selected-1366.png"), full_page=True)

    # The phone: one column, nothing wider than the screen.
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(SHOTS / "builder-03-phone-390.png"), full_page=True)

    # Published, the public form shows the pages as built.
    workflow_publish(workflow=webform.workflow)
    public = Client().get("/form/acme/lease")
    html = public.content.decode()
    assert public.status_code == 200
    assert html.index("Monthly rent") > 0
    assert "Email address" not in html
    page.goto(f"{live_server.url}/form/acme/lease")
    assert page.locator(".wf-field").evaluate_all("f => f.map(x => x.dataset.key)") == [
        "monthlyRent"
    ]


def test_a_repeating_groups_problem_is_shown_on_it_and_its_fields_are_dragged_in_it(
    page: Any, live_server: Any, organization: Organization
) -> None:
    webform = empty_webform(organization)
    open_builder(page, live_server, organization, webform)
    add_field(page, 1, "Name", "Short text")
    tab_to(page, ".wfb-page:nth-child(1) [data-role=add-group]")
    page.keyboard.press("Enter")
    page.keyboard.type("Children")

    # A group without fields is refused: the message is on the group, which is marked.
    page.keyboard.press("Control+S")
    page.wait_for_selector("#wfb-status[data-status=error]")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    assert page.inner_text("#wfb-panel-title") == "Settings of Children"
    assert page.inner_text("#wfb-panel-body .wfb-error") == (
        "A repeating group needs at least one field."
    )
    assert page.locator(".wfb-group[data-key=children].has-problem").count() == 1
    assert axe_violations(page) == []

    add_field(page, 1, "First name", "Short text", within=" .wfb-group[data-key=children]")
    add_field(page, 1, "Birth date", "Date", within=" .wfb-group[data-key=children]")
    group_keys = ".wfb-group[data-key=children] .wfb-field"
    assert page.eval_on_selector_all(group_keys, "f => f.map(x => x.dataset.key)") == [
        "firstName",
        "birthDate",
    ]
    page.locator(f"{group_keys}[data-key=birthDate] .wfb-handle").drag_to(
        page.locator(f"{group_keys}[data-key=firstName]"), target_position={"x": 20, "y": 2}
    )
    assert page.eval_on_selector_all(group_keys, "f => f.map(x => x.dataset.key)") == [
        "birthDate",
        "firstName",
    ]
    page.keyboard.press("Control+S")
    page.wait_for_selector("#wfb-status[data-status=saved]")
    group = webform.groups.get()
    assert [f.key for f in group.fields.order_by("position")] == ["birthDate", "firstName"]
    assert [f.key for f in webform.fields.filter(group=None)] == ["name"]


def test_add_workflow_reaches_the_builder_in_two_pages_and_publishes_there(
    page: Any, live_server: Any, organization: Organization
) -> None:
    log_in(page, live_server, organization)
    loaded: list[str] = []
    # The pages the tab loaded: the builder's preview is a frame whose own loads are navigations
    # too, and under load one may land before the builder is ready.
    page.on(
        "response",
        lambda response: (
            response.request.is_navigation_request()
            and response.frame.parent_frame is None
            and response.status == 200
            and loaded.append(response.url)
        ),
    )
    page.goto(f"{live_server.url}/admin/workflows/workflow/add/")
    # The one organization the user manages is chosen; the address follows the name.
    assert page.input_value("#id_organization") == str(organization.pk)
    page.locator("#id_name").press_sequentially("Lease agreement")
    assert page.input_value("#id_slug") == "lease-agreement"
    page.click("input[name=_save]")
    page.wait_for_selector("#wfb[data-state=ready]")
    webform = Webform.objects.get(workflow__slug="lease-agreement")
    assert loaded == [
        f"{live_server.url}/admin/workflows/workflow/add/",
        f"{live_server.url}/admin/workflows/webform/{webform.pk}/builder/",
    ]

    add_field(page, 1, "Tenant name", "Short text")
    # Publish saves what is not saved yet, then publishes.
    tab_to(page, "#wfb-publish", back=True)
    page.keyboard.press("Enter")
    page.wait_for_selector("#wfb-status:text('Published as version 1')")
    assert webform.workflow.versions.get().number == 1
    assert [f.key for f in webform.fields.all()] == ["tenantName"]
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "builder-04-published-1366.png"))
    assert axe_violations(page) == []


def test_a_condition_of_two_rules_is_built_by_keyboard(
    page: Any, live_server: Any, organization: Organization
) -> None:
    workflow, _created = workflow_import(
        organization=organization,
        data={"slug": "lease", "name": "Lease", "webforms": [{"slug": "you", "name": "You",
              "pages": [
            {"title": "You", "fields": [
                {"key": "rent", "type": "dollar", "label": "Rent"},
                {"key": "pets", "type": "checkbox", "label": "Pets"}]},
            {"title": "More", "fields": [
                {"key": "deposit", "type": "dollar", "label": "Deposit"}]}]}]},
    )  # fmt: skip
    webform = workflow.webforms.get()
    open_builder(page, live_server, organization, webform)
    page.click(".wfb-field[data-key=deposit] [data-role=item]")

    # Rule 1: the rent is at least 1000; rule 2: pets has a value; either will do.
    tab_to(page, "[data-path=showWhen]")
    page.keyboard.type("Rent (")
    tab_to(page, "[data-rule='1'][data-part=test]")
    page.select_option("[data-rule='1'][data-part=test]", "gte")
    tab_to(page, "[data-rule='1'][data-part=value]")
    page.keyboard.type("1,000")
    tab_to(page, "#wfb-set-showWhen-add")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "wfb-set-showWhen-field-2"
    page.select_option("[data-rule='2'][data-part=field]", "pets")
    page.select_option("#wfb-set-showWhen-match", "any")
    page.screenshot(path=str(SHOTS / "builder-05-condition-two-rules-1366.png"), full_page=True)
    assert axe_violations(page) == []
    page.keyboard.press("Control+S")
    wait_saved(page)

    deposit = webform.fields.get(key="deposit")
    assert json.loads(deposit.show_when) == {
        "any": [{"field": "rent", "gte": 1000}, {"field": "pets", "hasValue": True}]
    }
    # Renaming the rent's key renames it in the rules.
    page.click(".wfb-field[data-key=rent] [data-role=item]")
    page.fill("[data-path=key]", "monthlyRent")
    page.keyboard.press("Control+S")
    wait_saved(page)
    deposit.refresh_from_db()
    assert json.loads(deposit.show_when)["any"][0] == {"field": "monthlyRent", "gte": 1000}
