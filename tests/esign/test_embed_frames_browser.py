"""The published embed components, installed from the npm registry (tests/contract/node), host
the signing page in an integrator's app on another origin, in Chromium, used exactly as
docs/esign.md's examples show (the test's page takes their props from the document):

- ``@anvilco/react-signature-frame`` (legacy) hands its ``onFinish`` every message; its README's
  integrator follows it with ``window.location.assign(url)``: it must be called once, with a
  page that exists (the completion page, or the signer's redirect URL).
- ``@anvilco/anvil-embed-frame`` hands its ``onEvent`` the event objects.
- Both hear nothing without ``anvilURL`` (their READMEs' usage): it defaults to the hosted origin.
- A decline is ``signerComplete`` with ``signerStatus: "declined"``; a link that cannot be used,
  framed by any origin, tells the frame's page ``signerError`` with the link's ``signerEid``.

The components are React 16 components published as CommonJS: the integrator's page loads
React's UMD builds and gives the package a ``require`` that names them (no bundler).

This module: the components' pages and helpers (tests/builders imports some), the legacy frame's
onFinish, the embed frame's event objects, neither heard without anvilURL, a decline in both
frames, and workflows in the embed frame (docs/workflows.md's example). Links that cannot sign
are in test_embed_frames_links_browser.py."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from django.test import Client

from accounts.models import Organization
from esign.models import Signer
from templates_app.engine.demo import build_demo_template
from templates_app.services import template_create_with_spec
from tests.browser import AppPages, Tab, app_fixture, file_below
from tests.esign.conftest import sign, token_of, two_signer_packet
from tests.esign.test_signing_browser import DESKTOP, SHOTS, events, signers_of
from workflows.demo import demo_workflow_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Resolved: node_modules may be a link (a worktree shares the main checkout's).
NODE_MODULES = (
    Path(__file__).resolve().parents[1] / "contract" / "node" / "node_modules"
).resolve()
PACKAGES = {
    "legacy": "@anvilco/react-signature-frame",
    "embed": "@anvilco/anvil-embed-frame",
    "workflow": "@anvilco/anvil-embed-frame",
}
DOCS = Path(__file__).resolve().parents[2] / "docs"
# kind -> the component and the document whose example of it the page runs
COMPONENTS = {
    "legacy": ("AnvilSignatureFrame", "esign.md"),
    "embed": ("AnvilEmbedFrame", "esign.md"),
    "workflow": ("AnvilEmbedFrame", "workflows.md"),
}


def documented_props(component: str, doc: str) -> str:
    """docs/<doc>'s example of ``<component ... />`` (one ``name={value}`` a line) as the
    JavaScript object of its props."""
    text = (DOCS / doc).read_text()
    block = text.split(f"```jsx\n<{component}\n", 1)[1].split("/>\n```", 1)[0]
    props = []
    for line in block.splitlines():
        name, value = line.strip().split("=", 1)
        assert value.startswith("{"), line
        assert value.endswith("}"), line
        props.append(f"{name}: {value[1:-1]}")
    return "{ " + ", ".join(props) + " }"


# The integrator's page: {package} is the component's CommonJS file, {props} the documented
# example's props. With no `anvil` parameter it leaves anvilURL out, as the READMEs do. The
# test's own additions: a size, and a record of each onFinish call (around the documented one).
# An integrator app's body: React's UMD builds and a CommonJS ``require`` for a component's file.
REACT_BODY = """<body><main><h1>Integrator app</h1><div id="root"></div></main>
<script src="/nm/react/umd/react.production.min.js"></script>
<script src="/nm/react-dom/umd/react-dom.production.min.js"></script>
<script>
var module = { exports: {} };
var exports = module.exports;
function require(name) { return { react: window.React, "react-dom": window.ReactDOM }[name]; }
</script>
"""
APP_PAGE = (
    """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Integrator app</title>
<link rel="icon" href="data:,"></head>
"""
    + REACT_BODY
    + """<script src="/nm/{package}/dist/index.js"></script>
