"""A template's page and its visual editor, at 1440 px and on a phone (390 px): the versions'
table shows every column ("Updated at" was cut off on a phone) with no empty header, and axe's
rules, best practice included, find nothing on either page (the editor had no level-one heading
and its scrolling pages were out of the keyboard's reach). Screenshots in
test-artifacts/templates-a11y-*.png."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.axe import axe_violations
from tests.templates_app.conftest import ARTIFACTS
from tests.templates_app.test_editor_browser import (  # noqa: F401 - the fixture
    blank_template,
    log_in,
    open_editor,
    page,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

INSIDE = """(el) => {
  const box = el.getBoundingClientRect(), view = el.closest('.readonly-rows').getBoundingClientRect();
  return box.left >= view.left && box.right <= view.right + 0.5;
}"""


@pytest.mark.parametrize("width", [1440, 390])
def test_the_versions_and_the_editor_show_everything_to_everyone(
    page,  # noqa: F811
    live_server,
    member,
    organization,
    width: int,
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    template = blank_template(organization)
    log_in(page, live_server, member)
    page.goto(
        live_server.url + reverse("admin:templates_app_pdftemplate_change", args=[template.pk])
    )
    headers = page.locator("#versions-group thead th").all_inner_texts()
    assert [h.strip().upper() for h in headers] == [
        "NUMBER",
        "PUBLISHED AT",
        "FIELDS",
        "PDF SHA-256",
        "UPDATED AT",
    ]
    updated = page.locator("#versions-group td.field-updated_at").first
    assert page.locator("#versions-group th.column-updated_at").evaluate(INSIDE)
    assert updated.evaluate(INSIDE)
    page.screenshot(path=str(ARTIFACTS / f"templates-a11y-versions-{width}.png"), full_page=True)
    assert axe_violations(page, best_practice=True) == []

    open_editor(page, live_server, template)
    assert page.locator("h1").inner_text() == "Visual editor: Blank"
    page.locator(".ed-pages").focus()
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Pages of the PDF"
    page.screenshot(path=str(ARTIFACTS / f"templates-a11y-editor-{width}.png"))
    assert axe_violations(page, best_practice=True) == []
