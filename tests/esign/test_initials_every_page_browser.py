"""Initials on every page in Chromium (issue 51, item 3), at 1366×900 and on a phone (390×844): the
guide visits the signer's initials field on each page of a three-page document (each shown in
turn), one adopt of the initials fills all three, and the finished document carries them in each
page's corner. Screenshots in test-artifacts/esign/; axe finds nothing."""

from __future__ import annotations

import pytest

from esign.models import PacketDocument, Signer
from esign.packets.documents import document_pdf
from tests.axe import axe_violations
from tests.browser import TOUCH_SIZES, Tab
from tests.esign.conftest import CREATE
from tests.esign.test_initials_every_page import CORNER, initialled, signs
from tests.esign.test_roles_browser import link
from tests.esign.test_signing_browser import SHOTS, signers_of
from tests.pdfcheck import text_in_rect, words

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def current(tab: Tab) -> tuple[str, str | None]:
    return (
        tab.page.inner_text("#sg-progress"),
        tab.page.get_attribute(".sg-field.is-current", "data-key"),
    )


def in_view(tab: Tab) -> bool:
    box = tab.page.locator(".sg-field.is-current").bounding_box()
    size = tab.page.viewport_size
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= size["height"]


@pytest.mark.parametrize(("size", "viewport", "options"), TOUCH_SIZES)
def test_the_guide_visits_each_pages_initials_and_one_adopt_fills_them(
    browser, live_server, graphql, size, viewport, options
) -> None:
    variables = initialled(initialsOnEveryPage=True, signatureMode="text")
    del variables["signers"][1]["redirectURL"]
    packet = graphql(CREATE, variables)["data"]["createEtchPacket"]
    eids = signers_of(packet)
    done = signs("client", signature={"typed": "Ada Lovelace"}, values={"agreement/title1": "A"})
    assert done.status_code == 200, done.content
    # Without smooth scrolling, a field the guide shows is in view at once.
    tab = Tab(browser, viewport, reduced_motion="reduce", **options)
    tab.page.goto(link(live_server, "provider"))
    tab.page.wait_for_selector("#signing[data-state=ready]")

    # The guide's stops, in the documents' order: page 1's initials, page 2's signature and
    # initials, page 3's initials; Next shows each in turn.
    seen = [current(tab)]
    for _ in range(3):
        tab.page.click("#sg-next")
        seen.append(current(tab))
        assert in_view(tab), seen[-1]
    initials = [key for _, key in seen if key and key.startswith("agreement/initials-")]
    assert initials == [f"agreement/initials-provider-{n}" for n in (1, 2, 3)]
    assert [label for label, _ in seen] == [f"Field {n} of 4" for n in (1, 2, 3, 4)]

    # One adopt, from the last page's initials, fills every page's.
    tab.page.click("#sg-adopt-open")
    tab.page.fill("#sg-initials", "CB")
    tab.page.click("#sg-adopt-ok")
    assert tab.page.locator(".sg-type-initial.is-done").count() == 3
    assert tab.page.inner_text("#sg-count") == "3 of 4 completed"
    # The guide goes on to what is left: the signature.
    assert current(tab)[1] == "agreement/sig2"
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.locator('[data-key="agreement/initials-provider-1"]').scroll_into_view_if_needed()
    tab.page.screenshot(path=str(SHOTS / f"initials-every-page-{size}.png"))
    assert axe_violations(tab.page) == []
    tab.page.click("#sg-adopt-open")
    tab.page.click("#sg-adopt-ok")
    tab.page.click("#sg-finish")
    tab.page.wait_for_selector("#signing[data-state=done]")
    tab.close()

    assert Signer.objects.get(eid=eids["provider"]).status == "completed"
    document = PacketDocument.objects.get(packet__eid=packet["eid"])
    pages = words(document_pdf(document))
    assert [text_in_rect(page, CORNER, tolerance=2) for page in pages] == ["CB", "CB", "CB"]
