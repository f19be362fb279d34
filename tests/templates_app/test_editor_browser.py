"""The visual editor in a real browser: headless Chromium, driven by Playwright, against the
live server. Log in through the admin's form, open a template, draw and edit fields with the
mouse and keyboard, save, publish, and check the results in the database and in filled PDFs."""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterator

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
from tests.pdfcheck import blank_pdf, page_text, text_in_rect, words
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
    page, live_server, member, organization, api_key, client_for
) -> None:
    template = blank_template(organization)
    log_in(page, live_server, member)
    open_editor(page, live_server, template)
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
    page, live_server, member, organization
) -> None:
    template = column_template(organization)
    log_in(page, live_server, member)
    open_editor(page, live_server, template)
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
    page, live_server, member, organization
) -> None:
    template = template_create_from_pdf(
        organization=organization,
        title="Rotated",
        pdf=(PDFS / "tpl-qpdf-boxes-crop-offset-rotate.pdf").read_bytes(),
    )
    log_in(page, live_server, member)
    open_editor(page, live_server, template)
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


def test_a_refused_save_marks_the_field_and_loses_nothing(
    page, live_server, member, organization
) -> None:
    template = blank_template(organization)
    log_in(page, live_server, member)
    open_editor(page, live_server, template)
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


def test_side_panel_sets_boxes_options_parts_format_and_style(
    page, live_server, member, organization
) -> None:
    template = blank_template(organization)
    log_in(page, live_server, member)
    open_editor(page, live_server, template)

    draw_field(page, 0, 40, 40, 340, 70)
    panel(page, "type").select_option("charList")
    panel(page, "boxCount").fill("6")
    panel(page, "boxCount").press("Enter")
    panel(page, "style.fontSize").fill("14")
    panel(page, "style.fontSize").press("Enter")

    draw_field(page, 0, 40, 100, 340, 130)
    panel(page, "type").select_option("radioGroup")
    panel(page, "splitCount").fill("3")
    page.click("[data-action=split-options]")
    page.click("[data-action=draw-options]")
    box = overlay_box(page, 0)
    drag(page, (box["x"] + 360, box["y"] + 100), (box["x"] + 390, box["y"] + 130))
    page.keyboard.press("Escape")
    panel(page, "option.0.id").fill("yes")

    draw_field(page, 0, 40, 160, 400, 190)
    panel(page, "type").select_option("fullName")
    panel(page, "separateParts").check()

    draw_field(page, 0, 40, 220, 200, 250)
    panel(page, "type").select_option("date")
    panel(page, "format.pattern").fill("DD/MM/YYYY")
    panel(page, "readOnly").check()
    save(page)

    chars, radio, name, date = working_spec(template)["fields"]
    assert (chars["type"], len(chars["boxes"]), chars["maxLength"]) == ("charList", 6, 6)
    assert chars["style"] == {"fontSize": 14.0}
    assert sum(b["width"] for b in chars["boxes"]) == pytest.approx(chars["rect"]["width"], abs=0.1)
    assert [o["id"] for o in radio["options"]] == ["yes", "option2", "option3", "option4"]
    assert sorted(name["parts"]) == ["firstName", "lastName", "mi"]  # JSONB keeps no key order
    assert date["format"] == {"pattern": "DD/MM/YYYY"}
    assert date["readOnly"] is True