<script>
const params = new URLSearchParams(location.search);
const Frame = module.exports.default;
const signURL = params.get("src");
const workflowURL = params.get("src");
const BASE_URL = params.get("anvil");
window.__events = [];
function handleEvent(event) { window.__events.push({ origin: "", data: event }); }
const documented = {props};
if (!params.has("anvil")) delete documented.anvilURL;
const props = Object.assign({}, documented, { style: { width: "100%", height: "760px", border: "0" } });
if (documented.onFinish) {
  Object.assign(props, { enableDefaultStyles: false, scroll: null, onFinish: (value) => {
    if (window.recordFinish) window.recordFinish(value);
    documented.onFinish(value);
  } });
}
ReactDOM.render(React.createElement(Frame, props), document.getElementById("root"));
</script></body></html>
"""
)


def node_module(path: str) -> tuple[bytes, str] | None:
    """A script of the published packages (contract/node/node_modules) at /nm/<path>."""
    if not (path.startswith("/nm/") and path.endswith(".js")):
        return None
    body = file_below(NODE_MODULES, path.removeprefix("/nm/"))
    return (body, "text/javascript") if body else None


class _App(AppPages):
    def page(self, path: str, query: str) -> tuple[bytes, str] | None:
        html = "text/html; charset=utf-8"
        if path == "/app.html":
            kind = parse_qs(query).get("kind", [""])[0]
            if kind not in PACKAGES:
                return None
            page = APP_PAGE.replace("{package}", PACKAGES[kind])
            return page.replace("{props}", documented_props(*COMPONENTS[kind])).encode(), html
        if path == "/done":
            return b"<!doctype html><title>Back</title><h1>Back in the app</h1>", html
        return node_module(path)


app = app_fixture(_App)


def let_the_app_frame(organization: Organization, app: str, settings, live_server) -> None:  # noqa: ANN001
    """The organization lets ``app`` frame its pages; the service's public URL is the live
    server (the completion page must be reachable)."""
    settings.PUBLIC_BASE_URL = live_server.url
    organization.embed_origins = [app]
    organization.save()


def workflow_in_the_app(browser, app: str, url: str, live_server) -> tuple[Tab, Any]:  # noqa: ANN001
    """A desktop tab of the app with the workflow page ``url`` in its frame, Ada's name and
    email typed in its first page: the tab and the frame."""
    tab = Tab(browser, DESKTOP)
    tab.page.goto(app_url(app, "workflow", url, live_server.url))
    frame = tab.page.wait_for_selector("iframe").content_frame()
    frame.fill("[name='name.firstName']", "Ada")
    frame.fill("[name='name.lastName']", "Lovelace")
    frame.fill("[name='email']", "ada@example.com")
    return tab, frame


@pytest.fixture
def packet_of(organization: Organization, app: str, create_packet, settings, live_server):
    """A packet of two embedded signers whose links the app may frame; the service's public
    URL is the live server (the completion page must be reachable)."""
    let_the_app_frame(organization, app, settings, live_server)

    def make(**signer_overrides: Any) -> dict[str, str]:
        variables = two_signer_packet()
        variables["signers"][1].update(signer_overrides)
        return signers_of(create_packet(signers=variables["signers"]))

    return make


def app_url(app: str, kind: str, url: str, anvil: str | None) -> str:
    """The integrator's page framing ``url``; ``anvil`` None leaves anvilURL out."""
    query = f"kind={kind}&src={quote(url, safe='')}"
    if anvil is not None:
        query += f"&anvil={quote(anvil, safe='')}"
    return f"{app}/app.html?{query}"


def open_app(tab: Tab, app: str, kind: str, url: str, anvil: str) -> Any:
    tab.page.goto(app_url(app, kind, url, anvil))
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


def record_finish(tab: Tab) -> list[Any]:
    """Every value the legacy frame hands its integrator's onFinish, in order."""
    finished: list[Any] = []
    tab.page.expose_function("recordFinish", lambda value: finished.append(value))
    return finished


