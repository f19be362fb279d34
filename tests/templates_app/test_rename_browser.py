"""The "Rename fields" page in a real browser (headless Debian Chromium, Playwright): from the
template's admin page, rename two fields of the imported W-9 in the table, save, and fill the
template through the API with the new aliases."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from templates_app import services
from templates_app.models import PdfTemplate
from tests.browser import admin_log_in
from tests.pdfcheck import text_in_rect, words
from tests.templates_app.conftest import ARTIFACTS, PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def tab(browser, live_server) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(15_000)
    yield page
    context.close()
    assert errors == []


def log_in(tab, live_server, user: User) -> None:
    admin_log_in(tab, live_server, user.username, PASSWORD)


def test_rename_two_fields_in_the_table_and_fill_by_the_new_aliases(
    tab, live_server, member: User, fw9_template: PdfTemplate, api_client: Client
) -> None:
    log_in(tab, live_server, member)
    tab.goto(
        live_server.url + reverse("admin:templates_app_pdftemplate_change", args=[fw9_template.pk])
    )
    tab.click("text=Rename fields")
    tab.wait_for_selector("#rename-fields")
    assert tab.locator("#rename-fields tbody tr").count() == 22
    assert tab.input_value("#alias-f1") == "name"
    assert tab.input_value("#alias-f18") == "socialSecurityNumber"

    tab.fill("#alias-f1", "payeeName")
    tab.get_by_label("Alias of field 18: Social security number").fill("ssnArea")
    ARTIFACTS.mkdir(exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / "rename-fields-before-save.png"))
    tab.click("text=Save aliases")
    tab.wait_for_selector(".messagelist .success")

    assert tab.locator(".messagelist .success").inner_text() == "Renamed 2 aliases."
    assert tab.input_value("#alias-f1") == "payeeName"
    tab.screenshot(path=str(ARTIFACTS / "rename-fields.png"), full_page=True)

    spec = services.version_spec(services.working_version(fw9_template))
    by_alias = {field.alias: field for field in spec.fields}
    assert {"payeeName", "ssnArea"} <= set(by_alias)
    assert "name" not in by_alias
    response = api_client.post(
        f"/api/v1/fill/{fw9_template.eid}.pdf?versionNumber=-1",
        data=json.dumps({"data": {"payeeName": "Grace Hopper", "ssnArea": "987", "name": "x"}}),
        content_type="application/json",
    )
    assert response.status_code == 200, response.content[:300]
    page = words(response.content)[0]
    assert text_in_rect(page, by_alias["payeeName"].rect.to_json()) == "Grace Hopper"
    assert text_in_rect(page, by_alias["ssnArea"].rect.to_json()).replace(" ", "") == "987"
