"""The signing page, a webform and the completion page in Arabic (right to left) and Japanese, in
Chromium at 1366×900 and on a phone (390×844) (issue 35): each page in the language, Arabic
mirrored (dir="rtl": the title where a right-to-left reader starts, the actions at the other
end), and axe finds nothing. Screenshots in test-artifacts/esign/ and test-artifacts/workflows/."""

from __future__ import annotations

from typing import Any

import pytest

from tests.axe import axe_violations
from tests.browser import DESKTOP, SIZES, Tab
from tests.esign.conftest import two_signer_packet
from tests.esign.test_signing_browser import SHOTS, refused_request, signers_of
from tests.esign.test_signing_spanish_browser import CREATE, complete_by_script
from tests.workflows.order_workflow import order_workflow
from tests.workflows.test_webform_browser import SHOTS as FORM_SHOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# What each language says where the tests look (from esign/locale and workflows/locale).
WORDS = {
    "ar": {
        "dir": "rtl",
        "finish": "إنهاء",
        "decline": "رفض",
        "progress": "الحقل 1 من 2",
        "adopt_title": "اعتمد توقيعك",
        "done": "تم",
        "copy": "نسختك",
        "signed": "لقد وقّعت. نزّل نسختك أدناه.",
        "first_name": "الاسم الأول",
        "next": "التالي",
        "required": "هذا الحقل مطلوب.",
    },
    "ja": {
        "dir": "ltr",
        "finish": "完了",
        "decline": "辞退",
        "progress": "フィールド 1 / 2",
        "adopt_title": "署名を採用",
        "done": "完了",
        "copy": "あなたの控え",
        "signed": "署名が完了しました。控えを下からダウンロードしてください。",
        "first_name": "名",
        "next": "次へ",
        "required": "この項目は必須です。",
    },
}


@pytest.fixture
def packet(graphql, settings, live_server) -> Any:
    settings.PUBLIC_BASE_URL = live_server.url

    def make(language: str) -> dict[str, str]:
        result = graphql(CREATE, {**two_signer_packet(), "language": language})
        assert "errors" not in result, result
        return signers_of(result["data"]["createEtchPacket"])

    return make


def shoot(tab: Tab, folder: Any, name: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def box(tab: Tab, selector: str) -> dict[str, float]:
    found = tab.page.locator(selector).first.bounding_box()
    assert found is not None, selector
    return found


def assert_mirrored(tab: Tab, language: str, start: str, end: str) -> None:
    """``start`` comes first in the reading direction: left of ``end`` in a left-to-right page,
    right of it in a right-to-left one."""
    first, second = box(tab, start), box(tab, end)
    if WORDS[language]["dir"] == "rtl":
        assert first["x"] > second["x"], (start, first, end, second)
    else:
        assert first["x"] < second["x"], (start, first, end, second)


TEXT_SIDES = """(element) => {
  const range = document.createRange();
  range.selectNodeContents(element);
  const text = range.getBoundingClientRect(), whole = element.getBoundingClientRect();
  return [text.left - whole.left, whole.right - text.right];
}"""


def assert_text_at_start(tab: Tab, language: str, selector: str) -> None:
    """The text of a wide element sits at its start: its right side in a right-to-left page."""
    left_gap, right_gap = tab.page.locator(selector).first.evaluate(TEXT_SIDES)
    if WORDS[language]["dir"] == "rtl":
        assert right_gap < 1 < left_gap, (selector, left_gap, right_gap)
    else:
        assert left_gap < 1 < right_gap, (selector, left_gap, right_gap)


@pytest.mark.parametrize("language", ["ar", "ja"])
def test_the_signing_page_and_its_done_state(browser, packet, sign_url, language) -> None:
    words = WORDS[language]
    url = sign_url(packet(language)["client"])
    for name, viewport, options in SIZES:
        tab = Tab(browser, viewport, expected=refused_request, locale="en-US", **options)
        tab.page.goto(url)
        tab.page.wait_for_selector("#signing[data-state=ready]")
        tab.page.wait_for_selector(".sg-page.is-rendered")
        assert tab.page.get_attribute("html", "lang") == language
        assert tab.page.get_attribute("html", "dir") == words["dir"]
        assert tab.page.inner_text("#sg-finish") == words["finish"]
        assert tab.page.inner_text("#sg-decline-open") == words["decline"]
        assert tab.page.inner_text("#sg-progress") == words["progress"]
        assert_mirrored(tab, language, ".sg-title", "#sg-finish")
        assert axe_violations(tab.page) == []
        shoot(tab, SHOTS, f"40-{language}-opens-{name}")

        tab.page.fill("#sg-value", "Directora")
        tab.page.click("#sg-next")
        tab.page.click("#sg-adopt-open")
        tab.page.wait_for_selector("#sg-adopt[open]")
        assert tab.page.inner_text("#sg-adopt-title") == words["adopt_title"]
        tab.page.fill("#sg-typed", "Ada Lovelace")
        assert axe_violations(tab.page) == []
        shoot(tab, SHOTS, f"41-{language}-adopt-{name}")
        if name == "desktop":
            tab.page.click("#sg-adopt-cancel")
            tab.close()
            continue
        tab.page.click("#sg-adopt-ok")
        tab.page.click("#sg-finish")
        tab.page.wait_for_selector("#signing[data-state=done]")
        assert tab.page.inner_text("#sg-result-title") == words["done"]
        assert tab.page.inner_text("#sg-copies-title") == words["copy"]
        assert axe_violations(tab.page) == []
        shoot(tab, SHOTS, f"42-{language}-done-{name}")
        tab.close()


@pytest.mark.parametrize("language", ["ar", "ja"])
def test_the_completion_page(browser, packet, sign_url, language) -> None:
    tab = Tab(browser, DESKTOP, expected=refused_request)
    tab.page.goto(sign_url(packet(language)["client"]))
    tab.page.wait_for_selector("#signing[data-state=ready]")
    legacy = complete_by_script(tab)
    for name, viewport, _options in SIZES:
        tab.page.set_viewport_size(viewport)
        response = tab.page.goto(legacy)
        assert response.status == 200
        assert tab.page.get_attribute("html", "dir") == WORDS[language]["dir"]
        assert tab.page.inner_text("h1") == WORDS[language]["done"]
        assert WORDS[language]["signed"] in tab.page.inner_text("main")
        assert axe_violations(tab.page) == []
        shoot(tab, SHOTS, f"43-{language}-completion-page-{name}")
    tab.close()


@pytest.mark.parametrize("language", ["ar", "ja"])
def test_a_webform_page(browser, live_server, organization, demo_template, language) -> None:
    order_workflow(organization, demo_template)
    words = WORDS[language]
    for name, viewport, options in SIZES:
        tab = Tab(browser, viewport, locale=language, **options)
        tab.page.goto(f"{live_server.url}/form/acme/order")
        assert tab.page.get_attribute("html", "lang") == language
        assert tab.page.get_attribute("html", "dir") == words["dir"]
        assert words["first_name"] in tab.page.locator("label").all_inner_texts()
        assert tab.page.inner_text("#wf-next") == words["next"]
        assert_text_at_start(tab, language, ".wf-field label >> nth=0")
        assert axe_violations(tab.page) == []
        shoot(tab, FORM_SHOTS, f"50-{language}-webform-{name}")
        # Nothing typed: the browser's check says so in the language.
        tab.page.click("#wf-next")
        assert words["required"] in tab.page.inner_text(".wf-shell")
        assert axe_violations(tab.page) == []
        shoot(tab, FORM_SHOTS, f"51-{language}-webform-refused-{name}")
        tab.close()
