"""The signing page's pictures of the pages in a real browser, on a phone of device pixel ratio
3: the first page's picture alone until it has arrived, at most about twice the column's width,
then the others only as they come near the view; the script lays out every page of a long
document (the HTML has only the first)."""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.conf import settings

from tests.browser import Tab
from tests.esign.conftest import contract_pdf, two_signer_packet
from tests.templates_app.conftest import ARTIFACTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = ARTIFACTS / "esign"
PAGES = 30


def test_later_pages_wait_for_the_first_and_come_as_they_near_the_view(
    browser, live_server, create_packet, sign_url
) -> None:
    files = two_signer_packet()["files"]
    files[0]["file"] = {
        "data": base64.b64encode(contract_pdf(PAGES)).decode(),
        "filename": "agreement.pdf",
        "mimetype": "application/pdf",
    }
    packet = create_packet(files=files)
    signer = packet["documentGroup"]["signers"][0]["eid"]
    url = sign_url(signer).replace(settings.PUBLIC_BASE_URL, live_server.url)

    tab = Tab(
        browser,
        {"width": 390, "height": 844},
        device_scale_factor=3,
        is_mobile=True,
        has_touch=True,
    )
    asked: list[tuple[int, int]] = []  # (page, width) of every picture asked for, in order
    held: list[Any] = []  # the first page's picture, held back until the test lets it go

    def record(request: Any) -> None:
        parts = urlsplit(request.url)
        if parts.path.endswith(".webp"):
            page = int(parts.path.rsplit("/", 1)[1].removesuffix(".webp"))
            asked.append((page, int(parse_qs(parts.query)["w"][0])))

    tab.page.on("request", record)
    tab.page.route("**/pages/0.webp?*", lambda route: held.append(route))
    tab.page.goto(url, wait_until="domcontentloaded")
    tab.page.wait_for_selector("#signing[data-state=ready]")
    # Every page is laid out, at its place, before any of their pictures.
    assert tab.page.locator(".sg-page").count() == PAGES
    assert tab.page.get_attribute(".sg-page >> nth=29", "aria-label") == (
        "Services agreement, page 30 of 30"
    )
    # The first page's picture is asked for (waited for: a loaded machine asks late), then
    # nothing else for half a second while it is held back.
    for _ in range(600):
        if asked:
            break
        tab.page.wait_for_timeout(50)
    tab.page.wait_for_timeout(500)
    assert asked == [(0, 800)]  # 358 px shown at DPR 3: 800 px, not 1200
    [route] = held
    route.continue_()
    tab.page.wait_for_selector(".sg-page[data-page='0'].is-rendered")
    tab.page.wait_for_selector(".sg-page[data-page='1'].is-rendered")
    tab.page.wait_for_timeout(300)
    near = sorted({page for page, _ in asked})
    assert near[:2] == [0, 1]
    assert max(near) < 5  # a screen's height ahead, not the whole document
    assert {width for _, width in asked} == {800}

    tab.page.locator(".sg-page[data-page='20']").scroll_into_view_if_needed()
    tab.page.wait_for_selector(".sg-page[data-page='20'].is-rendered")
    assert 12 not in {page for page, _ in asked}  # scrolled past in one jump: never near
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / "pages-page-21-phone.png"))
    tab.close()
