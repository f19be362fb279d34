"""The signing page in a real browser: headless Chromium, driven by Playwright, against the live
server, embedded in an iframe of a page served on another origin (the integrator's app).

Two signers sign in routing order, one typing and one drawing; the embedding page records the
postMessage events; the completed PDF shows both signatures where their fields are (pixels and
text). Screenshots of every step go to test-artifacts/esign/, on a desktop and a phone width.

This module also holds the helpers the other signing browser tests import. The refusals (an
expired link, an origin not allowed, declining) are in test_signing_refusals_browser.py; the
fields and the signer's copy in test_signing_fields_browser.py."""

from __future__ import annotations

import io
import time
import zipfile
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from accounts.models import Organization
from esign.models import Packet, Signer
from esign.sealing.seal import packet_seal
from tests.browser import Tab
from tests.esign.conftest import two_signer_packet
from tests.pdfcheck import dark_pixels, render, text_in_rect, words
from tests.templates_app.conftest import ARTIFACTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = ARTIFACTS / "esign"
DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}
EXPIRE = "mutation($s: String!) { expireSignerTokens(signerEid: $s) }"
COMPLETE_KEYS = {
    "action",
    "signerEid",
    "signerStatus",
    "nextSignerEid",
    "documentGroupEid",
    "documentGroupStatus",
    "etchPacketEid",
}
ERROR_KEYS = {"action", "errorType", "error", "message", "signerEid"}
# The fields of two_signer_packet on page 2 (index 1), in PDF points; the bottom of a signature
# rect is the caption band ("Ada Lovelace, 2026-..."), so the signature itself is above it.
SIG1 = {"x": 72, "y": 500, "width": 200, "height": 50}
SIG2 = {"x": 72, "y": 300, "width": 200, "height": 50}
BLANK = {"x": 72, "y": 100, "width": 200, "height": 50}
INITIALS = {"x": 450, "y": 600, "width": 60, "height": 30}  # page 1 (index 0), the second signer
CAPTION_BAND = 11


def refused_request(message: Any) -> bool:
    """A refused request is logged by the browser as an error; the tests check what the page
    shows instead."""
    return "status of 4" in message.text


def live(url: str, live_server: Any) -> str:
    return url.replace(settings.PUBLIC_BASE_URL, live_server.url)


def open_embedded(tab: Tab, embedder: str, url: str) -> Any:
    """Open the integrator's page framing ``url``; the signing page's Frame."""
    tab.page.goto(f"{embedder}/embed.html?src={quote(url, safe='')}")
    frame = tab.page.wait_for_selector("#app-frame").content_frame()
    frame.wait_for_selector("#signing:not([data-state=loading])")
    return frame


def open_embedded_refusal(tab: Tab, embedder: str, url: str, error_type: str) -> Any:
    """Open the integrator's page framing ``url``, a link the signing page refuses; its Frame
    once it shows the error of ``error_type``."""
    tab.page.goto(f"{embedder}/embed.html?src={quote(url, safe='')}")
    frame = tab.page.wait_for_selector("#app-frame").content_frame()
    frame.wait_for_selector(f".sg-error[data-error-type={error_type}]")
    return frame


def signer_error(error_type: str, message: str, signer_eid: str) -> dict[str, str]:
    """The signerError event a framing page hears: its type twice (``error`` is the legacy
    key), the message the page shows and the eid of the link's signer."""
    return {
        "action": "signerError",
        "errorType": error_type,
        "error": error_type,
        "message": message,
        "signerEid": signer_eid,
    }


def embedded_first_signer(organization: Any, embedder: str, create_packet: Any) -> str:
    """The first signer's eid of a new packet of ``organization``, which lets ``embedder``
    frame its signing page."""
    organization.embed_origins = [embedder]
    organization.save()
    return signers_of(create_packet())["client"]


