"""The admin's bulk send in Chromium: upload a CSV for a template, see the first rows and every
row's problems, send, watch the progress bar move while the task sends chunk by chunk, and
download each row's outcome as CSV (no formula runs in it). Desktop (1366 px) and phone (390 px),
axe finds nothing. In English and in Spanish: the admin is a page, so it speaks the browser's
language (Accept-Language, core.middleware.PageLanguageMiddleware), Django's words and ours alike;
the row problems createEtchPacket's parser finds stay the API's English. Screenshots in
test-artifacts/esign/bulk-*-{desktop,phone}.png (bulk-*-es-* in Spanish)."""

from __future__ import annotations

import csv
import io
from dataclasses import replace

import pytest

from accounts.models import Organization, User
from core.engine.template_spec import FieldSpec, Rect
from esign.bulk.sends import batch_send
from esign.models import BulkBatch, Packet
from templates_app.engine.demo import build_demo_template
from templates_app.models import PdfTemplate
from templates_app.services import template_create_with_spec
from tests.axe import axe_violations
from tests.browser import Tab, admin_log_in
from tests.esign.conftest import esign_staff
from tests.esign.test_signing_browser import SHOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
PASSWORD = "pw-bulk-123456789"

# What the person reads and clicks, in each language the test runs in (None: the browser's default,
# English). Row problems ("Must be an email address.") are the API's words in both.
WORDS = {
    "en": {
        "add": "Add bulk send",
        "template": "Template",
        "upload": "Upload and preview",
        "unused": "These columns fill nothing",
        "preview": "Preview: the first rows",
        "row 3": "Row 3, column email: Must be an email address.",
        "row 7 amount": "Row 7, column amount:",
        "columns": "The file's columns",
        "sample": "Download a sample CSV for Invoice",
        "count": "1 row cannot be sent as it is; 11 can.",
        "send": "Send 11 packets",
        "stop": "Stop sending",
        "progress": "Rows done: 5 of 12.",
        "completed": "Completed",
        "done": "Rows done: 12 of 12. Packets created: 10. Failed: 2.",
        "failed rows": "Failed rows",
        "row 7": "Row 7",
        "download": "Download the results (CSV)",
    },
    "es": {
        "add": "Añadir envío masivo",
        "template": "Plantilla",
        "upload": "Subir y previsualizar",
        "unused": "Estas columnas no rellenan nada",
        "preview": "Vista previa: las primeras filas",
        "row 3": "Fila 3, columna email: Must be an email address.",
        "row 7 amount": "Fila 7, columna amount:",
        "columns": "Las columnas del archivo",
        "sample": "Descargar un CSV de ejemplo para Invoice",
        "count": "1 fila no se puede enviar tal como está; 11 sí.",
        "send": "Enviar 11 paquetes",
        "stop": "Detener el envío",
        "progress": "Filas hechas: 5 de 12.",
        "completed": "Completado",
        "done": "Filas hechas: 12 de 12. Paquetes creados: 10. Fallidas: 2.",
        "failed rows": "Filas fallidas",
        "row 7": "Fila 7",
        "download": "Descargar los resultados (CSV)",
    },
}


def signable_template(organization: Organization) -> PdfTemplate:
    """The demo template with a signature field for the signer."""
    pdf, spec = build_demo_template()
    signature = FieldSpec(
        id="signature", alias="signature", type="signature", page=0, rect=Rect(54, 120, 200, 40)
    )
    spec = replace(spec, fields=(*spec.fields, signature))
    return template_create_with_spec(
        organization=organization, title="Invoice", pdf=pdf, spec=spec, publish=True
    )


@pytest.fixture
def staff(organization: Organization) -> User:
    return esign_staff(organization, password=PASSWORD)


def rows_csv() -> bytes:
    lines = [["name", "email", "title", "amount", "colour of sky"]]
    for n in range(1, 13):
        lines.append([f"Signer {n}", f"signer{n}@example.com", f"Invoice {n}", f"{n}0", "blue"])
    lines[3][1] = "not-an-email"  # row 3: cannot be sent
    lines[5][0] = '=HYPERLINK("http://evil.example")'  # row 5: a formula, kept as text
    lines[7][3] = "lots"  # row 7: its template refuses the amount when its packet is made
    out = io.StringIO()
    csv.writer(out).writerows(lines)
    return out.getvalue().encode()


def check(tab: Tab, name: str, *, full_page: bool = True) -> None:
    """axe finds nothing; the page fits its width; a screenshot."""
    assert axe_violations(tab.page, best_practice=True) == []
    width = tab.page.viewport_size["width"]
    assert tab.page.evaluate("document.documentElement.scrollWidth") <= width
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / f"bulk-{name}.png"), full_page=full_page)


def check_both(tab: Tab, name: str) -> None:
    """``check`` at desktop then phone size, back at desktop."""
    check(tab, f"{name}-desktop")
    tab.page.set_viewport_size(PHONE)
    check(tab, f"{name}-phone")
    tab.page.set_viewport_size(DESKTOP)


