"""The template admin's product pages in a real browser (headless Chromium, 1400 px wide), with
screenshots under test-artifacts/admin/ to look at."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import User
from templates_app.models import PdfTemplate
from tests.browser import admin_log_in
from tests.templates_app.conftest import ARTIFACTS, PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = ARTIFACTS / "admin"


def log_in(tab, live_server, user: User) -> None:
    admin_log_in(tab, live_server, user.username, PASSWORD)


def test_the_index_and_the_template_page_with_its_example_call(
    page, live_server, member: User, fw9_template: PdfTemplate, settings
) -> None:
    settings.PUBLIC_BASE_URL = live_server.url
    SHOTS.mkdir(parents=True, exist_ok=True)
    log_in(page, live_server, member)
    assert page.locator("#content-main caption a", has_text="PDF templates").count() == 1
    page.screenshot(path=str(SHOTS / "index.png"), full_page=True)

    page.goto(
        live_server.url + reverse("admin:templates_app_pdftemplate_change", args=[fw9_template.pk])
    )
    page.locator("#example-call").scroll_into_view_if_needed()
    page.click("#copy-curl")
    page.wait_for_selector("#copy-curl:text('Copied')")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == page.locator("#example-curl").text_content()
    assert copied.startswith("curl -s -u YOUR_API_KEY:")
    page.screenshot(path=str(SHOTS / "template-example-call.png"), full_page=True)


def test_upload_keeps_the_pdf_then_duplicate_and_replace(
    page, live_server, member: User, organization, other_organization, tmp_path
) -> None:
    from accounts.services import member_add
    from templates_app import services
    from tests.fixtures import PDFS
    from tests.templates_app.test_admin_template_tools import two_pages

    SHOTS.mkdir(parents=True, exist_ok=True)
    log_in(page, live_server, member)

    # One organization: it is preselected.
    page.goto(live_server.url + reverse("admin:templates_app_pdftemplate_add"))
    assert page.locator("#id_organization").input_value() == str(organization.pk)

    # Two: none is; forgetting it keeps the chosen PDF.
    member_add(organization=other_organization, user=member, role="admin")
    page.goto(live_server.url + reverse("admin:templates_app_pdftemplate_add"))
    assert page.locator("#id_organization").input_value() == ""
    page.set_input_files("#id_pdf", str(PDFS / "irs-fw9-2018.pdf"))
    page.click("input[name=_save]")
    page.wait_for_selector(".errornote")
    assert "Kept: irs-fw9-2018.pdf" in page.locator(".field-pdf").inner_text()
    page.screenshot(path=str(SHOTS / "upload-kept-pdf.png"), full_page=True)
    page.select_option("#id_organization", str(organization.pk))
    page.click("input[name=_save]")
    page.wait_for_selector(".messagelist .success")
    template = PdfTemplate.objects.get()
    assert template.title == "irs-fw9-2018"

    # Duplicate from the template's page.
    page.goto(
        live_server.url + reverse("admin:templates_app_pdftemplate_change", args=[template.pk])
    )
    page.click("text=Duplicate")
    page.wait_for_selector(".messagelist .success")
    copy = PdfTemplate.objects.exclude(pk=template.pk).get()
    assert copy.title == "irs-fw9-2018 (copy)"
    assert page.locator("#id_title").input_value() == copy.title
    page.screenshot(path=str(SHOTS / "duplicated.png"), full_page=True)

    # Replace the copy's PDF with a smaller page: the fields that do not fit are named.
    half = tmp_path / "half.pdf"
    half.write_bytes(two_pages((396, 612), "Half"))
    page.click("text=Replace PDF")
    page.wait_for_selector("#replace-pdf")
    page.screenshot(path=str(SHOTS / "replace-pdf.png"), full_page=True)
    page.set_input_files("#id_pdf", str(half))
    page.click("input[value='Replace the PDF']")
    page.wait_for_selector(".messagelist .warning")
    warning = page.locator(".messagelist .warning").inner_text()
    assert "did not fit the new PDF's pages and were removed" in warning
    kept = services.working_version(copy).spec
    assert kept["pages"][0]["width"] == 396
    assert 0 < len(kept["fields"]) < len(services.working_version(template).spec["fields"])
    page.screenshot(path=str(SHOTS / "replaced-pdf.png"), full_page=True)
