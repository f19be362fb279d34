"""The published embed components (see test_embed_frames_browser.py) and links that cannot sign: a
bad link in any origin's frame posts signerError, a valid link is still framed only by allowed
origins, a voided packet's link tells the embedding app why, and a link that is not valid is
signerError with its signer's eid in both frames."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, quote, urlsplit

import pytest

from esign.models import Signer
from tests.browser import Tab
from tests.esign.test_embed_frames_browser import app as app  # noqa: F401 - the fixture
from tests.esign.test_embed_frames_browser import app_url, record_finish
from tests.esign.test_embed_frames_browser import packet_of as packet_of  # noqa: F401 - the fixture
from tests.esign.test_signing_browser import (
    DESKTOP,
    SHOTS,
    events,
    open_embedded_refusal,
    signer_error,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_bad_link_in_any_origins_frame_posts_signer_error(
    browser, live_server, app: str, embedder: str, packet_of
) -> None:
    # The organization allows only `app`; the embedder's page is another origin, and the link is
    # not one at all: the page that frames it still hears that it failed.
    packet_of()
    unknown = f"{live_server.url}/api/etch/verify/NoSuchSigner?token=nope"
    tab = Tab(browser, DESKTOP, expected=lambda message: "status of 403" in message.text)
    open_embedded_refusal(tab, embedder, unknown, "tokenInvalid")
    [as_object, as_string] = events(tab, 2)
    assert as_object == {
        "origin": live_server.url,
        "data": signer_error("tokenInvalid", "This signing link is not valid.", "NoSuchSigner"),
    }
    legacy = as_string["data"]
    assert legacy.startswith(f"{live_server.url}/etch-complete?action=signerError&")
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / "22-bad-link-in-another-origins-frame-desktop.png"))
    # Followed, as the legacy frame's integrator does, the string shows what went wrong.
    followed = tab.page.goto(legacy)
    assert followed.status == 200
    assert "This signing link is not valid." in tab.page.inner_text("main")
    tab.close()

    # The anvil-embed-frame's integrator hears it through onEvent.
    tab = Tab(browser, DESKTOP, expected=lambda message: "status of 403" in message.text)
    query = f"kind=embed&src={quote(unknown, safe='')}&anvil={quote(live_server.url, safe='')}"
    tab.page.goto(f"{app}/app.html?{query}")
    assert [e["data"] for e in events(tab, 1)] == [as_object["data"]]
    tab.close()


def test_a_valid_link_is_still_framed_only_by_allowed_origins(
    browser, live_server, embedder: str, packet_of, sign_url
) -> None:
    signers = packet_of()
    url = sign_url(signers["client"])
    tab = Tab(browser, DESKTOP, expected=lambda message: "frame-ancestors" in message.text)
    tab.page.goto(f"{embedder}/embed.html?src={quote(url, safe='')}")
    tab.page.wait_for_timeout(1000)
    frame = tab.page.wait_for_selector("#app-frame").content_frame()
    assert frame.query_selector("#signing") is None
    assert tab.page.evaluate("window.__events") == []
    tab.close()


def test_a_voided_packets_link_tells_the_embedding_app_why(
    browser, live_server, app: str, packet_of, sign_url
) -> None:
    from esign.models import Packet
    from esign.sending.packets import packet_void_now

    signers = packet_of()
    url = sign_url(signers["client"])
    packet_void_now(packet=Signer.objects.get(eid=signers["client"]).packet)
    assert Packet.objects.get(signers__eid=signers["client"]).status == "voided"

    tab = Tab(browser, DESKTOP, expected=lambda message: "status of 403" in message.text)
    query = f"kind=embed&src={quote(url, safe='')}&anvil={quote(live_server.url, safe='')}"
    tab.page.goto(f"{app}/app.html?{query}")
    [event] = [e["data"] for e in events(tab, 1)]
    cancelled = signer_error("notFound", "This signature request was cancelled.", signers["client"])
    assert event == {**cancelled, "reason": "packetVoided"}
    frame = tab.page.wait_for_selector("iframe").content_frame()
    assert "The sender cancelled this request." in frame.inner_text("main")
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / "23-voided-link-in-embed-frame-desktop.png"))
    tab.close()


@pytest.mark.parametrize("link", ["bad-token", "unknown-signer"])
def test_a_link_that_is_not_valid_is_signer_error_with_its_signer_eid_in_both_frames(
    browser, live_server, app: str, packet_of, sign_url, link: str
) -> None:
    signers = packet_of()
    eid = signers["client"] if link == "bad-token" else "NoSuchSigner0000000x"
    url = f"{live_server.url}/api/etch/verify/{eid}?token=not-a-token"
    expected = signer_error("tokenInvalid", "This signing link is not valid.", eid)
    tab = Tab(browser, DESKTOP, expected=lambda message: "status of 403" in message.text)
    tab.page.goto(app_url(app, "embed", url, live_server.url))
    assert [e["data"] for e in events(tab, 1)] == [expected]
    tab.page.wait_for_timeout(200)
    assert len(tab.page.evaluate("window.__events")) == 1
    tab.close()

    tab = Tab(browser, DESKTOP, expected=lambda message: "status of 403" in message.text)
    finished = record_finish(tab)
    tab.page.goto(app_url(app, "legacy", url, live_server.url))
    tab.page.wait_for_url(re.compile(re.escape(live_server.url) + r"/etch-complete\?"))
    [string] = finished
    query = parse_qs(urlsplit(string).query)
    assert {key: value for [key, value] in ((k, v[0]) for k, v in query.items())} == expected
    assert "This signing link is not valid." in tab.page.inner_text("main")
    tab.close()