def test_the_legacy_frame_leads_its_integrator_to_the_completion_page(
    browser, live_server, app: str, packet_of, sign_url
) -> None:
    signers = packet_of()
    first = signers["client"]
    url = sign_url(first)
    tab = Tab(browser, DESKTOP)
    finished = record_finish(tab)
    loaded = navigations(tab)
    frame = open_app(tab, app, "legacy", url, live_server.url)
    assert frame.url.endswith("&withinIframe=true")
    sign_first(frame)
    tab.page.wait_for_url(re.compile(re.escape(live_server.url) + r"/etch-complete\?"))
    tab.page.wait_for_selector("h1")

    # Once, with the URL: never the event object first ("/[object Object]").
    [string] = finished
    assert string.startswith(f"{live_server.url}/etch-complete?action=signerComplete&")
    assert [url for url, _status in loaded][1:] == [string]
    assert (string, 200) in loaded
    assert tab.page.inner_text("h1") == "Done"
    assert "You signed. Download your copy below." in tab.page.inner_text("main")
    link = urlsplit(tab.page.get_attribute(".sg-copies-list a", "href") or "")
    # The signer's lasting copy (an absolute link on PUBLIC_BASE_URL), fetched from this server.
    download = tab.page.request.get(f"{live_server.url}{link.path}?{link.query}")
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
    tab = Tab(browser, DESKTOP)
    finished = record_finish(tab)
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
    [string] = finished
    assert string.startswith(f"{app}/done?from=esign&action=signerComplete&")
    assert (string, 200) in loaded
    assert tab.page.inner_text("h1") == "Back in the app"
    tab.close()


@pytest.fixture
def first_in_embed_frame(
    browser, live_server, app: str, packet_of, sign_url
) -> tuple[dict[str, str], Tab, Any]:
    """A new packet's signers, and a desktop tab of the app with the first signer's (client's)
    signing page open in its embed frame: that frame."""
    signers = packet_of()
    tab = Tab(browser, DESKTOP)
    return signers, tab, open_app(tab, app, "embed", sign_url(signers["client"]), live_server.url)


def test_the_embed_frame_hands_its_integrator_the_event_objects(
    first_in_embed_frame: tuple[dict[str, str], Tab, Any],
) -> None:
    signers, tab, frame = first_in_embed_frame
    first = signers["client"]
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


def test_without_anvil_url_as_the_readmes_show_neither_frame_hears_anything(
    browser, live_server, app: str, packet_of, sign_url
) -> None:
    # A link that cannot be used posts at once, to any origin: the quickest event to wait for.
    packet_of()
    unknown = f"{live_server.url}/api/etch/verify/NoSuchSigner?token=nope"
    for kind in ("embed", "legacy"):
        tab = Tab(browser, DESKTOP, expected=lambda message: "status of 403" in message.text)
        finished = record_finish(tab)
        tab.page.goto(app_url(app, kind, unknown, None))
        frame = tab.page.wait_for_selector("iframe").content_frame()
        frame.wait_for_selector(".sg-error[data-error-type=tokenInvalid]")
        tab.page.wait_for_timeout(500)
        assert tab.page.evaluate("window.__events") == [], kind
        assert finished == [], kind
        tab.close()


def decline(frame: Any) -> None:
    frame.click("#sg-decline-open")
    frame.fill("#sg-decline-reason", "The title is wrong.")
    frame.click("#sg-decline-ok")


