"""The signing page in a real browser when it does not sign: an expired link shows the error page
and posts signer_error, an origin that is not allowed hears only the error and the link's
signer, and a signer declines with a reason (top level)."""

from __future__ import annotations

import pytest

from accounts.models import Organization
from esign.models import Signer
from tests.browser import Tab
from tests.esign.conftest import two_signer_packet
from tests.esign.test_signing_browser import (
    DESKTOP,
    ERROR_KEYS,
    EXPIRE,
    PHONE,
    SHOTS,
    assert_posted_pair,
    embedded_first_signer,
    events,
    live,
    open_embedded_refusal,
    refused_request,
    shoot,
    signer_error,
    signers_of,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_expired_link_shows_the_error_page_and_posts_signer_error(
    browser, live_server, embedder, organization: Organization, create_packet, sign_url, graphql
) -> None:
    first = embedded_first_signer(organization, embedder, create_packet)
    url = live(sign_url(first), live_server)
    graphql(EXPIRE, {"s": first})

    tab = Tab(browser, DESKTOP, expected=refused_request)
    open_embedded_refusal(tab, embedder, url, "tokenExpired")
    event = assert_posted_pair(events(tab, 2), live_server.url, ERROR_KEYS)
    assert event == signer_error("tokenExpired", "This signing link has expired.", first)
    shoot(tab, "10-expired-link")
    tab.close()


def test_an_origin_that_is_not_allowed_hears_only_the_error_and_the_links_signer(
    browser, live_server, embedder, organization: Organization, create_packet, sign_url, graphql
) -> None:
    # The list names another app: the page that frames the expired link is told that it failed
    # (posted to "*"): the error's type and message, and the signer eid of the link it framed
    # (which it put there), nothing the link did not show it (no reason, no redirect URL).
    organization.embed_origins = ["https://app.example.com"]
    organization.save()
    first = signers_of(create_packet())["client"]
    url = live(sign_url(first), live_server)
    graphql(EXPIRE, {"s": first})

    tab = Tab(browser, DESKTOP, expected=refused_request)
    open_embedded_refusal(tab, embedder, url, "tokenExpired")
    [as_object, as_string] = events(tab, 2)
    assert as_object == {
        "origin": live_server.url,
        "data": signer_error("tokenExpired", "This signing link has expired.", first),
    }
    assert as_string["data"].startswith(f"{live_server.url}/etch-complete?action=signerError&")
    assert as_string["data"].endswith(f"&signerEid={first}")
    tab.close()


def test_declining_with_a_reason_top_level(browser, live_server, create_packet, sign_url) -> None:
    variables = two_signer_packet()
    variables["signers"][0]["acceptEachField"] = True
    packet = create_packet(signers=variables["signers"])
    first = signers_of(packet)["client"]

    tab = Tab(
        browser,
        PHONE,
        expected=refused_request,
        is_mobile=True,
        has_touch=True,
        device_scale_factor=2,
    )
    tab.page.goto(live(sign_url(first), live_server))
    tab.page.wait_for_selector("#signing[data-state=ready]")
    tab.page.wait_for_selector(".sg-page.is-rendered")
    assert not tab.page.is_visible(".sg-test-banner")
    # acceptEachField: every field is accepted (Accept, or Enter), then the guide moves on;
    # all of it from the keyboard.
    tab.page.focus("#sg-value")
    tab.page.keyboard.type("CTO")
    assert tab.page.is_visible("#sg-accept")
    tab.page.keyboard.press("Enter")
    assert tab.page.inner_text("#sg-progress") == "Field 2 of 2"
    assert "1 of 2 completed" in tab.page.inner_text("#sg-count")
    assert tab.page.evaluate("document.activeElement.id") == "sg-adopt-open"
    tab.page.keyboard.press("Enter")
    tab.page.wait_for_selector("#sg-adopt[open]")
    assert tab.page.evaluate("document.activeElement.id") == "sg-typed"  # typing only
    tab.page.keyboard.press("Enter")
    tab.page.wait_for_selector("#sg-adopt", state="hidden")
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / "11-keyboard-accept-phone.png"))
    assert "All 2 fields completed" in tab.page.inner_text("#sg-count")
    assert tab.page.evaluate("document.activeElement.id") == "sg-finish"

    tab.page.click("#sg-decline-open")
    tab.page.click("#sg-decline-ok")
    assert tab.page.is_visible("#sg-decline-error")  # a reason is needed
    tab.page.fill("#sg-decline-reason", "The amount is wrong.")
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / "12-decline-phone.png"))
    tab.page.click("#sg-decline-ok")
    tab.page.wait_for_selector("#signing[data-state=declined]")
    tab.page.screenshot(path=str(SHOTS / "13-declined-phone.png"))
    tab.close()

    signer = Signer.objects.get(eid=first)
    assert (signer.status, signer.decline_reason) == ("declined", "The amount is wrong.")