def shoot(tab: Tab, name: str, *, phone: bool = True) -> None:
    """A screenshot at the desktop width, and one at the phone width (then back)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    size = tab.page.viewport_size
    tab.page.screenshot(path=str(SHOTS / f"{name}-desktop.png"))
    if phone:
        tab.page.set_viewport_size(PHONE)
        tab.page.wait_for_timeout(400)  # the pages are drawn again at the new width
        tab.page.screenshot(path=str(SHOTS / f"{name}-phone.png"))
        tab.page.set_viewport_size(size)
        tab.page.wait_for_timeout(200)


def until(frame: Any, predicate: str, timeout: float = 15) -> None:
    """Wait until the function ``predicate`` is true in ``frame``, polling with evaluate: the
    page's CSP forbids the eval that wait_for_function's string predicates need."""
    deadline = time.monotonic() + timeout
    while not frame.evaluate(predicate):
        assert time.monotonic() < deadline, predicate
        time.sleep(0.05)


def events(tab: Tab, count: int) -> list[dict[str, Any]]:
    tab.page.wait_for_function(f"window.__events.length >= {count}")
    return tab.page.evaluate("window.__events")


def assert_posted_pair(
    recorded: list[dict[str, Any]], origin: str, keys: set[str], *, redirect: str = ""
) -> dict:
    """The object and its legacy string form, both from the signing page's origin. The string
    is a page that exists: the signer's ``redirect`` URL with the keys, else the service's
    completion page (with the key that shows the signer's documents once they finished)."""
    [as_object, as_string] = recorded
    assert as_object["origin"] == origin
    assert as_string["origin"] == origin
    event = as_object["data"]
    assert set(event) == keys
    string = as_string["data"]
    assert isinstance(string, str)
    base = settings.PUBLIC_BASE_URL if event["action"] != "signerError" else origin
    assert string.startswith(f"{redirect}&" if redirect else f"{base}/etch-complete?")
    query = {k: v[0] for k, v in parse_qs(urlsplit(string).query).items()}
    if redirect:
        query = {k: v for k, v in query.items() if f"{k}=" not in redirect}
    elif event["action"] != "signerError":
        assert query.pop("key")
    assert query == {k: str(v) for k, v in event.items() if v is not None}
    return event


def complete_refused(frame: Any) -> list[Any]:
    """POST the complete URL from inside the signing page, with its own token."""
    return frame.evaluate(
        """async () => {
          const config = JSON.parse(document.getElementById("signing-config").textContent);
          const token = document.getElementById("signing").dataset.token;
          const response = await fetch(config.completeUrl, {
            method: "POST",
            headers: { "Content-Type": "application/json", "X-Signing-Token": token },
            body: JSON.stringify({ signature: { typed: "Charles Babbage" } }),
          });
          return [response.status, await response.json()];
        }"""
    )


def touch_stroke(tab: Tab, points: list[tuple[float, float]]) -> None:
    """A finger drawn over ``points`` (page coordinates), as real touch events."""
    cdp = tab.context.new_cdp_session(tab.page)
    first, *rest = points
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [_xy(first)]})
    for point in rest:
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [_xy(point)]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def _xy(point: tuple[float, float]) -> dict[str, float]:
    return {"x": point[0], "y": point[1]}


def zigzag(box: dict[str, float], steps: int = 24) -> list[tuple[float, float]]:
    """A signature-like line across the middle of ``box``."""
    points = []
    for i in range(steps + 1):
        x = box["x"] + box["width"] * (0.1 + 0.8 * i / steps)
        y = box["y"] + box["height"] * (0.35 if i % 4 in (0, 1) else 0.65)
        points.append((x, y))
    return points


def signers_of(packet: dict[str, Any]) -> dict[str, str]:
    return {s["aliasId"]: s["eid"] for s in packet["documentGroup"]["signers"]}


def above_caption(rect: dict[str, float]) -> dict[str, float]:
    return {**rect, "y": rect["y"] + CAPTION_BAND, "height": rect["height"] - CAPTION_BAND}


