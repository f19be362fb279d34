"""Detect fields in the editor, as the window sizes of a desk, a tablet and a phone show it
(headless Chromium): the Detect button keeps its size however long the draft is, the panel
never hides the page (it is beside it, or under it on a phone), and a template added from a
flat PDF opens in the editor with the panel open. Screenshots in test-artifacts/; axe finds
nothing wrong with the editor while the panel is open."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from reportlab.pdfgen.canvas import Canvas

from templates_app.models import PdfTemplate
from templates_app.services import template_create_from_pdf
from tests.axe import axe_violations
from tests.browser import watched_tab
from tests.templates_app.conftest import ARTIFACTS, small_form
from tests.templates_app.test_editor_browser import log_in, open_editor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = [(1366, 900), (1024, 768), (390, 844)]
BOX = "(el) => { const r = el.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }"


def long_form() -> bytes:
    """A flat page of 24 answer lines, each with its label: a draft longer than any window."""
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(612, 792))
    canvas.setFont("Helvetica", 10)
    for row in range(24):
        y = 740 - row * 28
        canvas.drawString(72, y + 2, f"Answer {row + 1}")
        canvas.line(150, y, 540, y)
    canvas.save()
    return buffer.getvalue()


def box(page, selector: str) -> tuple[float, float, float, float]:
    """x, y, width, height of the first element ``selector`` finds, in CSS pixels."""
    return tuple(page.locator(selector).first.evaluate(BOX))


def detect_all(page) -> None:
    page.click("[data-action=detect]")
    page.click("[data-detect=run]")
    page.wait_for_selector(".ed-draft-row >> nth=23")


@pytest.fixture
def long_form_tab(browser, live_server, member, organization, size) -> Iterator[object]:
    """A tab of the test's window ``size`` with the editor open on a new template of
    :func:`long_form`, logged in as ``member``."""
    template = template_create_from_pdf(organization=organization, title="Long", pdf=long_form())
    with watched_tab(browser, width=size[0], height=size[1]) as page:
        log_in(page, live_server, member)
        open_editor(page, live_server, template)
        yield page


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_the_detect_button_keeps_its_size_while_the_draft_is_open(long_form_tab, size) -> None:
    width, height = size
    page = long_form_tab
    toolbar_button = box(page, "[data-action=detect]")

    page.click("[data-action=detect]")
    run = box(page, "[data-detect=run]")
    assert run[3] == 30
    page.click("[data-detect=run]")
    page.wait_for_selector(".ed-draft-row >> nth=23")

    assert box(page, "[data-detect=run]")[2:] == run[2:]
    assert box(page, "[data-action=detect]")[2:] == toolbar_button[2:]
    assert page.get_attribute("[data-action=detect]", "aria-expanded") == "true"
    # Every tool is in reach: the toolbar wraps instead of running off the window.
    tools = page.locator(".ed-toolbar .ed-btn").evaluate_all(f"(buttons) => buttons.map({BOX})")
    assert max(x + w for x, _, w, _ in tools) <= width
    # The buttons that act on the draft stay in view at the foot of the panel.
    accept = box(page, "[data-detect=accept]")
    panel = box(page, "#ed-detect")
    assert panel[1] < accept[1]
    assert accept[1] + accept[3] <= panel[1] + panel[3]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"editor-detect-long-draft-{width}.png"))


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_the_panel_leaves_the_page_in_view(long_form_tab, size) -> None:
    width, height = size
    page = long_form_tab
    detect_all(page)

    pages = box(page, ".ed-pages")
    panel = box(page, "#ed-detect")
    beside = panel[0] >= pages[0] + pages[2]
    under = panel[1] >= pages[1] + pages[3]
    assert beside or under, (pages, panel)
    # Room to work in: a desk's page beside the panel, a phone's above it.
    assert pages[2] >= min(600, width - 32), pages
    assert pages[3] >= 200, pages
    # The whole width of the page, its draft boxes included, is in view (no sideways
    # scrolling to reach the half the panel took).
    sheet = box(page, ".ed-page[data-page='0']")
    assert pages[0] <= sheet[0], (pages, sheet)
    assert sheet[0] + sheet[2] <= pages[0] + pages[2], (pages, sheet)
    drafts = page.locator(".ed-overlay[data-page='0'] .ed-draft").evaluate_all(
        f"(boxes) => boxes.map({BOX})"
    )
    assert len(drafts) == 24
    assert max(x + w for x, _, w, _ in drafts) <= pages[0] + pages[2]
    # Nothing lies over the page: what is under the middle of its visible part is the page.
    middle_x = sheet[0] + sheet[2] / 2
    middle_y = (max(sheet[1], pages[1]) + min(sheet[1] + sheet[3], pages[1] + pages[3])) / 2
    assert page.evaluate(
        "([x, y]) => !!document.elementFromPoint(x, y).closest('.ed-page')",
        [middle_x, middle_y],
    )
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"editor-detect-beside-page-{width}.png"))

    # Closing the panel gives the page back its room and its zoom.
    zoom_open = page.inner_text("#ed-zoom")
    page.click("[data-detect=close]")
    assert page.get_attribute("[data-action=detect]", "aria-expanded") == "false"
    closed = page.inner_text("#ed-zoom")
    assert int(closed.removesuffix("%")) >= int(zoom_open.removesuffix("%"))


@pytest.mark.parametrize("size", [(1366, 900), (390, 844)], ids=["1366x900", "390x844"])
def test_axe_finds_nothing_wrong_with_the_panel_open(long_form_tab, size) -> None:
    page = long_form_tab
    detect_all(page)
    assert axe_violations(page, best_practice=True) == []
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"editor-detect-axe-{size[0]}.png"))


def flat_upload(name: str = "permit.pdf") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, long_form(), "application/pdf")


@pytest.mark.parametrize("size", [(1366, 900), (390, 844)], ids=["1366x900", "390x844"])
def test_adding_a_flat_pdf_opens_the_editor_on_it(
    browser, live_server, member, organization, tmp_path, size
) -> None:
    width, height = size
    flat = tmp_path / "permit.pdf"
    flat.write_bytes(long_form())
    with watched_tab(browser, width=width, height=height) as page:
        log_in(page, live_server, member)
        page.goto(live_server.url + reverse("admin:templates_app_pdftemplate_add"))
        page.set_input_files("#id_pdf", str(flat))
        page.click("input[name=_save]")
        page.wait_for_selector("#editor[data-state=ready]")

        template = PdfTemplate.objects.get()
        editor = reverse("admin:templates_app_pdftemplate_editor", args=[template.pk])
        assert page.url == live_server.url + editor  # "?added" is dropped: a reload is plain
        assert page.input_value("#ed-title") == "permit"
        assert page.locator("#ed-detect").is_visible()
        assert "no form fields" in page.inner_text(".ed-detect-message")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"editor-added-flat-pdf-{width}.png"))

        page.reload()
        page.wait_for_selector("#editor[data-state=ready]")
        assert page.locator("#ed-detect").is_hidden()


def add(client: Client, organization, upload: SimpleUploadedFile, button: str) -> str:
    response = client.post(
        reverse("admin:templates_app_pdftemplate_add"),
        {"organization": organization.pk, "title": "", "pdf": upload, button: "1"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    return response["Location"]


def test_which_page_follows_the_add_page(member_client: Client, organization) -> None:
    flat_editor = add(member_client, organization, flat_upload(), "_continue")
    template = PdfTemplate.objects.get()
    assert flat_editor == (
        reverse("admin:templates_app_pdftemplate_editor", args=[template.pk]) + "?added"
    )
    # Another one was asked for: the add page again.
    assert add(member_client, organization, flat_upload(), "_addanother") == reverse(
        "admin:templates_app_pdftemplate_add"
    )
    # A PDF with form fields has them already: the admin's usual list.
    upload = SimpleUploadedFile("form.pdf", small_form(), "application/pdf")
    assert add(member_client, organization, upload, "_save") == reverse(
        "admin:templates_app_pdftemplate_changelist"
    )
