"""The visual editor in a real browser: headless Chromium, driven by Playwright, against the
live server. Log in through the admin's form, open a template, draw and edit fields with the
mouse and keyboard, save, publish, and check the results in the database and in filled PDFs.

This module: drawing a field through to the filled PDF, moving, resizing and wrapping fields
into an array, fields on rotated pages, a refused save; and the helpers the other editor
browser tests import; and the documentation's screenshot of the W-9 form. Editing (the side
panel, copy and paste, undo, keyboard shortcuts) and the preview are in
test_editor_editing_browser.py."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator

import pytest
from django.urls import reverse
from PIL import Image

from accounts.models import Organization, User
from core.engine.template_spec import FieldSpec, PageSpec, Rect, TemplateSpec
from templates_app import services
from templates_app.models import PdfTemplate
from templates_app.services import template_create_from_pdf, template_create_with_spec
from tests.browser import admin_log_in, watched_tab
from tests.fixtures import PDFS
from tests.pdfcheck import blank_pdf, text_in_rect, words
from tests.templates_app.conftest import ARTIFACTS, PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DOCS_IMAGES = ARTIFACTS.parent / "docs" / "images"


def expected_console_error(message) -> bool:
    """The browser's note on an answer the editor expects: no favicon, and the 400 of a refused
    save (the test checks what the page shows instead)."""
    url = message.location.get("url", "")
    refused_save = "status of 400" in message.text and url.endswith("/editor/spec/")
    return url.endswith("/favicon.ico") or refused_save


@pytest.fixture
def page(browser, live_server) -> Iterator[object]:
    """A fresh browser tab (1440×900); fails the test on any script error in the page."""
    with watched_tab(browser, width=1440, height=900, expected=expected_console_error) as tab:
        yield tab


def log_in(tab, live_server, user: User) -> None:
    admin_log_in(tab, live_server, user.username, PASSWORD)


@pytest.fixture
def edit(page, live_server, member) -> Callable[[PdfTemplate], PdfTemplate]:
    """Opens the editor on a template as ``member`` (logged in first) in ``page``; gives the
    template back. Every editor browser test starts so."""

    def open_template(template: PdfTemplate) -> PdfTemplate:
        log_in(page, live_server, member)
        open_editor(page, live_server, template)
        return template

    return open_template


def open_editor(page, live_server, template: PdfTemplate) -> None:
    """From the template's change page, through its "Open visual editor" link."""
    page.goto(
        live_server.url + reverse("admin:templates_app_pdftemplate_change", args=[template.pk])
    )
    page.click("text=Open visual editor")
    page.wait_for_selector("#editor[data-state=ready]")
    page.wait_for_selector(".ed-page[data-page='0'].is-rendered")


def zoom(page) -> float:
    """The zoom the toolbar shows ("125%"), as a factor: the editor zooms in steps of 1 %."""
    return int(page.inner_text("#ed-zoom").removesuffix("%")) / 100


def overlay_box(page, index: int = 0) -> dict:
    overlay = page.locator(f".ed-overlay[data-page='{index}']")
    overlay.scroll_into_view_if_needed()
    return overlay.bounding_box()


def drag(page, start: tuple[float, float], end: tuple[float, float], *, steps: int = 8) -> None:
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=steps)
    page.mouse.up()


def draw_field(page, index: int, left: float, top: float, right: float, bottom: float) -> None:
    """Choose the draw tool and drag from (left, top) to (right, bottom), in page pixels."""
    box = overlay_box(page, index)
    page.click("[data-action=tool-draw]")
    drag(page, (box["x"] + left, box["y"] + top), (box["x"] + right, box["y"] + bottom))


def save(page) -> None:
    page.keyboard.press("Control+s")
    page.wait_for_selector("#ed-status[data-status=saved]")


def working_spec(template: PdfTemplate) -> dict:
    return services.working_version(template).spec


def blank_template(organization: Organization, pages: int = 1) -> PdfTemplate:
    return template_create_from_pdf(organization=organization, title="Blank", pdf=blank_pdf(pages))


def panel(page, prop: str):
    return page.locator(f".ed-panel [data-prop='{prop}']")


def field_box(page, field_id: str) -> dict:
    return page.locator(f".ed-field[data-field-id='{field_id}']").bounding_box()


def rect_from_screen(left: float, top: float, right: float, bottom: float, z: float) -> dict:
    """A box drawn on an unrotated 612×792 page at zoom ``z``, in PDF points (y up)."""
    return {
        "x": left / z,
        "y": 792 - bottom / z,
        "width": (right - left) / z,
        "height": (bottom - top) / z,
    }


def assert_rect(actual: dict, expected: dict, tolerance: float = 1.0) -> None:
    for key in ("x", "y", "width", "height"):
        assert actual[key] == pytest.approx(expected[key], abs=tolerance), (key, actual, expected)


