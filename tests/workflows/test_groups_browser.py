"""Repeating groups, a conditional page and Spanish in a real browser (Chromium via Playwright),
at a desktop (1366x900) and a phone (390x844) size: entries added and removed by the page's
script (their inputs renumbered), a refused entry named in the error summary, the filled PDF's
rows and page count, the pages in Spanish from the browser's language, and axe on every state
(the form, entries added, errors, the end page) finding no violation.

Screenshots: test-artifacts/workflows/groups-<state>-<size>.png and spanish-<state>-<size>.png.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any

import pypdf
import pytest

from tests.axe import axe_violations
from tests.browser import Tab
from tests.pdfcheck import text_in_rect, words
from tests.workflows.order_workflow import item_rect, order_workflow, price_rect
from tests.workflows.test_webform_browser import SHOTS, form_tab, public_base  # noqa: F401
from workflows.models import Submission, WebformSubmission
from workflows.submissions.files import documents_zip

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = {"desktop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}


def shot(tab: Tab, name: str, size: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / f"{name}-{size}.png"), full_page=True)


def no_violations(tab: Tab) -> None:
    assert axe_violations(tab.page) == []


def filled_pdf() -> bytes:
    data, _ = documents_zip(Submission.objects.get())
    return zipfile.ZipFile(io.BytesIO(data)).read("order-form.pdf")


def fill_entry(page: Any, index: int, description: str, price: str) -> None:
    page.fill(f"[name='items.{index}.description']", description)
    page.fill(f"[name='items.{index}.price']", price)


@pytest.mark.parametrize(
    ("size", "count", "pages"), [("desktop", 2, 2), ("phone", 6, 3)]
)  # fmt: skip
def test_entries_are_added_removed_and_fill_the_rows(
    browser, public_base, organization, demo_template, size: str, count: int, pages: int  # noqa: F811
) -> None:  # fmt: skip
    order_workflow(organization, demo_template)
    tab = form_tab(
        browser, SIZES[size], f"{public_base}/form/acme/order", has_touch=size == "phone"
    )
    page = tab.page
    no_violations(tab)
    page.fill("[name='name.firstName']", "Ada")
    page.fill("[name='name.lastName']", "Lovelace")
    page.click("#wf-next")
    page.wait_for_selector("text=Step 2 of 2: Items")
    page.wait_for_selector("#wf-form[data-state=ready]")

    # One entry to start with (the minimum); its Remove is hidden while it is the only one.
    assert page.locator(".wf-entry").count() == 1
    assert page.is_hidden(".wf-entries .wf-remove")
    fill_entry(page, 0, "Thing 0", "10")
    page.click(".wf-add")
    fill_entry(page, 1, "Extra", "99")
    for index in range(1, count):
        page.click(".wf-add")
        fill_entry(page, index + 1, f"Thing {index}", f"{10 + index}")
    # The extra entry goes: those after it are renumbered, their values kept.
    page.click("button.wf-remove[value='remove:items:1']")
    assert page.locator(".wf-entry").count() == count
    assert page.input_value("[name='items.entries']") == str(count)
    assert page.input_value("[name='items.1.description']") == "Thing 1"
    assert page.text_content(".wf-entry:nth-child(2) .wf-entry-title") == "Entry 2"
    assert page.get_attribute("#f-items\\.1\\.price", "name") == "items.1.price"
    assert page.get_attribute("label[for='f-items.1.price']", "for") == "f-items.1.price"
    shot(tab, "groups-entries", size)
    no_violations(tab)

    # A bad price: the browser says which entry, beside it and in the summary.
    page.fill("[name='items.1.price']", "cheap")
    page.click("#wf-next")
    page.wait_for_selector("#wf-summary:not([hidden])")
    assert page.text_content("#wf-summary a") == (
        "Items, entry 2: Price: Enter a number, like 1234.56."
    )
    assert page.get_attribute("[name='items.1.price']", "aria-invalid") == "true"
    shot(tab, "groups-error", size)
    no_violations(tab)

    page.fill("[name='items.1.price']", "11")
    assert page.text_content("#wf-next") == "Finish"  # the delivery page is not wanted
    page.click("#wf-next")
    page.wait_for_selector("#wf-done-title")
    assert page.text_content("#wf-done-title") == "Thank you"
    shot(tab, "groups-done", size)
    no_violations(tab)
    tab.close()

    stored = WebformSubmission.objects.get().payload["items"]
    assert stored == [{"description": f"Thing {n}", "price": 10 + n} for n in range(count)]
    pdf = filled_pdf()
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    assert len(reader.pages) == pages  # page 2 repeats for entries beyond its 5 rows
    rows = [text_in_rect(p, item_rect(r)) for p in words(pdf)[1:] for r in range(5)]
    prices = [text_in_rect(p, price_rect(r)) for p in words(pdf)[1:] for r in range(5)]
    assert [r for r in rows if r] == [f"Thing {n}" for n in range(count)]
    assert [p for p in prices if p] == [f"${10 + n}.00" for n in range(count)]
    assert "Thing 0" in reader.pages[1].extract_text()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_webform_in_spanish(
    browser, public_base, organization, demo_template, size: str  # noqa: F811
) -> None:  # fmt: skip
    order_workflow(organization, demo_template)
    tab = form_tab(
        browser,
        SIZES[size],
        f"{public_base}/form/acme/order",
        locale="es-MX",
        has_touch=size == "phone",
    )
    page = tab.page
    assert page.get_attribute("html", "lang") == "es"
    assert page.text_content("#wf-next") == "Siguiente"
    shot(tab, "spanish-form", size)

    # The browser's own check, in Spanish.
    page.click("#wf-next")
    page.wait_for_selector("#wf-summary:not([hidden])")
    assert page.text_content(".wf-summary-title") == "Hay un problema"
    assert page.text_content("#f-name-error") == "Este campo es obligatorio."
    shot(tab, "spanish-error", size)
    no_violations(tab)

    page.fill("[name='name.firstName']", "Ada")
    page.fill("[name='name.lastName']", "Lovelace")
    page.check("[name=deliver]")
    page.click("#wf-next")
    page.wait_for_selector("text=Paso 2 de 3: Items")
    page.wait_for_selector("#wf-form[data-state=ready]")
    fill_entry(page, 0, "Lámpara", "12.50")
    page.click(".wf-add")
    assert page.text_content(".wf-entry:nth-child(2) .wf-entry-title") == "Registro 2"
    assert page.text_content(".wf-entry:nth-child(2) .wf-remove") == "Quitar el registro 2"
    fill_entry(page, 1, "Escritorio", "300")
    shot(tab, "spanish-group", size)
    no_violations(tab)
    page.click("#wf-next")
    page.wait_for_selector("text=Paso 3 de 3: Delivery")
    page.wait_for_selector("#wf-form[data-state=ready]")
    page.fill("[name='address.street1']", "Calle Hidalgo 12")
    page.fill("[name='address.city']", "Laredo")
    page.select_option("[name='address.state']", "TX")
    page.fill("[name='address.zip']", "78040")
    assert page.text_content("#wf-next") == "Terminar"
    page.click("#wf-next")
    page.wait_for_selector("#wf-done-title")
    assert page.text_content("#wf-done-title") == "Gracias"
    assert page.is_visible("text=Descargar todo (zip)")
    shot(tab, "spanish-done", size)
    no_violations(tab)
    tab.close()
    assert WebformSubmission.objects.get().payload["address"]["city"] == "Laredo"