def test_a_decline_is_signer_complete_with_status_declined_in_both_frames(
    first_in_embed_frame: tuple[dict[str, str], Tab, Any],
    browser,
    live_server,
    app: str,
    packet_of,
    sign_url,
) -> None:
    signers, tab, frame = first_in_embed_frame
    first = signers["client"]
    decline(frame)
    frame.wait_for_selector("#signing[data-state=declined]")
    [event] = [e["data"] for e in events(tab, 1)]
    packet = Signer.objects.get(eid=first).packet
    assert event == {
        "action": "signerComplete",
        "signerEid": first,
        "signerStatus": "declined",
        "nextSignerEid": None,
        "documentGroupEid": packet.document_group.eid,
        "documentGroupStatus": "declined",
        "etchPacketEid": packet.eid,
    }
    tab.page.wait_for_timeout(200)
    assert len(tab.page.evaluate("window.__events")) == 1
    tab.close()

    # The legacy frame: onFinish once, with the string, which its integrator follows.
    signers = packet_of()
    first = signers["client"]
    tab = Tab(browser, DESKTOP)
    finished = record_finish(tab)
    frame = open_app(tab, app, "legacy", sign_url(first), live_server.url)
    decline(frame)
    tab.page.wait_for_url(re.compile(re.escape(live_server.url) + r"/etch-complete\?"))
    tab.page.wait_for_selector("h1")
    [string] = finished
    assert string.startswith(f"{live_server.url}/etch-complete?action=signerComplete&")
    assert parse_qs(urlsplit(string).query)["signerStatus"] == ["declined"]
    assert tab.page.inner_text("h1") == "You declined to sign"
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / "24-legacy-frame-declined-desktop.png"))
    tab.close()


def test_the_documented_workflow_example_hears_the_workflows_events(
    browser, live_server, app: str, organization: Organization, settings
) -> None:
    let_the_app_frame(organization, app, settings, live_server)
    pdf, spec = build_demo_template()
    template = template_create_with_spec(
        organization=organization, title="Demo", pdf=pdf, spec=spec, publish=True
    )
    workflow = demo_workflow_create(organization=organization, template=template)
    url = f"{live_server.url}/form/acme/{workflow.slug}?embedded=true"
    tab, frame = workflow_in_the_app(browser, app, url, live_server)
    frame.fill("[name='phone.num']", "415 555 0132")
    frame.get_by_role("button", name="Next").click()
    [event] = [e["data"] for e in events(tab, 1)]
    assert event["action"] == "forgeSubmitPage"
    assert event["weldEid"] == workflow.eid
    assert event["pageIndex"] == 0
    tab.close()


def test_an_embedded_workflows_signer_is_heard_by_the_embed_frame_as_an_object(
    browser, live_server, app: str, organization: Organization, demo_template, settings, tmp_path
) -> None:
    # The workflow's signing link is its own (embedded=true), not the legacy frame's
    # (withinIframe=true, which gets the string only): the embed frame hears the object.
    from tests.workflows.test_signing_step import nda

    settings.SEAL_DEV_DIR = tmp_path / "seal-dev"
    let_the_app_frame(organization, app, settings, live_server)
    nda(organization, demo_template)
    url = f"{live_server.url}/form/acme/nda?embedded=true"
    tab, frame = workflow_in_the_app(browser, app, url, live_server)
    frame.click("#wf-next")
    frame.wait_for_selector("#wf-sign")
    frame.click("#wf-sign")
    frame.wait_for_selector("#signing[data-state=ready]")
    frame.click(".sg-field[data-key$='/sig1']")
    frame.wait_for_selector("#sg-adopt[open]")
    pad = frame.locator("#sg-pad").bounding_box()
    tab.page.mouse.move(pad["x"] + 20, pad["y"] + 40)
    tab.page.mouse.down()
    tab.page.mouse.move(pad["x"] + 150, pad["y"] + 20, steps=5)
    tab.page.mouse.up()
    frame.click("#sg-adopt-ok")
    frame.click("#sg-finish")
    tab.page.wait_for_function(
        "window.__events.some((e) => e.data.action === 'signerComplete')", timeout=30_000
    )
    actions = [e["data"]["action"] for e in tab.page.evaluate("window.__events")]
    assert actions[:3] == ["forgeSubmitPage", "forgeComplete", "signerComplete"]
    tab.close()
