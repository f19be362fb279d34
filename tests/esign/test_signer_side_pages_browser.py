"""The pages around signing (issue 49, item 6), in Chromium on a phone (390×844) and at
1366×900, in English, Arabic and Japanese:

- a group member whose group signed without them reads information, not an error: no red, and
  the page's title says what happened (as its heading does);
- the one-time code page names the packet and who sent it, and has the language menu, which
  changes the page's language and keeps the link;
- on a phone, right after signing, "Your copy" follows "You signed" with no empty screen
  between them.

Screenshots in test-artifacts/esign/; axe finds nothing."""

from __future__ import annotations

from typing import Any

import pytest

from esign.links.tokens import signer_token_issue
from esign.models import Packet, Signer
from tests.axe import axe_violations
from tests.browser import Tab
from tests.esign.conftest import CREATE, first_signer_created, to_the_adoption, two_signer_packet
from tests.esign.test_signing_browser import SHOTS, refused_request
from tests.esign.test_signing_groups import group_packet, signed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
PHONE_OPTIONS = {"is_mobile": True, "has_touch": True, "device_scale_factor": 2}
SIZES = (("phone", PHONE, PHONE_OPTIONS), ("desktop", {"width": 1366, "height": 900}, {}))
LANGUAGES = ["en", "ar", "ja"]
# The danger red of the signer's pages (sign.css --danger, #b91c1c; #991b1b on hover).
REDS = {"rgb(185, 28, 28)", "rgb(153, 27, 27)"}
ENGLISH_HEADING = "Enter your code to sign"
JAPANESE_HEADING = "署名するにはコードを入力してください"


@pytest.fixture
def public(settings: Any, live_server: Any) -> Any:
    settings.PUBLIC_BASE_URL = live_server.url
    return live_server


def shoot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_skipped_group_member_is_told_what_happened_not_warned(
    browser: Any, graphql: Any, public: Any, language: str
) -> None:
    variables = group_packet()
    for person in variables["signers"]:
        person["language"] = None if language == "en" else language
    assert "errors" not in graphql(CREATE, variables)
    assert signed("client", values={"agreement/title1": "Chief Analyst"}).status_code == 200
    assert signed("witness").status_code == 200
    turing = Signer.objects.get(alias_id="turing")
    url = f"{public.url}/api/etch/verify/{turing.eid}?token={signer_token_issue(signer=turing)}"
    assert signed("somerville").status_code == 200

    for name, viewport, options in SIZES:
        tab = Tab(browser, viewport, expected=refused_request, **options)
        page = tab.page
        page.goto(url)
        main = page.locator("main.sg-error")
        assert main.get_attribute("data-reason") == "groupSigned"
        assert page.title() == page.inner_text("h1")
        colours = main.evaluate(
            "el => [...el.querySelectorAll('*')].map((e) => getComputedStyle(e).color)"
        )
        assert not REDS & set(colours), colours
        assert "Mary Somerville" in main.inner_text()
        shoot(page, f"group-skipped-{language}-{name}")
        assert axe_violations(page) == []
        tab.close()


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_code_page_names_the_packet_and_sender_and_has_the_language_menu(
    browser: Any, graphql: Any, sign_url: Any, public: Any, language: str
) -> None:
    variables = two_signer_packet(name="Lease of the flat")
    variables["signers"][0]["verify"] = {"method": "email"}
    if language != "en":
        variables["signers"][0]["language"] = language
    result = graphql(CREATE, variables)
    assert "errors" not in result, result
    created = result["data"]["createEtchPacket"]
    sender = Packet.objects.get(eid=created["eid"]).organization.name
    signer_eid = created["documentGroup"]["signers"][0]["eid"]
    for name, viewport, options in SIZES:
        tab = Tab(browser, viewport, expected=refused_request, **options)
        page = tab.page
        page.goto(sign_url(signer_eid))
        assert "/code?" in page.url
        about = page.locator(".sg-code-about")
        assert about.locator("bdi").all_inner_texts() == [sender, "Lease of the flat"]
        menu = page.locator("#lang-menu-select")
        assert menu.is_visible()
        shoot(page, f"code-page-{language}-{name}")
        assert axe_violations(page) == []
        # The menu changes the page's language and keeps the link.
        chosen = "ja" if language != "ja" else "en"
        menu.select_option(chosen)
        page.locator(".lang-menu button").click()
        page.wait_for_load_state()
        assert page.get_attribute("html", "lang") == chosen
        assert page.inner_text("h1") == (JAPANESE_HEADING if chosen == "ja" else ENGLISH_HEADING)
        assert "/code?" in page.url
        assert page.locator(".sg-code-about bdi").first.inner_text() == sender
        tab.close()


@pytest.mark.parametrize("language", LANGUAGES)
def test_your_copy_follows_you_signed_on_a_phone(
    browser: Any, graphql: Any, sign_url: Any, public: Any, language: str
) -> None:
    signer_eid, _ = first_signer_created(graphql, language)
    tab = Tab(browser, PHONE, expected=refused_request, **PHONE_OPTIONS)
    page = tab.page
    page.goto(sign_url(signer_eid))
    page.wait_for_selector("#signing[data-state=ready]")
    to_the_adoption(page)
    page.press("#sg-typed", "Enter")
    page.wait_for_selector("#sg-adopt", state="hidden")
    page.click("#sg-finish")
    page.wait_for_selector("#signing[data-state=done]")
    page.wait_for_selector("#sg-copies-list a")
    said = page.locator("#sg-result-text").bounding_box()
    copy = page.locator("#sg-copies").bounding_box()
    gap = copy["y"] - (said["y"] + said["height"])
    assert 0 <= gap <= 40, gap
    assert copy["y"] + copy["height"] <= PHONE["height"]  # all of it on the first screen
    # Nor above them: "Done" comes right under the header.
    header = page.locator(".sg-header").bounding_box()
    title = page.locator("#sg-result-title").bounding_box()
    assert title["y"] - (header["y"] + header["height"]) <= 120
    shoot(page, f"done-copy-{language}-phone")
    assert axe_violations(page) == []
    tab.close()