@pytest.mark.parametrize("language", ["en", "es"])
def test_upload_preview_send_progress_and_results(
    browser, live_server, staff: User, organization: Organization, settings, language: str
) -> None:
    settings.BULK_SEND_EMAILS_PER_SECOND = 4  # chunks of four rows (one email each)
    settings.BULK_SEND_CHUNK_SECONDS = 1
    words = WORDS[language]
    shot = "" if language == "en" else f"-{language}"  # bulk-preview-desktop, bulk-preview-es-…
    template = signable_template(organization)
    # The browser's language, as a person's is: Chromium sends it as Accept-Language.
    tab = Tab(browser, DESKTOP, **({} if language == "en" else {"locale": language}))
    admin_log_in(tab.page, live_server, staff.username, PASSWORD)
    tab.page.goto(live_server.url + "/admin/esign/bulkbatch/")
    assert tab.page.evaluate("document.documentElement.lang") == language
    tab.page.click(f"text={words['add']}")
    assert tab.page.inner_text("label[for=id_template]").startswith(words["template"])
    # The columns the file needs, and a sample: once the template is chosen, its own.
    columns = tab.page.locator(".bulk-template-columns:visible")
    tab.page.wait_for_load_state("load")  # bulk_upload.js has run
    assert columns.count() == 0
    tab.page.select_option("#id_template", label=template.title)
    assert tab.page.inner_text(".bulk-columns h2") == words["columns"]
    assert columns.count() == 1
    listed = columns.locator("li code").all_inner_texts()
    assert listed[:2] == ["name", "email"]
    assert len(set(listed)) == len(listed)  # a field named name or email is the signer's
    assert {"title", "amount"} <= set(listed)
    assert "signature" not in listed
    with tab.page.expect_download() as sample:
        columns.get_by_role("link", name=words["sample"]).click()
    with open(sample.value.path(), encoding="utf-8-sig") as sample_file:  # noqa: PTH123
        sample_rows = list(csv.reader(sample_file))
    assert sample_rows[0] == listed
    assert len(sample_rows) == 2
    tab.page.fill("#id_name", "Invoice {{title}}")
    tab.page.set_input_files(
        "#id_file", files=[{"name": "rows.csv", "mimeType": "text/csv", "buffer": rows_csv()}]
    )
    check_both(tab, f"upload{shot}")
    tab.page.click(f"input[value='{words['upload']}']")

    # The preview: the first ten rows, and every row's problems; nothing sent.
    assert words["unused"] in tab.page.inner_text(".messagelist")
    assert "colour of sky" in tab.page.inner_text(".messagelist")
    assert tab.page.inner_text(".bulk-send h2 >> nth=0") == words["preview"]
    body = tab.page.locator("table.bulk-rows tbody tr")
    assert body.count() == 10
    assert tab.page.locator("table.bulk-rows tbody tr.has-problems").count() == 1
    problems = tab.page.inner_text(".bulk-problem-list")
    assert words["row 3"] in problems
    assert words["count"] in tab.page.inner_text(".bulk-problem-count")
    assert Packet.objects.count() == 0
    check_both(tab, f"preview{shot}")

    # Send: the rows go out chunk by chunk (run here as the worker would); the bar follows.
    tab.page.click(f"button:text-is('{words['send']}')")
    bar = tab.page.locator("#bulk-progress-bar")
    assert bar.get_attribute("value") == "1"  # the row with a problem: failed at once
    assert bar.get_attribute("max") == "12"
    assert tab.page.locator(f"button:text-is('{words['stop']}')").count() == 1
    batch = BulkBatch.objects.get()
    assert batch.status == "sending"
    check(tab, f"sending{shot}-desktop")
    batch_send(batch_id=batch.pk)  # four rows
    tab.page.wait_for_function(
        "() => document.getElementById('bulk-progress-bar').value === 5", timeout=10_000
    )
    assert words["progress"] in tab.page.inner_text("#bulk-progress-text")
    check_both(tab, f"progress{shot}")
    while BulkBatch.objects.get().status == "sending":
        batch_send(batch_id=batch.pk)
    # Done: the page loads again by itself with each row's outcome and the download.
    tab.page.wait_for_selector(
        f".field-status .readonly:text-is('{words['completed']}')", timeout=10_000
    )
    assert tab.page.locator(".bulk-progress").count() == 1
    assert tab.page.inner_text("#bulk-progress-text") == words["done"]
    assert words["failed rows"] in tab.page.inner_text(".bulk-send")
    failed = tab.page.inner_text(".bulk-problem-list")
    assert words["row 3"] in failed
    assert words["row 7"] in failed
    assert words["row 7 amount"] in failed
    assert "data.payloads" not in failed
    assert "signers.0" not in tab.page.inner_text(".bulk-send")
    check_both(tab, f"completed{shot}")

    with tab.page.expect_download() as download:
        tab.page.click(f"text={words['download']}")
    text = open(download.value.path(), encoding="utf-8-sig").read()  # noqa: PTH123, SIM115
    table = list(csv.reader(io.StringIO(text)))
    assert table[0][:4] == ["row", "status", "packetEid", "errors"]
    assert [line[1] for line in table[1:]] == ["created"] * 2 + ["failed"] + ["created"] * 3 + [
        "failed"
    ] + ["created"] * 5
    assert table[3][3] == "column email: Must be an email address."
    assert table[5][4] == '\'=HYPERLINK("http://evil.example")'
    eids = {line[2] for line in table[1:] if line[1] == "created"}
    assert eids == set(Packet.objects.values_list("eid", flat=True))
    assert Packet.objects.get(eid=table[1][2]).name == "Invoice Invoice 1"
    assert len(tab.errors) == 0, tab.errors
    tab.close()