def test_copy_paste_delete_undo_and_the_unsaved_changes_guard(
    page, live_server, member, organization
) -> None:
    template = blank_template(organization)
    log_in(page, live_server, member)
    open_editor(page, live_server, template)
    z = zoom(page)
    draw_field(page, 0, 60, 60, 260, 90)
    page.dblclick(".ed-field.is-selected")
    assert page.evaluate("document.activeElement.dataset.prop") == "alias"
    page.keyboard.press("Escape")  # leaves the alias box; the keys below go to the editor

    page.keyboard.press("Control+c")
    page.keyboard.press("Control+v")
    assert page.locator(".ed-field").count() == 2
    page.keyboard.press("Delete")
    assert page.locator(".ed-field").count() == 1
    page.keyboard.press("Control+z")
    assert page.locator(".ed-field").count() == 2

    with page.expect_event("dialog") as leaving:
        page.close(run_before_unload=True)
    assert leaving.value.type == "beforeunload"
    leaving.value.dismiss()
    save(page)

    first, copy = working_spec(template)["fields"]
    assert (first["alias"], copy["alias"]) == ("text1", "text2")
    assert first["id"] != copy["id"]
    assert copy["rect"]["x"] == pytest.approx(first["rect"]["x"] + 10, abs=0.01)
    assert copy["rect"]["y"] == pytest.approx(first["rect"]["y"] - 10, abs=0.01)
    assert first["rect"]["width"] == pytest.approx(200 / z, abs=1)


def field_count(page) -> int:
    return page.locator(".ed-field").count()


def selected(page) -> list[str]:
    """The ids of the fields the page shows selected."""
    return sorted(
        page.eval_on_selector_all(".ed-field.is-selected", "els => els.map(e => e.dataset.fieldId)")
    )


def active_tool(page) -> str:
    """The toolbar's tool button that is pressed (the other is not)."""
    pressed = {
        tool: page.get_attribute(f".ed-toolbar [data-action=tool-{tool}]", "aria-pressed")
        for tool in ("select", "draw")
    }
    [tool] = [tool for tool, state in pressed.items() if state == "true"]
    assert sorted(pressed.values()) == ["false", "true"]
    return tool


# Which action a key runs, as the registry matches it: Mod (Ctrl or ⌘) and Alt as written,
# Shift ignored unless written; None: the key is left to the browser.
KEY_ACTIONS = [
    ({"key": "V", "shiftKey": True}, "tool-select"),
    ({"key": "v", "altKey": True}, None),
    ({"key": "v", "ctrlKey": True}, "paste"),
    ({"key": "r", "ctrlKey": True}, None),
    ({"key": "n"}, "tool-draw"),
    ({"key": "+", "shiftKey": True}, "zoom-in"),
    ({"key": "0", "metaKey": True}, None),
    ({"key": "Z", "ctrlKey": True, "shiftKey": True}, "redo"),
    ({"key": "z", "metaKey": True, "altKey": True}, "undo"),
    ({"key": "s", "ctrlKey": True, "shiftKey": True}, "save"),
    ({"key": "ArrowLeft", "ctrlKey": True}, "move"),
    ({"key": "ArrowLeft", "ctrlKey": True, "altKey": True, "shiftKey": True}, "resize"),
    ({"key": "Backspace", "ctrlKey": True}, "delete"),
    ({"key": "Escape", "altKey": True}, "cancel"),
]


