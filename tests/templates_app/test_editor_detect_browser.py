"""The editor's "Detect fields" in a real browser (headless Chromium, Playwright): detect the
fields of a flat page, accept some, fix one, delete one, save; the draft is never saved by
itself. Screenshots in test-artifacts/; axe finds nothing wrong with the page."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from reportlab.pdfgen.canvas import Canvas

from templates_app import services
from templates_app.services import template_create_from_pdf
from tests.axe import axe_violations
from tests.browser import watched_tab
from tests.templates_app.conftest import ARTIFACTS
from tests.templates_app.test_editor_browser import edit as edit  # noqa: F401 - the fixture
from tests.templates_app.test_editor_detect import with_fields

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def page(browser, live_server) -> Iterator[object]:
    with watched_tab(browser, width=1440, height=900) as tab:
        yield tab


def flat_form() -> bytes:
    """A flat application form: a name line, an email box, a checkbox and a signature line."""
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(612, 792))
    canvas.setFont("Helvetica-Bold", 16)
    canvas.drawString(72, 740, "Application for a fishing permit")
    canvas.setFont("Helvetica", 11)
    canvas.drawString(72, 680, "Full name")
    canvas.line(130, 678, 500, 678)
    canvas.setFont("Helvetica", 9)
    canvas.drawString(72, 642, "Email address")
    canvas.rect(72, 610, 260, 24)
    canvas.setFont("Helvetica", 11)
    canvas.rect(72, 570, 11, 11)
    canvas.drawString(90, 571, "I agree to the rules")
    canvas.line(72, 500, 320, 500)
    canvas.drawString(72, 486, "Signature")
    canvas.save()
    return buffer.getvalue()


def draft_row(page, alias: str):
    return page.locator(".ed-draft-row", has=page.locator(f"input[value='{alias}']"))


def test_detect_accept_fix_delete_and_save(page, edit, organization) -> None:
    template = template_create_from_pdf(organization=organization, title="Permit", pdf=flat_form())
    assert services.working_version(template).spec["fields"] == []
    edit(template)

    page.click("[data-action=detect]")
    page.click("[data-detect=run]")
    page.wait_for_selector(".ed-draft-row >> nth=3")
    aliases = page.locator(".ed-draft-row input[type=text]").evaluate_all(
        "(inputs) => inputs.map((input) => input.value)"
    )
    types = page.locator(".ed-draft-row select").evaluate_all(
        "(selects) => selects.map((select) => select.value)"
    )
    assert list(zip(aliases, types, strict=True)) == [
        ("fullName", "shortText"),
        ("emailAddress", "email"),
        ("iAgreeToRules", "checkbox"),
        ("signature", "signature"),
    ]
    assert page.locator(".ed-overlay[data-page='0'] .ed-draft").count() == 4
    assert page.locator(".ed-field").count() == 0  # a draft, not fields
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "editor-detect-draft.png"))
    # The parts this feature adds: the toolbar's button, the panel and its draft list, the
    # draft on the pages. (The page as a whole has one finding that predates it: the pages'
    # scrolling area takes no keyboard focus, axe's scrollable-region-focusable.)
    assert axe_violations(page, include=[".ed-toolbar", "#ed-detect", ".ed-pages-inner"]) == []

    # Fix one: its alias and type; leave one out; delete one.
    draft_row(page, "fullName").locator("input[type=text]").fill("applicantName")
    draft_row(page, "emailAddress").locator("select").select_option("shortText")
    draft_row(page, "iAgreeToRules").locator("input[type=checkbox]").uncheck()
    page.click("[aria-label='Delete draft field signature']")
    assert page.locator(".ed-draft-row").count() == 3
    assert page.locator(".ed-draft.is-rejected").count() == 1
    assert services.working_version(template).spec["fields"] == []  # nothing saved yet

    page.click("[data-detect=accept]")
    page.wait_for_selector("#ed-status[data-status=dirty]")
    assert page.locator(".ed-field").count() == 2
    assert page.locator(".ed-draft-row").count() == 1  # the one left out stays a draft
    page.keyboard.press("Control+s")
    page.wait_for_selector("#ed-status[data-status=saved]")
    page.screenshot(path=str(ARTIFACTS / "editor-detect-accepted.png"))

    fields = services.working_version(template).spec["fields"]
    assert [(f["alias"], f["type"], f["page"]) for f in fields] == [
        ("applicantName", "shortText", 0),
        ("emailAddress", "shortText", 0),
    ]
    assert fields[0]["rect"]["x"] == pytest.approx(130, abs=1.5)
    assert fields[0]["rect"]["y"] == pytest.approx(678, abs=1.5)
    assert fields[1]["rect"]["x"] == pytest.approx(72, abs=1.5)
    assert fields[1]["rect"]["width"] == pytest.approx(260, abs=1.5)
    assert all(not f["id"].startswith("d") for f in fields)  # ids of the template's own


def test_only_missing_skips_places_that_have_fields(page, edit, organization) -> None:
    template = template_create_from_pdf(organization=organization, title="Permit", pdf=flat_form())
    with_fields(template, [
        {"id": "f1", "alias": "name", "type": "shortText", "page": 0,
         "rect": {"x": 130, "y": 678, "width": 370, "height": 18}},
    ])  # fmt: skip
    edit(template)

    page.click("[data-action=detect]")
    page.check("#ed-detect-missing")
    page.click("[data-detect=run]")
    page.wait_for_selector(".ed-draft-row >> nth=2")

    aliases = page.locator(".ed-draft-row input[type=text]").evaluate_all(
        "(inputs) => inputs.map((input) => input.value)"
    )
    assert aliases == ["emailAddress", "iAgreeToRules", "signature"]
