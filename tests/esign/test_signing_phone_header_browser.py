"""The signing page's header on a phone, and titles and names written in another direction than
the page's (issue 49, items 1 and 3), in Chromium on a phone (390×844, DPR 3) and at 1366×900,
in English, Arabic and Japanese.

On a phone the packet's long title is shown whole (on its own row, not squeezed beside the
buttons and cut), Decline looks like a button, the six fields are one row of chips that
scrolls sideways, and the first page starts in the top third of the screen. Every inserted
title and name is isolated (<bdi>): on an Arabic page an English document's download button
reads « Invoice » then (PDF), in that order from the right, on the signing page and on the
completion page. Screenshots in test-artifacts/esign/; axe finds nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from esign.links.tokens import signer_done_key
from esign.models import Signer
from tests.axe import axe_violations
from tests.browser import Tab
from tests.esign.conftest import CREATE, two_signer_packet
from tests.esign.test_signing_browser import SHOTS, refused_request

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
PHONE_OPTIONS = {"is_mobile": True, "has_touch": True, "device_scale_factor": 3}
DESKTOP = {"width": 1366, "height": 900}
SIZES = (("phone", PHONE, PHONE_OPTIONS), ("desktop", DESKTOP, {}))
TITLE = "Multi review multi_phone packet for the quarterly services agreement"
DIRECTION = {"en": "ltr", "ar": "rtl", "ja": "ltr"}

# Where, on screen, the part of an element's text that reads ``part`` is: its box.
TEXT_BOX = """([element, part]) => {
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  let text = "";
  const nodes = [];
  while (walker.nextNode()) {
    nodes.push([walker.currentNode, text.length]);
    text += walker.currentNode.data;
  }
  const start = text.indexOf(part);
  if (start < 0) return null;
  const end = start + part.length;
  const range = document.createRange();
  for (const [node, at] of nodes) {
    if (at <= start && start <= at + node.data.length) range.setStart(node, start - at);
    if (at <= end && end <= at + node.data.length) { range.setEnd(node, end - at); break; }
  }
  const r = range.getBoundingClientRect();
  return { left: r.left, right: r.right, top: r.top };
}"""


def six_field_packet(language: str) -> dict[str, Any]:
    """The two-signer packet with a long title, its document named "Invoice", and four more text
    fields for the first signer: six fields, six chips."""
    variables = two_signer_packet(name=TITLE)
    variables["files"][0]["title"] = "Invoice"
    fields = variables["files"][0]["fields"]
    for index in range(4):
        rect = {"x": 72, "y": 420 - 40 * index, "width": 200, "height": 20}
        fields.append({"id": f"more{index}", "type": "shortText", "pageNum": 0, "rect": rect})
        variables["signers"][0]["fields"].append({"fileId": "agreement", "fieldId": f"more{index}"})
    if language != "en":
        variables["signers"][0]["language"] = language
    return variables


@pytest.fixture
def signer_link(graphql: Any, sign_url: Any, live_server: Any, settings: Any) -> Any:
    settings.PUBLIC_BASE_URL = live_server.url

    def make(language: str) -> tuple[str, str]:
        result = graphql(CREATE, six_field_packet(language))
        assert "errors" not in result, result
        eid = result["data"]["createEtchPacket"]["documentGroup"]["signers"][0]["eid"]
        return eid, sign_url(eid)

    return make


def assert_isolated_in_order(page: Any, selector: str, title: str, language: str) -> None:
    """Each element of ``selector`` puts ``title`` in a <bdi>, and reads title then "(PDF)" in
    the page's direction: (PDF) to the left of the title on a right-to-left page, or on a later
    line."""
    links = page.locator(selector)
    assert links.count() >= 1
    for index in range(links.count()):
        link = links.nth(index)
        assert link.locator("bdi").first.inner_text() == title
        handle = link.element_handle()
        title_box = page.evaluate(TEXT_BOX, [handle, title])
        pdf_box = page.evaluate(TEXT_BOX, [handle, "PDF"])
        if pdf_box["top"] > title_box["top"] + 2:
            continue  # on a line after the title's: after it, whatever the direction
        if DIRECTION[language] == "rtl":
            assert pdf_box["right"] <= title_box["left"], (title_box, pdf_box)
        else:
            assert pdf_box["left"] >= title_box["right"], (title_box, pdf_box)


def check_phone_header(page: Any) -> None:
    # The title, whole: no line cut off, nothing hidden past its end.
    title = page.locator(".sg-title")
    clipped = title.evaluate(
        "el => el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1"
    )
    assert not clipped
    assert title.inner_text() == TITLE
    # Decline is a button to the eye: a border of its own, like Finish's.
    decline = page.locator("#sg-decline-open")
    border = decline.evaluate(
        "el => { const s = getComputedStyle(el); return [s.borderTopWidth, s.borderTopColor]; }"
    )
    assert border[0] != "0px", border
    assert border[1] not in ("rgba(0, 0, 0, 0)", "transparent"), border
    assert decline.bounding_box()["height"] >= 36
    # The six chips on one row, which scrolls sideways.
    chips = page.locator(".sg-fieldlist-item")
    assert chips.count() == 6
    tops = {round(chips.nth(i).bounding_box()["y"]) for i in range(6)}
    assert len(tops) == 1, tops
    row = page.locator("#sg-fieldlist-items")
    assert row.evaluate("el => el.scrollWidth > el.clientWidth")
    assert row.evaluate("el => getComputedStyle(el).overflowX") == "auto"
    # ... and the page itself does not: nothing is wider than the screen.
    assert page.evaluate("document.documentElement.scrollWidth") == PHONE["width"]
    # The first page starts in the top third of the screen.
    first_page = page.locator(".sg-page[data-page='0']").bounding_box()
    assert first_page["y"] < PHONE["height"] / 3, first_page


@pytest.mark.parametrize("language", ["en", "ar", "ja"])
def test_the_phone_header_and_isolated_titles(
    browser: Any, signer_link: Any, live_server: Any, language: str
) -> None:
    signer_eid, url = signer_link(language)
    for name, viewport, options in SIZES:
        tab = Tab(browser, viewport, expected=refused_request, **options)
        page = tab.page
        page.goto(url)
        page.wait_for_selector("#signing[data-state=ready]")
        page.wait_for_selector(".sg-page[data-page='0'].is-rendered")
        assert page.get_attribute("html", "dir") == DIRECTION[language]
        assert page.locator(".sg-title bdi").inner_text() == TITLE
        assert page.locator(".sg-subtitle bdi").inner_text() == "Ada Lovelace"
        assert page.locator(".sg-document-title bdi").inner_text() == "Invoice"
        assert page.locator(".sg-where bdi bdi").first.inner_text() == "Invoice"
        if name == "phone":
            check_phone_header(page)
            # The chips scroll to the current one as the guide moves on.
            page.locator(".sg-fieldlist-item").nth(5).click()
            row = page.locator("#sg-fieldlist-items").bounding_box()
            current = page.locator(".sg-fieldlist-item[aria-current=step]").bounding_box()
            assert row["x"] - 1 <= current["x"]
            assert current["x"] + current["width"] <= row["x"] + row["width"] + 1
            page.locator(".sg-fieldlist-item").nth(0).click()
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.evaluate("document.getElementById('sg-main').scrollTop = 0")
        page.screenshot(path=str(SHOTS / f"header-{language}-{name}.png"))
        assert axe_violations(page) == []
        tab.close()

    # Signed: the copies' buttons on the signing page, then the completion page.
    tab = Tab(browser, PHONE, expected=refused_request, **PHONE_OPTIONS)
    page = tab.page
    page.goto(url)
    page.wait_for_selector("#signing[data-state=ready]")
    for _ in range(5):
        page.fill("#sg-value", "Chief Analyst")
        page.click("#sg-next")
    page.click("#sg-adopt-open")
    page.wait_for_selector("#sg-adopt[open]")
    page.press("#sg-typed", "Enter")  # the typed name is filled in: adopted as it is
    page.wait_for_selector("#sg-adopt", state="hidden")
    page.click("#sg-finish")
    page.wait_for_selector("#signing[data-state=done]")
    assert_isolated_in_order(page, "#sg-copies-list a", "Invoice", language)
    page.screenshot(path=str(SHOTS / f"copies-{language}-phone.png"))
    assert axe_violations(page) == []
    tab.close()

    signer = Signer.objects.get(eid=signer_eid)
    done = (
        f"{live_server.url}{reverse('esign-done')}?signerEid={signer_eid}"
        f"&key={signer_done_key(signer)}"
    )
    for name, viewport, options in SIZES:
        tab = Tab(browser, viewport, expected=refused_request, **options)
        tab.page.goto(done)
        assert_isolated_in_order(tab.page, ".sg-copies-list a", "Invoice", language)
        tab.page.screenshot(path=str(SHOTS / f"completion-{language}-{name}.png"))
        assert axe_violations(tab.page) == []
        tab.close()