def test_two_signers_sign_in_order_in_an_iframe_of_another_origin(
    browser,
    live_server,
    embedder,
    organization: Organization,
    create_packet,
    sign_url,
    api_client: Client,
    settings: Any,
    tmp_path: Path,
) -> None:
    organization.embed_origins = [embedder]
    organization.save()
    variables = two_signer_packet()
    variables["files"][0]["fields"].append(
        {"id": "init2", "type": "initial", "pageNum": 0, "rect": INITIALS}
    )
    variables["signers"][1]["fields"].append({"fileId": "agreement", "fieldId": "init2"})
    variables["signers"][1]["redirectURL"] = f"{embedder}/done?from=esign"
    packet = create_packet(files=variables["files"], signers=variables["signers"], isTest=True)
    eids = signers_of(packet)
    first, second = eids["client"], eids["provider"]
    first_url = live(sign_url(first), live_server)
    second_url = live(sign_url(second), live_server)
    origin = live_server.url

    # The second signer opens the link first: it is not their turn.
    early = Tab(browser, DESKTOP, expected=refused_request)
    frame = open_embedded(early, embedder, second_url)
    assert frame.get_attribute("#signing", "data-state") == "waiting"
    frame.wait_for_selector(".sg-page.is-rendered")
    assert "Ada Lovelace must sign first" in frame.inner_text("#sg-notice")
    assert not frame.is_visible("#sg-finish")
    assert not frame.is_visible("#sg-guide")
    assert frame.locator(".sg-field").count() == 0
    assert frame.is_visible(".sg-test-banner")
    shoot(early, "01-second-signer-waits")
    status, body = complete_refused(frame)
    assert (status, body["name"]) == (409, "ConflictError")
    assert Signer.objects.get(eid=second).status != "completed"
    assert early.page.evaluate("window.__events") == []
    early.close()

    # The first signer types a signature and fills a text field.
    tab = Tab(browser, DESKTOP, expected=refused_request)
    frame = open_embedded(tab, embedder, first_url)
    frame.wait_for_selector("#signing[data-state=ready]")
    frame.wait_for_selector(".sg-page.is-rendered")
    assert frame.inner_text("#sg-progress") == "Field 1 of 2"
    # The date is filled in by the service: not a field to complete, not counted as completed.
    assert frame.inner_text("#sg-count") == "0 of 2 completed"
    assert frame.is_visible(".sg-test-banner")
    assert frame.get_attribute(".sg-field.is-current", "data-key") == "agreement/title1"
    # It opens at the top of the first page, with the list of the signer's fields above it.
    assert frame.evaluate("() => document.getElementById('sg-main').scrollTop") == 0
    assert frame.locator(".sg-fieldlist-label").all_inner_texts() == ["Text", "Signature"]
    assert frame.locator(".sg-fieldlist-where").all_inner_texts() == ["page 1", "page 2"]
    shoot(tab, "02-first-signer-opens")

    frame.fill("#sg-value", "Chief Analyst")
    frame.click("#sg-next")
    expect(frame.locator("#sg-progress")).to_have_text("Field 2 of 2")
    assert frame.get_attribute(".sg-field.is-current", "data-key") == "agreement/sig1"
    frame.click("#sg-adopt-open")
    assert frame.is_visible("#sg-adopt")
    assert not frame.is_visible("#sg-modes")  # signatureMode "text": typing only
    assert frame.input_value("#sg-typed") == "Ada Lovelace"
    until(frame, "() => document.fonts.check('40px Kristi')")
    shoot(tab, "03-first-signer-adopts-typed")
    frame.click("#sg-adopt-ok")
    assert not frame.is_visible("#sg-adopt")
    assert frame.inner_text(".sg-field[data-key='agreement/sig1'] .sg-hand") == "Ada Lovelace"
    assert "All 2 fields completed" in frame.inner_text("#sg-count")
    until(frame, "() => document.activeElement.id === 'sg-finish'")
    shoot(tab, "04-first-signer-ready")

    frame.click("#sg-finish")
    frame.wait_for_selector("#signing[data-state=done]")
    assert frame.inner_text("#sg-result-title") == "Done"
    shoot(tab, "05-first-signer-done")
    event = assert_posted_pair(events(tab, 2), origin, COMPLETE_KEYS)
    assert event == {
        "action": "signerComplete",
        "signerEid": first,
        "signerStatus": "completed",
        "nextSignerEid": second,
        "documentGroupEid": packet["documentGroup"]["eid"],
        "documentGroupStatus": "partial",
        "etchPacketEid": packet["eid"],
    }
    tab.close()

    # The second signer, now in turn, draws: with the mouse, clears, then with a finger.
    tab = Tab(browser, DESKTOP, expected=refused_request, has_touch=True)
    frame = open_embedded(tab, embedder, second_url)
    frame.wait_for_selector("#signing[data-state=ready]")
    frame.wait_for_selector(".sg-page.is-rendered")
    assert frame.inner_text("#sg-progress") == "Field 1 of 2"
    assert frame.get_attribute(".sg-field.is-current", "data-key") == "agreement/init2"
    frame.click(".sg-field[data-key='agreement/sig2']")  # a click on the field adopts there
    frame.wait_for_selector("#sg-adopt[open]")
    assert frame.inner_text("#sg-progress") == "Field 2 of 2"
    assert frame.is_checked("#sg-modes input[value=draw]")
    assert frame.input_value("#sg-initials") == "CB"
    pad = frame.locator("#sg-pad").bounding_box()
    mouse = tab.page.mouse
    first_point, *rest = zigzag(pad)
    mouse.move(*first_point)
    mouse.down()
    for point in rest:
        mouse.move(*point, steps=2)
    mouse.up()
    shoot(tab, "06-second-signer-draws", phone=False)
    frame.click("#sg-pad-clear")
    frame.click("#sg-adopt-ok")
    expect(frame.locator("#sg-adopt-error")).to_contain_text("Draw your signature")
    tab.page.set_viewport_size(PHONE)
    until(frame, "() => document.getElementById('sg-pad').getBoundingClientRect().width < 390")
    touch_stroke(tab, zigzag(frame.locator("#sg-pad").bounding_box()))
    frame.wait_for_selector("#sg-adopt-error", state="hidden")
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / "06-second-signer-draws-phone.png"))
    frame.click("#sg-adopt-ok")
    frame.wait_for_selector(".sg-field[data-key='agreement/sig2'] img")
    assert frame.get_attribute(".sg-field[data-key='agreement/sig2'] img", "src").startswith(
        "data:image/png;base64,"
    )
    tab.page.screenshot(path=str(SHOTS / "07-second-signer-ready-phone.png"))
    tab.page.set_viewport_size(DESKTOP)
    tab.page.wait_for_timeout(300)
    tab.page.screenshot(path=str(SHOTS / "07-second-signer-ready-desktop.png"))
    frame.click("#sg-finish")

    # The redirect URL opens in the frame, with the keys; both forms were posted before it.
    # (The frame's location is readable from here only once it shows the app's own page.)
    tab.page.wait_for_function(
        """() => {
          try { return document.getElementById("app-frame").contentWindow.location.pathname === "/done"; }
          catch { return false; }
        }"""
    )
    event = assert_posted_pair(
        events(tab, 2), origin, COMPLETE_KEYS, redirect=f"{embedder}/done?from=esign"
    )
    assert event["signerEid"] == second
    assert event["nextSignerEid"] is None
    assert event["documentGroupStatus"] == "completed"
    done_frame = tab.page.wait_for_selector("#app-frame").content_frame()
    done_frame.wait_for_selector("text=Back in the app")
    redirect = parse_qs(urlsplit(done_frame.url).query)
    assert redirect["from"] == ["esign"]
    assert redirect["action"] == ["signerComplete"]
    assert redirect["signerEid"] == [second]
    shoot(tab, "08-second-signer-redirected", phone=False)
    tab.close()

    # The completed document shows both signatures inside their fields, once it is sealed.
    stored = Packet.objects.get(eid=packet["eid"])
    assert stored.status == "completed"
    zip_url = packet["documentGroup"]["downloadZipURL"].replace(settings.PUBLIC_BASE_URL, "")
    assert api_client.get(zip_url).status_code == 503  # being sealed
    settings.SEAL_DEV_DIR = tmp_path / "seal-dev"  # a development key of the test's own
    settings.SEAL_PKCS11_MODULE, settings.SEAL_TSA_URLS = "", []
    assert packet_seal(packet_id=stored.pk).startswith("sealed")
    response = api_client.get(zip_url)
    assert response.status_code == 200
    pdf = zipfile.ZipFile(io.BytesIO(response.content)).read("agreement.pdf")
    image = render(pdf, page=1)
    (SHOTS / "09-completed-page-2.png").parent.mkdir(parents=True, exist_ok=True)
    image.save(SHOTS / "09-completed-page-2.png")
    typed_ink = dark_pixels(image, above_caption(SIG1), 792)
    drawn_ink = dark_pixels(image, above_caption(SIG2), 792)
    blank_ink = dark_pixels(image, BLANK, 792)
    assert typed_ink > 150, typed_ink
    assert drawn_ink > 150, drawn_ink
    assert blank_ink == 0
    page_one, page_two = words(pdf)
    assert text_in_rect(page_two, above_caption(SIG1)) == "Ada Lovelace"
    assert "Charles" not in text_in_rect(page_two, above_caption(SIG2))  # ink, not text
    assert text_in_rect(page_one, {"x": 72, "y": 600, "width": 200, "height": 20}) == (
        "Chief Analyst"
    )
    assert text_in_rect(page_one, INITIALS) == "CB"