def test_draw_a_field_save_publish_and_the_fill_puts_the_value_inside_it(
    page, edit, organization, api_key, client_for
) -> None:
    template = edit(blank_template(organization))
    z = zoom(page)

    draw_field(page, 0, 90, 120, 390, 150)
    assert page.get_attribute("#ed-status", "data-status") == "dirty"
    panel(page, "alias").fill("contact_email")
    panel(page, "type").select_option("email")
    page.click("[data-action=save]")
    page.wait_for_selector("#ed-status[data-status=saved]")
    page.click("[data-action=publish]")
    page.wait_for_selector("#ed-version:has-text('Published v1')")

    [field] = working_spec(template)["fields"]
    assert (field["alias"], field["type"], field["page"]) == ("contact_email", "email", 0)
    assert_rect(field["rect"], rect_from_screen(90, 120, 390, 150, z))
    assert services.version_summary(template).published_number == 1
    response = client_for(api_key).post(
        f"/api/v1/fill/{template.eid}.pdf",
        data=json.dumps({"data": {"contact_email": "ada@example.com"}}),
        content_type="application/json",
    )
    assert response.status_code == 200
    assert text_in_rect(words(response.content)[0], field["rect"]) == "ada@example.com"


def column_template(organization: Organization) -> PdfTemplate:
    """Three text fields in a column (the rows of a table) and a date field beside them."""
    fields = [
        FieldSpec(id=f"r{n}", alias=f"row{n}", type="shortText", page=0, rect=Rect(100, y, 200, 20))
        for n, y in ((1, 600), (2, 570), (3, 540))
    ]
    fields.append(
        FieldSpec(id="when", alias="when", type="date", page=0, rect=Rect(360, 660, 120, 20))
    )
    page = PageSpec(width=612, height=792, media_box=(0, 0, 612, 792))
    return template_create_with_spec(
        organization=organization,
        title="Rows",
        pdf=blank_pdf(),
        spec=TemplateSpec(pages=(page,), fields=tuple(fields)),
    )


def test_move_and_resize_with_mouse_and_keys_then_wrap_three_fields_into_an_array(
    page, edit, organization
) -> None:
    template = edit(column_template(organization))
    z = zoom(page)

    # Move the date field by dragging it, then resize it by its lower-right handle.
    box = field_box(page, "when")
    centre = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    drag(page, centre, (centre[0] + 60, centre[1] + 30))
    handle = page.locator(".ed-field[data-field-id='when'] .ed-handle[data-handle='se']")
    corner = handle.bounding_box()
    corner = (corner["x"] + corner["width"] / 2, corner["y"] + corner["height"] / 2)
    drag(page, corner, (corner[0] + 40, corner[1] + 20))
    # And with the keyboard: 1 pt right, 10 pt down, 1 pt wider.
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Shift+ArrowDown")
    page.keyboard.press("Alt+ArrowRight")

    # Select the three rows in a scrambled order; the array orders them top to bottom.
    page.click(".ed-field[data-field-id='r2']")
    page.click(".ed-field[data-field-id='when']", modifiers=["Shift"])
    page.click("[data-action=wrap-array]")
    page.wait_for_selector(".ed-toast.is-error:has-text('one type')")
    page.click(".ed-field[data-field-id='r3']")
    page.click(".ed-field[data-field-id='r1']", modifiers=["Shift"])
    page.click(".ed-field[data-field-id='r2']", modifiers=["Shift"])
    page.click("[data-action=wrap-array]")
    page.click(".ed-field[data-field-id='r1']")
    panel(page, "arrayAlias").fill("line_items")
    save(page)

    spec = working_spec(template)
    when = next(f for f in spec["fields"] if f["id"] == "when")
    assert_rect(
        when["rect"],
        {
            "x": 360 + 60 / z + 1,
            "y": 660 - 30 / z - 20 / z - 10,
            "width": 120 + 40 / z + 1,
            "height": 20 + 20 / z,
        },
    )
    [array] = spec["arrays"]
    assert array["alias"] == "line_items"
    assert array["fieldIds"] == ["r1", "r2", "r3"]
    assert [f["rect"] for f in spec["fields"] if f["id"] != "when"] == [
        {"x": 100, "y": y, "width": 200, "height": 20} for y in (600, 570, 540)
    ]
    assert page.locator(".ed-field.in-array").count() == 3


# The qpdf fixture: pages 4-7 have a MediaBox of [-10 -20 642 832], a CropBox of
# [10 20 582 752] and /Rotate 0, 90, 180, 270.
CROP = (10.0, 20.0, 582.0, 752.0)


