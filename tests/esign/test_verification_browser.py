"""The one-time code page in Chromium, at 1366×900 and on a phone (390×844), in English and in
the signer's Spanish: the link leads to it, the code sent by email is typed into its labelled
one-time-code field, and the signing page follows. Screenshots in test-artifacts/esign/; axe
finds nothing on it."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail

from tests.axe import axe_violations
from tests.browser import Tab
from tests.esign.conftest import CREATE, two_signer_packet
from tests.esign.test_signing_browser import SHOTS, refused_request

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def verified_signer(graphql, settings, live_server) -> Any:
    settings.PUBLIC_BASE_URL = live_server.url

    def make(language: str = "") -> str:
        variables = two_signer_packet()
        variables["signers"][0]["verify"] = {"method": "email"}
        if language:
            variables["signers"][0]["language"] = language
        result = graphql(CREATE, variables)
        assert "errors" not in result, result
        return result["data"]["createEtchPacket"]["documentGroup"]["signers"][0]["eid"]

    return make


@pytest.mark.parametrize(
    ("language", "heading", "send", "go"),
    [
        ("", "Enter your code to sign", "Send me a code", "Continue"),
        ("es", "Introduzca su código para firmar", "Enviarme un código", "Continuar"),
    ],
)
def test_the_code_page_leads_to_the_documents(
    browser, verified_signer, sign_url, language: str, heading: str, send: str, go: str
) -> None:
    signer_eid = verified_signer(language)
    for name, viewport, options in (
        ("phone", PHONE, {"is_mobile": True, "has_touch": True, "device_scale_factor": 2}),
        ("desktop", DESKTOP, {}),
    ):
        tab = Tab(browser, viewport, expected=refused_request, **options)
        tab.page.goto(sign_url(signer_eid))  # a new link each time: each asks for a code
        assert "/code?" in tab.page.url
        assert tab.page.inner_text("h1") == heading
        tab.page.get_by_role("button", name=send).click()
        field = tab.page.get_by_label("Code" if not language else "Código", exact=True)
        assert field.get_attribute("autocomplete") == "one-time-code"
        assert field.get_attribute("inputmode") == "numeric"
        SHOTS.mkdir(parents=True, exist_ok=True)
        shot = f"verify-code-{language or 'en'}-{name}.png"
        tab.page.screenshot(path=str(SHOTS / shot), full_page=True)
        assert axe_violations(tab.page) == []
        match = re.search(r"\b(\d{6})\b", mail.outbox[-1].body)
        assert match
        field.fill(match.group(1))
        tab.page.get_by_role("button", name=go).click()
        tab.page.wait_for_selector("#signing[data-state=ready]")
        tab.close()
