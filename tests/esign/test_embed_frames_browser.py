"""The published embed components, installed from the npm registry (tests/contract/node), host
the signing page in an integrator's app on another origin, in Chromium:

- ``@anvilco/react-signature-frame`` (legacy) hands its ``onFinish`` every message; its README's
  integrator follows it with ``window.location.assign(url)``: the string must be a page that
  exists (the completion page, or the signer's redirect URL).
- ``@anvilco/anvil-embed-frame`` hands its ``onEvent`` the event objects.
- A link that cannot be used, framed by any origin, tells the frame's page ``signerError``.

The components are React 16 components published as CommonJS: the integrator's page loads
React's UMD builds and gives the package a ``require`` that names them (no bundler).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from django.test import Client

from accounts.models import Organization
from esign.models import Signer
from tests.browser import Tab
from tests.esign.conftest import sign, token_of, two_signer_packet
from tests.esign.test_signing_browser import DESKTOP, SHOTS, events, signers_of

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NODE_MODULES = Path(__file__).resolve().parents[1] / "contract" / "node" / "node_modules"
PACKAGES = {
    "legacy": "@anvilco/react-signature-frame",
    "embed": "@anvilco/anvil-embed-frame",
}
# The integrator's page: {package} is the component's CommonJS file. Its callbacks are the
# READMEs': onFinish follows the URL it is given; onEvent keeps the event.
APP_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Integrator app</title>
<link rel="icon" href="data:,"></head>
<body><main><h1>Integrator app</h1><div id="root"></div></main>
<script src="/nm/react/umd/react.production.min.js"></script>
<script src="/nm/react-dom/umd/react-dom.production.min.js"></script>
<script>
var module = { exports: {} };
var exports = module.exports;
function require(name) { return { react: window.React, "react-dom": window.ReactDOM }[name]; }
</script>
<script src="/nm/{package}/dist/index.js"></script>
<script>
const params = new URLSearchParams(location.search);
const Frame = module.exports.default;
const style = { width: "100%", height: "760px", border: "0" };
window.__events = [];
const props = params.get("kind") === "legacy"
  ? { signURL: params.get("src"), anvilURL: params.get("anvil"), scroll: null,
      enableDefaultStyles: false, style,
      onFinish: (redirectURL) => { window.recordFinish(redirectURL);
                                   window.location.assign(redirectURL); } }
  : { iframeURL: params.get("src"), anvilURL: params.get("anvil"), style,
      onEvent: (event) => { window.__events.push({ origin: "", data: event }); } };
ReactDOM.render(React.createElement(Frame, props), document.getElementById("root"));
</script></body></html>
"""


class _App(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        body, kind = None, "text/html; charset=utf-8"
        if parts.path == "/app.html":
            package = PACKAGES.get(parse_qs(parts.query).get("kind", [""])[0], "")
            body = APP_PAGE.replace("{package}", package).encode() if package else None
        elif parts.path == "/done":
            body = b"<!doctype html><title>Back</title><h1>Back in the app</h1>"
        elif parts.path.startswith("/nm/") and parts.path.endswith(".js"):
            file = (NODE_MODULES / parts.path.removeprefix("/nm/")).resolve()
            if file.is_relative_to(NODE_MODULES) and file.is_file():
                body, kind = file.read_bytes(), "text/javascript"
        self.send_response(200 if body else 404)
        self.send_header("Content-Type", kind)
        self.end_headers()
        self.wfile.write(body or b"not found")

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def app_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _App)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def app() -> Iterator[str]:
    with app_server() as origin:
        yield origin


@pytest.fixture
def packet_of(organization: Organization, app: str, create_packet, settings, live_server):
    """A packet of two embedded signers whose links the app may frame; the service's public
    URL is the live server (the completion page must be reachable)."""
    settings.PUBLIC_BASE_URL = live_server.url
    organization.embed_origins = [app]
    organization.save()

    def make(**signer_overrides: Any) -> dict[str, str]:
        variables = two_signer_packet()
        variables["signers"][1].update(signer_overrides)
        return signers_of(create_packet(signers=variables["signers"]))

    return make


def open_app(tab: Tab, app: str, kind: str, url: str, anvil: str) -> Any:
    query = f"kind={kind}&src={quote(url, safe='')}&anvil={quote(anvil, safe='')}"
    tab.page.goto(f"{app}/app.html?{query}")
    frame = tab.page.wait_for_selector("iframe").content_frame()
    frame.wait_for_selector("#signing[data-state=ready]")
    return frame


def sign_first(frame: Any) -> None:
    """The first signer of two_signer_packet: a text field, then a typed signature."""
    frame.fill("#sg-value", "Chief Analyst")
    frame.click("#sg-next")
    frame.click("#sg-adopt-open")
    frame.click("#sg-adopt-ok")
    frame.click("#sg-finish")


def navigations(tab: Tab) -> list[tuple[str, int]]:
    """Every document the tab's top window loads, with its status."""
    seen: list[tuple[str, int]] = []
    tab.page.on(
        "response",
        lambda response: (
            response.request.is_navigation_request()
            and response.frame == tab.page.main_frame
            and seen.append((response.url, response.status))
        ),
    )
    return seen


def object_navigation(message: Any) -> bool:
    """The legacy frame hands onFinish the event object too (it passes on every message); its
    integrator's assign() of it is overtaken by the string's, which the test follows."""
    return "object%20Object" in message.text or "status of 4" in message.text


