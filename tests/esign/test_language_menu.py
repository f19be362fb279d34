"""The language menu (issue 35, item 6): the signing page and the webform pages carry a small form
(a labelled <select> of the 16 languages, each named in itself, and a button) that reloads the
page in the chosen language. The choice wins over the browser's Accept-Language and the packet's
language; on the signing page it becomes the signer's ``language`` (so their next pages and their
emails follow it), on a webform a cookie keeps it for the next pages."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from esign.links.emails import _message
from esign.models import Signer, SignerEmail
from tests.axe import axe_violations
from tests.browser import Tab
from tests.esign.conftest import token_of, two_signer_packet
from tests.esign.test_signer_language import create, signers_of
from tests.esign.test_signing_browser import SHOTS, refused_request
from tests.workflows.order_workflow import order_workflow
from tests.workflows.test_webform_browser import SHOTS as FORM_SHOTS

DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}


def spanish_signer(graphql: Any) -> Signer:
    """The first signer (embedded) of a packet in Spanish."""
    variables = two_signer_packet()
    result = create(graphql, language="es", signers=variables["signers"])
    return Signer.objects.get(eid=signers_of(result)["client"])


def menu_options(html: str) -> list[tuple[str, str]]:
    menu = re.search(r'<form class="lang-menu".*?</form>', html, re.DOTALL)
    assert menu, "no language menu"
    return re.findall(r'<option value="([\w-]+)" lang="[\w-]+"( selected)?>', menu.group(0))


def test_the_signing_page_menu_lists_every_language_and_keeps_the_token(graphql, sign_url) -> None:
    signer = spanish_signer(graphql)
    token = token_of(sign_url(signer.eid))

    html = Client().get(f"/api/etch/verify/{signer.eid}?token={token}").content.decode()

    options = menu_options(html)
    assert [code for code, _ in options] == [code for code, _ in settings.LANGUAGES]
    assert [code for code, selected in options if selected] == ["es"]  # the packet's language
    assert f'<input type="hidden" name="token" value="{token}">' in html
    assert '<label for="lang-menu-select">Idioma</label>' in html
    assert ">English</option>" in html  # each named in itself, not in the page's language
    assert ">日本語</option>" in html
    assert ">العربيّة</option>" in html


def test_the_signers_choice_wins_and_is_kept_for_their_pages_and_emails(graphql, sign_url) -> None:
    signer = spanish_signer(graphql)
    page = f"/api/etch/verify/{signer.eid}?token={token_of(sign_url(signer.eid))}"
    browser = Client(HTTP_ACCEPT_LANGUAGE="de-DE")

    chosen = browser.get(f"{page}&lang=ja").content.decode()

    assert '<html lang="ja" dir="ltr">' in chosen
    assert 'id="sg-finish">完了</button>' in chosen
    signer.refresh_from_db()
    assert signer.language == "ja"
    # The next visit, without ?lang=: still Japanese, whatever the browser and the packet say.
    assert '<html lang="ja" dir="ltr">' in browser.get(page).content.decode()
    subject, body = _message(SignerEmail(signer=signer, kind=SignerEmail.Kind.RESEND), "https://x")
    assert subject == "署名のお願い：Services agreement"
    assert "に署名するための新しいリンクです。" in body


def test_an_unknown_choice_changes_nothing(graphql, sign_url) -> None:
    signer = spanish_signer(graphql)
    page = f"/api/etch/verify/{signer.eid}?token={token_of(sign_url(signer.eid))}"

    html = Client().get(f"{page}&lang=xx").content.decode()

    assert '<html lang="es" dir="ltr">' in html
    signer.refresh_from_db()
    assert signer.language == ""


def test_a_webform_menu_choice_wins_over_the_browser_and_is_kept(
    organization, demo_template
) -> None:
    order_workflow(organization, demo_template)
    browser = Client(HTTP_ACCEPT_LANGUAGE="es-MX")

    chosen = browser.get("/form/acme/order?lang=fr")

    html = chosen.content.decode()
    assert '<html lang="fr" dir="ltr">' in html
    assert 'id="wf-next">Suivant</button>' in html
    assert [code for code, selected in menu_options(html) if selected] == ["fr"]
    assert chosen.cookies[settings.LANGUAGE_COOKIE_NAME].value == "fr"
    later = browser.get("/form/acme/order").content.decode()
    assert '<html lang="fr" dir="ltr">' in later
    assert '<html lang="he" dir="rtl">' in browser.get("/form/acme/order?lang=he").content.decode()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_menus_in_the_browser(
    browser, graphql, sign_url, settings, live_server, organization, demo_template
) -> None:
    settings.PUBLIC_BASE_URL = live_server.url
    signer = spanish_signer(graphql)
    url = sign_url(signer.eid)
    order_workflow(organization, demo_template)
    for name, viewport, options in (
        ("desktop", DESKTOP, {}),
        ("phone", PHONE, {"is_mobile": True, "has_touch": True, "device_scale_factor": 2}),
    ):
        tab = Tab(browser, viewport, expected=refused_request, locale="en-US", **options)
        tab.page.goto(url)
        tab.page.wait_for_selector("#signing[data-state=ready]")
        tab.page.select_option("#lang-menu-select", "ar")
        tab.page.click(".lang-menu button")
        tab.page.wait_for_selector("html[lang=ar]")
        tab.page.wait_for_selector("#signing[data-state=ready]")
        assert tab.page.get_attribute("html", "dir") == "rtl"
        assert tab.page.inner_text("#sg-finish") == "إنهاء"
        assert axe_violations(tab.page) == []
        SHOTS.mkdir(parents=True, exist_ok=True)
        tab.page.screenshot(path=str(SHOTS / f"44-language-menu-arabic-{name}.png"))

        tab.page.goto(f"{live_server.url}/form/acme/order")
        tab.page.select_option("#lang-menu-select", "ja")
        tab.page.click(".lang-menu button")
        tab.page.wait_for_selector("html[lang=ja]")
        assert tab.page.inner_text("#wf-next") == "次へ"
        assert axe_violations(tab.page) == []
        FORM_SHOTS.mkdir(parents=True, exist_ok=True)
        tab.page.screenshot(path=str(FORM_SHOTS / f"52-language-menu-japanese-{name}.png"))
        tab.close()
    signer.refresh_from_db()
    assert signer.language == "ar"