def crop_to_pdf(u: float, v: float, rotate: int, s: float) -> tuple[float, float]:
    """Where a point (u, v) pixels from the top-left of a page shown at scale ``s`` lies in the
    page's PDF space, worked out from the page boxes, independently of pdf.js."""
    x0, y0, x1, y1 = CROP
    u, v = u / s, v / s
    return {
        0: (x0 + u, y1 - v),
        90: (x0 + v, y0 + u),
        180: (x1 - u, y0 + v),
        270: (x1 - v, y1 - u),
    }[rotate]


def test_fields_drawn_on_rotated_pages_with_an_offset_mediabox_land_where_drawn(
    page, edit, organization
) -> None:
    template = template_create_from_pdf(
        organization=organization,
        title="Rotated",
        pdf=(PDFS / "tpl-qpdf-boxes-crop-offset-rotate.pdf").read_bytes(),
    )
    edit(template)
    page.click("[data-action=zoom-out]")
    page.wait_for_selector("#ed-zoom:has-text('100%')")
    z = zoom(page)

    drawn = {4: 0, 5: 90, 6: 180, 7: 270}
    for index in drawn:
        # Go to the page with the page box of the toolbar.
        page.fill("#ed-page", str(index + 1))
        page.press("#ed-page", "Enter")
        page.wait_for_function(
            f"""() => {{
                const pages = document.querySelector(".ed-pages").getBoundingClientRect();
                const top = document.querySelector(".ed-overlay[data-page='{index}']")
                    .getBoundingClientRect().top;
                return top >= pages.top && top + 140 <= pages.bottom;
            }}"""
        )
        box = page.locator(f".ed-overlay[data-page='{index}']").bounding_box()
        page.click("[data-action=tool-draw]")
        drag(page, (box["x"] + 60, box["y"] + 80), (box["x"] + 240, box["y"] + 110))
    save(page)

    pages = working_spec(template)["pages"]
    fields = {f["page"]: f for f in working_spec(template)["fields"]}
    assert sorted(fields) == sorted(drawn)
    for index, rotate in drawn.items():
        assert pages[index]["rotate"] == rotate
        assert pages[index]["mediaBox"] == [-10, -20, 642, 832]
        (ax, ay), (bx, by) = crop_to_pdf(60, 80, rotate, z), crop_to_pdf(240, 110, rotate, z)
        expected = {
            "x": min(ax, bx),
            "y": min(ay, by),
            "width": abs(bx - ax),
            "height": abs(by - ay),
        }
        rect = fields[index]["rect"]
        assert_rect(rect, expected)
        assert CROP[0] <= rect["x"] < rect["x"] + rect["width"] <= CROP[2]
        assert CROP[1] <= rect["y"] < rect["y"] + rect["height"] <= CROP[3]


def test_a_refused_save_marks_the_field_and_loses_nothing(page, edit, organization) -> None:
    template = edit(blank_template(organization))
    draw_field(page, 0, 60, 60, 260, 90)
    draw_field(page, 0, 60, 120, 260, 150)
    second = page.get_attribute(".ed-field.is-selected", "data-field-id")
    panel(page, "alias").fill("")

    page.click("[data-action=save]")
    page.wait_for_selector("#ed-status[data-status=error]")

    assert page.locator(".ed-field").count() == 2
    assert page.get_attribute(".ed-field.is-error", "data-field-id") == second
    assert "Must be a non-empty string." in page.inner_text(".ed-problems")
    assert page.get_attribute("#editor", "data-dirty") == "true"
    assert working_spec(template)["fields"] == []

    page.click(f".ed-problem[data-field-id='{second}']")
    panel(page, "alias").fill("second")
    assert page.locator(".ed-field.is-error").count() == 0
    save(page)
    assert sorted(f["alias"] for f in working_spec(template)["fields"]) == ["second", "text1"]


def test_screenshot_of_the_w9_form(page, edit, organization) -> None:
    """The editor with a real-world form, a field selected and being edited, saved as
    test-artifacts/editor-irs-fw9-2018.png. With EDITOR_DOCS_SCREENSHOT=1 it also refreshes
    docs/images/editor.png (reduced to 256 colours to stay small)."""
    template = template_create_from_pdf(
        organization=organization,
        title="IRS W-9 (2018)",
        pdf=(PDFS / "irs-fw9-2018.pdf").read_bytes(),
    )
    edit(template)
    page.click(".ed-field.cat-boxes >> nth=0")  # the SSN: three character boxes
    panel(page, "alias").fill("ssn")
    page.wait_for_selector("#ed-status[data-status=dirty]")
    page.wait_for_timeout(300)  # let the canvases of the visible pages settle

    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "editor-irs-fw9-2018.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 50_000
    if os.environ.get("EDITOR_DOCS_SCREENSHOT"):
        image = Image.open(shot).convert("RGB")
        small = image.quantize(
            colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
        )
        small.save(DOCS_IMAGES / "editor.png", optimize=True)
        assert (DOCS_IMAGES / "editor.png").stat().st_size < 300_000