def test_the_legacy_frame_leads_its_integrator_to_the_completion_page(
    browser, live_server, app: str, packet_of, sign_url
) -> None:
    signers = packet_of()
    first = signers["client"]
    url = sign_url(first)
    tab = Tab(browser, DESKTOP, expected=object_navigation)
    finished: list[Any] = []
    tab.page.expose_function("recordFinish", lambda value: finished.append(value))
    loaded = navigations(tab)
    frame = open_app(tab, app, "legacy", url, live_server.url)
    assert frame.url.endswith("&withinIframe=true")
    sign_first(frame)
    tab.page.wait_for_url(re.compile(re.escape(live_server.url) + r"/etch-complete\?"))
    tab.page.wait_for_selector("h1")

    strings = [value for value in finished if isinstance(value, str)]
    assert len(strings) == 1
    assert strings[0].startswith(f"{live_server.url}/etch-complete?action=signerComplete&")
    assert (strings[0], 200) in loaded
    assert tab.page.inner_text("h1") == "Done"
    assert "You signed. Download your copy below." in tab.page.inner_text("main")
    link = tab.page.get_attribute(".sg-copies-list a", "href")
    download = tab.page.request.get(live_server.url + link)
    assert (download.status, download.headers["content-type"]) == (200, "application/pdf")
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / "20-legacy-frame-completion-page-desktop.png"))
    assert Signer.objects.get(eid=first).status == "completed"
    tab.close()


def test_the_legacy_frame_follows_the_signers_redirect_url(
    browser, live_server, app: str, packet_of, sign_url
) -> None:
    signers = packet_of(redirectURL=f"{app}/done?from=esign")
    # The first signer signs over the page's API; the second in the frame.
    body = {"signature": {"typed": "Ada Lovelace"}, "values": {"agreement/title1": "CTO"}}
    done = sign(Client(), signers["client"], token_of(sign_url(signers["client"])), body)
    assert done.status_code == 200
    tab = Tab(browser, DESKTOP, expected=object_navigation)
    finished: list[Any] = []
    tab.page.expose_function("recordFinish", lambda value: finished.append(value))
    loaded = navigations(tab)
    frame = open_app(tab, app, "legacy", sign_url(signers["provider"]), live_server.url)
    frame.click(".sg-field[data-key='agreement/sig2']")
    frame.wait_for_selector("#sg-adopt[open]")
    pad = frame.locator("#sg-pad").bounding_box()
    mouse = tab.page.mouse
    mouse.move(pad["x"] + 20, pad["y"] + 40)
    mouse.down()
    mouse.move(pad["x"] + 120, pad["y"] + 20, steps=5)
    mouse.move(pad["x"] + 200, pad["y"] + 50, steps=5)
    mouse.up()
    frame.click("#sg-adopt-ok")
    frame.click("#sg-finish")
    tab.page.wait_for_url(f"{app}/done?**")
    [string] = [value for value in finished if isinstance(value, str)]
    assert string.startswith(f"{app}/done?from=esign&action=signerComplete&")
    assert (string, 200) in loaded
    assert tab.page.inner_text("h1") == "Back in the app"
    tab.close()


def test_the_embed_frame_hands_its_integrator_the_event_objects(
    browser, live_server, app: str, packet_of, sign_url
) -> None:
    signers = packet_of()
    first = signers["client"]
    tab = Tab(browser, DESKTOP)
    frame = open_app(tab, app, "embed", sign_url(first), live_server.url)
    sign_first(frame)
    frame.wait_for_selector("#signing[data-state=done]")
    [event] = [e["data"] for e in events(tab, 1)]
    assert event["action"] == "signerComplete"
    assert event["signerEid"] == first
    assert event["nextSignerEid"] == signers["provider"]
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / "21-embed-frame-signed-desktop.png"))
    tab.page.wait_for_timeout(200)
    assert len(tab.page.evaluate("window.__events")) == 1  # the string is not an event object
    tab.close()


def test_a_bad_link_in_any_origins_frame_posts_signer_error(
    browser, live_server, app: str, embedder: str, packet_of
) -> None:
    # The organization allows only `app`; the embedder's page is another origin, and the link is
    # not one at all: the page that frames it still hears that it failed.
    packet_of()
    unknown = f"{live_server.url}/api/etch/verify/NoSuchSigner?token=nope"
    tab = Tab(browser, DESKTOP, expected=lambda message: "status of 403" in message.text)
    tab.page.goto(f"{embedder}/embed.html?src={quote(unknown, safe='')}")
    frame = tab.page.wait_for_selector("#app-frame").content_frame()
    frame.wait_for_selector(".sg-error[data-error-type=tokenInvalid]")
    [as_object, as_string] = events(tab, 2)
    assert as_object == {
        "origin": live_server.url,
        "data": {
            "action": "signerError",
            "errorType": "tokenInvalid",
            "error": "tokenInvalid",
            "message": "This signing link is not valid.",
        },
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
    from esign.services import packet_void_now

    signers = packet_of()
    url = sign_url(signers["client"])
    packet_void_now(packet=Signer.objects.get(eid=signers["client"]).packet)
    assert Packet.objects.get(signers__eid=signers["client"]).status == "voided"

    tab = Tab(browser, DESKTOP, expected=lambda message: "status of 403" in message.text)
    query = f"kind=embed&src={quote(url, safe='')}&anvil={quote(live_server.url, safe='')}"
    tab.page.goto(f"{app}/app.html?{query}")
    [event] = [e["data"] for e in events(tab, 1)]
    assert event == {
        "action": "signerError",
        "errorType": "notFound",
        "error": "notFound",
        "message": "This signature request was cancelled.",
        "signerEid": signers["client"],
        "reason": "packetVoided",
    }
    frame = tab.page.wait_for_selector("iframe").content_frame()
    assert "The sender cancelled this request." in frame.inner_text("main")
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / "23-voided-link-in-embed-frame-desktop.png"))
    tab.close()
