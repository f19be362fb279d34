"""Signing groups and witnesses in Chromium, at 1366×900 and on a phone (390×844), in English
and in the signers' Spanish: a group member's link after another member signed for the group
says who signed and offers nothing to sign; a witness's page says whom they witness; a member's
page says how many of the group sign. Screenshots in test-artifacts/esign/; axe finds nothing."""

from __future__ import annotations

from typing import Any

import pytest

from esign.links.tokens import signer_token_issue
from esign.models import Signer
from tests.axe import axe_violations
from tests.browser import TOUCH_SIZES, Tab
from tests.esign.conftest import CREATE
from tests.esign.test_signing_browser import SHOTS, refused_request
from tests.esign.test_signing_groups import group_packet, signed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def group_packet_in(graphql: Any, settings: Any, live_server: Any) -> Any:
    settings.PUBLIC_BASE_URL = live_server.url

    def make(language: str) -> str:
        variables = group_packet()
        for person in variables["signers"]:
            person["language"] = language or None
        result = graphql(CREATE, variables)
        assert "errors" not in result, result
        return result["data"]["createEtchPacket"]["eid"]

    return make


def link(live_server: Any, person: Signer) -> str:
    return (
        f"{live_server.url}/api/etch/verify/{person.eid}?token={signer_token_issue(signer=person)}"
    )


def ready_tab(browser: Any, live_server: Any, viewport: dict, options: dict, person: Signer) -> Tab:
    """A tab of ``viewport`` (and context ``options``) on ``person``'s link, the page ready."""
    tab = Tab(browser, viewport, expected=refused_request, **options)
    tab.page.goto(link(live_server, person))
    tab.page.wait_for_selector("#signing[data-state=ready]")
    return tab


@pytest.mark.parametrize(
    ("language", "heading", "said", "nothing_more"),
    [
        (
            "",
            "Your group's step is signed",
            "Mary Somerville already signed this step for your group.",
            "Nothing more is needed from you",
        ),
        (
            "es",
            "El paso de su grupo está firmado",
            "Mary Somerville ya firmó este paso por su grupo.",
            "No se necesita nada más de usted",
        ),
    ],
)
def test_a_members_link_after_another_signed_says_who_and_signs_nothing(
    browser: Any,
    live_server: Any,
    group_packet_in: Any,
    language: str,
    heading: str,
    said: str,
    nothing_more: str,
) -> None:
    group_packet_in(language)
    assert signed("client", values={"agreement/title1": "Chief Analyst"}).status_code == 200
    assert signed("witness").status_code == 200
    turing = Signer.objects.get(alias_id="turing")
    url = link(live_server, turing)  # the link of her email, before anyone of the group signed
    assert signed("somerville").status_code == 200

    for name, viewport, options in TOUCH_SIZES:
        tab = Tab(browser, viewport, expected=refused_request, **options)
        tab.page.goto(url)
        assert tab.page.inner_text("h1") == heading
        main = tab.page.locator("main.sg-error")
        assert main.get_attribute("data-reason") == "groupSigned"
        text = main.inner_text()
        assert said in text
        assert nothing_more in text
        assert tab.page.locator("#sg-finish, form, button").count() == 0  # nothing to sign
        SHOTS.mkdir(parents=True, exist_ok=True)
        tab.page.screenshot(
            path=str(SHOTS / f"group-signed-by-another-{language or 'en'}-{name}.png"),
            full_page=True,
        )
        assert axe_violations(tab.page) == []
        tab.close()
    assert Signer.objects.get(alias_id="turing").status == "skipped"


@pytest.mark.parametrize(
    ("language", "witnessing", "needed"),
    [
        ("", "As a witness to the signature of Ada Lovelace", "signatures needed, 1 of 3"),
        ("es", "Como testigo de la firma de Ada Lovelace", "firmas necesarias, 1 de 3"),
    ],
)
def test_the_witness_and_a_member_see_what_they_sign_for(
    browser: Any,
    live_server: Any,
    group_packet_in: Any,
    language: str,
    witnessing: str,
    needed: str,
) -> None:
    group_packet_in(language)
    assert signed("client", values={"agreement/title1": "Chief Analyst"}).status_code == 200
    witness = Signer.objects.get(alias_id="witness")
    for name, viewport, options in TOUCH_SIZES:
        tab = ready_tab(browser, live_server, viewport, options, witness)
        assert witnessing in tab.page.locator(".sg-role").inner_text()
        tab.page.screenshot(path=str(SHOTS / f"witness-{language or 'en'}-{name}.png"))
        assert axe_violations(tab.page) == []
        tab.close()

    assert signed("witness").status_code == 200
    member = Signer.objects.get(alias_id="babbage")
    for name, viewport, options in TOUCH_SIZES:
        tab = ready_tab(browser, live_server, viewport, options, member)
        assert needed in tab.page.locator(".sg-role").inner_text()
        assert tab.page.locator("#sg-finish").is_visible()
        tab.page.screenshot(path=str(SHOTS / f"group-member-{language or 'en'}-{name}.png"))
        assert axe_violations(tab.page) == []
        tab.close()