def test_keyboard_shortcuts_run_the_actions_of_the_registry(
    page, live_server, member, organization
) -> None:
    template = column_template(organization)
    log_in(page, live_server, member)
    open_editor(page, live_server, template)

    # The matching of keys to actions, by the registry the page loads (the module its script
    # imports, not anything the editor exposes), for real KeyboardEvents of this browser.
    matched = page.evaluate(
        """async (cases) => {
            const editor = document.querySelector("script[type=module][src*='editor/editor']");
            const { ActionRegistry, EDITOR_ACTIONS } = await import(
                new URL("actions.js", editor.src).href
            );
            const registry = new ActionRegistry({}).register(...EDITOR_ACTIONS);
            return cases.map(([init]) =>
                registry.forKey(new KeyboardEvent("keydown", init))?.name ?? null);
        }""",
        KEY_ACTIONS,
    )
    assert matched == [name for _, name in KEY_ACTIONS]

    # Tools and zoom.
    assert active_tool(page) == "select"
    page.keyboard.press("r")
    assert page.get_attribute("[data-action=tool-draw]", "class").endswith("is-active")
    assert active_tool(page) == "draw"
    page.keyboard.press("Escape")
    assert active_tool(page) == "select"
    page.keyboard.press("0")
    fit = zoom(page)
    page.keyboard.press("-")
    smaller = zoom(page)
    page.keyboard.press("+")
    assert smaller < fit
    assert zoom(page) > smaller
    page.keyboard.press("0")
    assert zoom(page) == fit

    # Select all, clear; a nudge only with a selection; duplicate, delete, undo, redo.
    assert page.is_disabled("[data-action=undo]")
    page.keyboard.press("Control+a")
    assert selected(page) == ["r1", "r2", "r3", "when"]
    page.keyboard.press("Escape")
    assert selected(page) == []
    page.keyboard.press("ArrowUp")
    assert page.is_disabled("[data-action=undo]")
    page.click(".ed-field[data-field-id='r1']")
    page.keyboard.press("Shift+ArrowUp")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Control+d")
    assert field_count(page) == 5
    page.keyboard.press("Backspace")
    assert field_count(page) == 4
    page.keyboard.press("Control+z")
    assert field_count(page) == 5
    page.keyboard.press("Control+Shift+z")
    assert field_count(page) == 4
    page.keyboard.press("Control+z")
    page.keyboard.press("Control+y")
    assert field_count(page) == 4
    assert page.is_disabled("[data-action=redo]")

    # Typing in a box: keys are the box's, except Ctrl+S; Esc leaves the box.
    page.click(".ed-field[data-field-id='r2']")
    panel(page, "alias").fill("total")
    panel(page, "alias").press("Backspace")
    panel(page, "alias").press("v")
    panel(page, "alias").press("Control+s")
    page.wait_for_selector("#ed-status[data-status=saved]")
    panel(page, "alias").press("Escape")
    assert page.evaluate("document.activeElement === document.body")
    assert (field_count(page), selected(page)) == (4, ["r2"])

    fields = {f["id"]: f for f in working_spec(template)["fields"]}
    assert sorted(fields) == ["r1", "r2", "r3", "when"]
    assert fields["r2"]["alias"] == "totav"
    assert fields["r1"]["rect"] == {"x": 99, "y": 610, "width": 200, "height": 20}


def test_preview_fills_the_working_version_with_typed_data(
    page, live_server, member, demo_template
) -> None:
    log_in(page, live_server, member)
    open_editor(page, live_server, demo_template)

    page.click("[data-action=preview]")
    page.wait_for_selector("#ed-preview[data-state=ready]")
    assert page.locator(".ed-preview-page").count() == 2
    example = json.loads(page.input_value("#ed-preview-data"))
    assert example["email"] == "jane.doe@example.com"

    page.fill("#ed-preview-data", json.dumps({**example, "email": "ada@example.org"}))
    page.click("[data-action=preview-run]")
    page.wait_for_selector("#ed-preview[data-state=ready]")
    # The PDF shown is the one "Download PDF" offers.
    shown = page.evaluate(
        """async () => {
            const link = document.querySelector("[data-action=preview-download]");
            const bytes = new Uint8Array(await (await fetch(link.href)).arrayBuffer());
            return btoa(String.fromCharCode(...bytes));
        }"""
    )
    assert "ada@example.org" in page_text(base64.b64decode(shown))


def test_screenshot_of_the_w9_form(page, live_server, member, organization) -> None:
    """The editor with a real-world form, a field selected and being edited, saved as
    test-artifacts/editor-irs-fw9-2018.png. With EDITOR_DOCS_SCREENSHOT=1 it also refreshes
    docs/images/editor.png (reduced to 256 colours to stay small)."""
    template = template_create_from_pdf(
        organization=organization,
        title="IRS W-9 (2018)",
        pdf=(PDFS / "irs-fw9-2018.pdf").read_bytes(),
    )
    log_in(page, live_server, member)
    open_editor(page, live_server, template)
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
