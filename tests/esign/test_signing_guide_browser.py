"""The signing page's guide in a real browser: it visits every field of the signer, a checkbox
too. A field the signer must fill (a signature, a text) stays to do until filled; a checkbox
may stay unchecked, but only once the guide has shown it: neither adopting a signature nor
Finish passes over it."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings

from esign.models import Signer
from tests.browser import Tab
from tests.esign.conftest import two_signer_packet
from tests.esign.test_signing_browser import SHOTS, signers_of

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 860}


def field(field_id: str, kind: str, y: float) -> dict[str, Any]:
    return {
        "id": field_id,
        "type": kind,
        "pageNum": 0,
        "rect": {"x": 72, "y": y, "width": 200, "height": 30},
    }


def guide_packet(create_packet: Any) -> dict[str, str]:
    """Signer 1: a signature, a checkbox, a text (top to bottom); signer 2: a text, then a
    checkbox."""
    variables = two_signer_packet()
    variables["files"][0]["fields"] = [
        field("sig", "signature", 650),
        field("agree", "checkbox", 550),
        field("role", "shortText", 450),
        field("company", "shortText", 350),
        field("news", "checkbox", 250),
    ]
    variables["signers"][0]["fields"] = [
        {"fileId": "agreement", "fieldId": name} for name in ("sig", "agree", "role")
    ]
    variables["signers"][1]["fields"] = [
        {"fileId": "agreement", "fieldId": name} for name in ("company", "news")
    ]
    del variables["signers"][1]["redirectURL"]
    packet = create_packet(files=variables["files"], signers=variables["signers"])
    return signers_of(packet)


def current(tab: Tab) -> tuple[str, str | None]:
    return (
        tab.page.inner_text("#sg-progress"),
        tab.page.get_attribute(".sg-field.is-current", "data-key"),
    )


def test_the_guide_visits_a_checkbox_after_adopting_and_before_finishing(
    browser, live_server, create_packet, sign_url
) -> None:
    eids = guide_packet(create_packet)
    tab = Tab(browser, DESKTOP)
    tab.page.goto(sign_url(eids["client"]).replace(settings.PUBLIC_BASE_URL, live_server.url))
    tab.page.wait_for_selector("#signing[data-state=ready]")
    assert current(tab) == ("Field 1 of 3", "agreement/sig")
    assert tab.page.inner_text("#sg-count") == "0 of 3 completed"
    tab.page.click("#sg-adopt-open")
    tab.page.click("#sg-adopt-ok")
    # Adopting on field 1 goes on to the checkbox, field 2, not past it to field 3.
    assert current(tab) == ("Field 2 of 3", "agreement/agree")
    assert tab.page.is_visible("#sg-value[type=checkbox]")
    assert tab.page.inner_text("#sg-count") == "2 of 3 completed"  # shown: it may stay unchecked
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / "guide-checkbox-after-adopting-desktop.png"))
    tab.page.click("#sg-next")
    assert current(tab) == ("Field 3 of 3", "agreement/role")
    tab.page.fill("#sg-value", "Chief Analyst")
    tab.page.click("#sg-finish")
    tab.page.wait_for_selector("#signing[data-state=done]")
    tab.close()
    assert Signer.objects.get(eid=eids["client"]).values == {
        "agreement/agree": False,
        "agreement/role": "Chief Analyst",
    }

    tab = Tab(browser, DESKTOP)
    tab.page.goto(sign_url(eids["provider"]).replace(settings.PUBLIC_BASE_URL, live_server.url))
    tab.page.wait_for_selector("#signing[data-state=ready]")
    assert current(tab) == ("Field 1 of 2", "agreement/company")
    tab.page.fill("#sg-value", "Analytical Engines Ltd")
    assert tab.page.inner_text("#sg-count") == "1 of 2 completed"
    # Finish before the guide has shown the checkbox: the guide shows it instead of finishing.
    tab.page.click("#sg-finish")
    assert current(tab) == ("Field 2 of 2", "agreement/news")
    assert tab.page.get_attribute("#signing", "data-state") == "ready"
    assert tab.page.is_hidden("#sg-field-error")  # nothing is wrong with leaving it unchecked
    assert Signer.objects.get(eid=eids["provider"]).status != "completed"
    tab.page.check("#sg-value")
    tab.page.click("#sg-finish")
    tab.page.wait_for_selector("#signing[data-state=done]")
    tab.close()
    assert Signer.objects.get(eid=eids["provider"]).values == {
        "agreement/company": "Analytical Engines Ltd",
        "agreement/news": True,
    }


def test_the_list_of_fields_names_the_document_of_each_when_there_are_several(
    browser, live_server, create_packet, sign_url
) -> None:
    variables = two_signer_packet()
    agreement = variables["files"][0]
    annex = {
        **agreement,
        "id": "annex",
        "title": "Annex",
        "fields": [field("annexSig", "signature", 650)],
    }
    agreement["fields"] = [field("sig", "signature", 650)]
    signer = {
        **variables["signers"][0],
        "fields": [
            {"fileId": "agreement", "fieldId": "sig"},
            {"fileId": "annex", "fieldId": "annexSig"},
        ],
    }
    packet = create_packet(files=[agreement, annex], signers=[signer])
    url = sign_url(signers_of(packet)["client"]).replace(settings.PUBLIC_BASE_URL, live_server.url)
    for name, viewport, device in (
        ("desktop", DESKTOP, {}),
        ("phone", {"width": 390, "height": 844}, {"is_mobile": True, "has_touch": True}),
    ):
        tab = Tab(browser, viewport, **device)
        tab.page.goto(url)
        tab.page.wait_for_selector("#signing[data-state=ready]")
        assert tab.page.locator(".sg-fieldlist-label").all_inner_texts() == [
            "Signature",
            "Signature",
        ]
        assert tab.page.locator(".sg-fieldlist-where").all_inner_texts() == [
            "page 1 of “Services agreement”",
            "page 1 of “Annex”",
        ]
        SHOTS.mkdir(parents=True, exist_ok=True)
        tab.page.screenshot(path=str(SHOTS / f"fieldlist-two-documents-{name}.png"))
        tab.close()

    # With one document, its name would only repeat: the page alone.
    eids = guide_packet(create_packet)
    tab = Tab(browser, DESKTOP)
    tab.page.goto(sign_url(eids["client"]).replace(settings.PUBLIC_BASE_URL, live_server.url))
    tab.page.wait_for_selector("#signing[data-state=ready]")
    assert tab.page.locator(".sg-fieldlist-where").all_inner_texts() == ["page 1"] * 3
    tab.close()
