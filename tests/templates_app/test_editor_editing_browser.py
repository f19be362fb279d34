"""The visual editor's editing in a real browser: the side panel sets boxes, options, parts,
format and style; copy, paste, delete and undo, and the guard on unsaved changes; every keyboard
shortcut runs the registry's action; and the preview fills the working version with typed
data."""

from __future__ import annotations

import base64
import json

import pytest

from tests.pdfcheck import page_text
from tests.templates_app.test_editor_browser import (
    blank_template,
    column_template,
    drag,
    draw_field,
    overlay_box,
    panel,
    save,
    working_spec,
    zoom,
)
from tests.templates_app.test_editor_browser import edit as edit  # noqa: F401 - a fixture
from tests.templates_app.test_editor_browser import page as page  # noqa: F401 - the fixture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_side_panel_sets_boxes_options_parts_format_and_style(page, edit, organization) -> None:
    template = edit(blank_template(organization))

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


def test_copy_paste_delete_undo_and_the_unsaved_changes_guard(page, edit, organization) -> None:
    template = edit(blank_template(organization))
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


def test_keyboard_shortcuts_run_the_actions_of_the_registry(page, edit, organization) -> None:
    template = edit(column_template(organization))

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


def test_preview_fills_the_working_version_with_typed_data(page, edit, demo_template) -> None:
    edit(demo_template)

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
