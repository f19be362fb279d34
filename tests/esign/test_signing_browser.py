"""The signing page in a real browser: headless Chromium, driven by Playwright, against the live
server, embedded in an iframe of a page served on another origin (the integrator's app).

Two signers sign in routing order, one typing and one drawing; the embedding page records the
postMessage events; the completed PDF shows both signatures where their fields are (pixels and
text). Screenshots of every step go to test-artifacts/esign/, on a desktop and a phone width.
"""

from __future__ import annotations

import base64
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
from tests.esign.conftest import contract_pdf, two_signer_packet
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


def test_an_expired_link_shows_the_error_page_and_posts_signer_error(
    browser, live_server, embedder, organization: Organization, create_packet, sign_url, graphql
) -> None:
    organization.embed_origins = [embedder]
    organization.save()
    first = signers_of(create_packet())["client"]
    url = live(sign_url(first), live_server)
    graphql(EXPIRE, {"s": first})

    tab = Tab(browser, DESKTOP, expected=refused_request)
    tab.page.goto(f"{embedder}/embed.html?src={quote(url, safe='')}")
    frame = tab.page.wait_for_selector("#app-frame").content_frame()
    frame.wait_for_selector(".sg-error[data-error-type=tokenExpired]")
    event = assert_posted_pair(events(tab, 2), live_server.url, ERROR_KEYS)
    assert event == {
        "action": "signerError",
        "errorType": "tokenExpired",
        "error": "tokenExpired",
        "message": "This signing link has expired.",
        "signerEid": first,
    }
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
    tab.page.goto(f"{embedder}/embed.html?src={quote(url, safe='')}")
    frame = tab.page.wait_for_selector("#app-frame").content_frame()
    frame.wait_for_selector(".sg-error[data-error-type=tokenExpired]")
    [as_object, as_string] = events(tab, 2)
    assert as_object == {
        "origin": live_server.url,
        "data": {
            "action": "signerError",
            "errorType": "tokenExpired",
            "error": "tokenExpired",
            "message": "This signing link has expired.",
            "signerEid": first,
        },
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


def rotated_contract() -> bytes:
    """contract_pdf with its pages turned a quarter clockwise (/Rotate 90)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(contract_pdf())))
    for page in writer.pages:
        page.rotate(90)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_fields_sit_where_they_are_on_a_rotated_page(
    browser, live_server, create_packet, sign_url
) -> None:
    variables = two_signer_packet()
    variables["files"][0]["file"]["data"] = base64.b64encode(rotated_contract()).decode()
    packet = create_packet(files=variables["files"])
    first = signers_of(packet)["client"]

    tab = Tab(browser, PHONE, expected=refused_request, is_mobile=True)
    tab.page.goto(live(sign_url(first), live_server))
    tab.page.wait_for_selector("#signing[data-state=ready]")
    box = tab.page.evaluate(
        """() => {
          const field = document.querySelector(".sg-field[data-key='agreement/sig1']");
          const page = field.closest(".sg-page").getBoundingClientRect();
          const own = field.getBoundingClientRect();
          return { left: (own.left - page.left) / page.width, top: (own.top - page.top) / page.height,
                   width: own.width / page.width, height: own.height / page.height,
                   ratio: page.width / page.height };
        }"""
    )
    tab.close()
    # Shown turned: the page is 792 wide and 612 high, and user space (x, y) shows at
    # (left = y, top = x): the rect x 72, y 500, 200 x 50 is a tall box near the top.
    expected = {"left": 500 / 792, "top": 72 / 612, "width": 50 / 792, "height": 200 / 612}
    for key, value in expected.items():
        assert box[key] == pytest.approx(value, abs=0.01), (key, box)
    assert box["ratio"] == pytest.approx(792 / 612, abs=0.01)


def test_the_signer_downloads_their_copy_after_signing_and_when_reopening(
    browser, live_server, create_packet, sign_url
) -> None:
    first = signers_of(create_packet())["client"]
    url = live(sign_url(first), live_server)

    tab = Tab(browser, DESKTOP, expected=refused_request)
    tab.page.goto(url)
    tab.page.wait_for_selector("#signing[data-state=ready]")
    assert not tab.page.is_visible("#sg-copies")  # nothing signed yet
    tab.page.fill("#sg-value", "Chief Analyst")
    tab.page.click("#sg-next")
    tab.page.click("#sg-adopt-open")
    tab.page.click("#sg-adopt-ok")
    tab.page.click("#sg-finish")
    tab.page.wait_for_selector("#signing[data-state=done]")
    assert "Download your copy below" in tab.page.inner_text("#sg-result-text")
    link = tab.page.locator("#sg-copies-list a")
    assert link.inner_text() == "Download “Services agreement” (PDF)"
    assert link.get_attribute("download") == "agreement.pdf"
    # The lasting copy (90 days), not a link behind the 24-hour signing token.
    assert f"/api/etch/copy/{first}/agreement.pdf?key=" in link.get_attribute("href")
    assert "token=" not in link.get_attribute("href")
    assert "sealed copies" in tab.page.inner_text("#sg-copies-note")
    with tab.page.expect_download() as download:
        link.click()
    pdf = Path(download.value.path()).read_bytes()
    assert pdf.startswith(b"%PDF")
    assert download.value.suggested_filename == "agreement.pdf"
    shoot(tab, "14-signed-copy")
    tab.close()

    # The link opened again: the documents, and the copy.
    tab = Tab(browser, PHONE, expected=refused_request, is_mobile=True, has_touch=True)
    tab.page.goto(url)
    tab.page.wait_for_selector("#sg-copies:not([hidden])")
    assert "You have signed these documents" in tab.page.inner_text("#sg-notice")
    assert tab.page.locator("#sg-copies-list a").count() == 1
    assert "/api/etch/copy/" in tab.page.get_attribute("#sg-copies-list a", "href")
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / "15-reopened-copy-phone.png"))
    tab.close()


def test_typed_values_are_checked_initials_adopted_alone_and_the_pages_scroll_by_keyboard(
    browser, live_server, create_packet, sign_url
) -> None:
    variables = two_signer_packet()
    variables["files"][0]["fields"] += [
        {"id": "mail1", "type": "email", "pageNum": 0, "rect": {"x": 72, "y": 560, "width": 200, "height": 20}},
        {"id": "init1", "type": "initial", "pageNum": 0, "rect": INITIALS},
    ]  # fmt: skip
    variables["signers"][0]["fields"] += [
        {"fileId": "agreement", "fieldId": "mail1"},
        {"fileId": "agreement", "fieldId": "init1"},
    ]
    first = signers_of(create_packet(files=variables["files"], signers=variables["signers"]))
    tab = Tab(browser, PHONE, expected=refused_request, is_mobile=True, has_touch=True)
    tab.page.goto(live(sign_url(first["client"]), live_server))
    tab.page.wait_for_selector("#signing[data-state=ready]")
    tab.page.wait_for_selector(".sg-page.is-rendered")
    assert tab.page.inner_text("#sg-count") == "0 of 4 completed"
    assert tab.page.evaluate("() => document.getElementById('sg-main').scrollTop") == 0
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / "16-opens-at-the-top-phone.png"))

    # Reading order: initials (top right of page 1), then the text, the email, the signature.
    assert tab.page.inner_text("#sg-progress") == "Field 1 of 4"
    tab.page.click("#sg-adopt-open")
    tab.page.wait_for_selector("#sg-adopt[open]")
    assert tab.page.inner_text("#sg-adopt-title") == "Adopt your initials"
    assert not tab.page.is_visible("#sg-pad")
    assert not tab.page.is_visible("#sg-typed")
    assert tab.page.input_value("#sg-initials") == "AL"
    tab.page.screenshot(path=str(SHOTS / "17-adopt-initials-phone.png"))
    tab.page.click("#sg-adopt-ok")
    tab.page.wait_for_selector("#sg-adopt", state="hidden")
    assert tab.page.inner_text("#sg-count") == "1 of 4 completed"

    tab.page.fill("#sg-value", "Chief Analyst")
    tab.page.click("#sg-next")
    tab.page.fill("#sg-value", "ada@")
    tab.page.click("#sg-next")  # leaving the field: it says what is wrong
    assert tab.page.inner_text("#sg-count") == "2 of 4 completed"
    tab.page.click("#sg-adopt-open")
    assert tab.page.inner_text("#sg-adopt-title") == "Adopt your signature"
    tab.page.click("#sg-adopt-ok")
    tab.page.wait_for_selector("#sg-adopt", state="hidden")
    tab.page.click("#sg-finish")
    assert tab.page.inner_text("#sg-progress") == "Field 3 of 4"
    assert (
        tab.page.inner_text("#sg-field-error") == "Enter an email address, like name@example.com."
    )
    tab.page.screenshot(path=str(SHOTS / "18-email-checked-phone.png"))
    # The server refuses it too, and stores nothing.
    status, body = tab.page.evaluate(
        """async () => {
          const config = JSON.parse(document.getElementById("signing-config").textContent);
          const token = document.getElementById("signing").dataset.token;
          const response = await fetch(config.completeUrl, {
            method: "POST",
            headers: { "Content-Type": "application/json", "X-Signing-Token": token },
            body: JSON.stringify({ signature: { typed: "Ada" }, initials: "AL",
              values: { "agreement/title1": "CTO", "agreement/mail1": "ada@" } }),
          });
          return [response.status, await response.json()];
        }"""
    )
    assert (status, body["fields"]) == (
        400,
        [
            {
                "property": "agreement/mail1",
                "message": "Enter an email address, like name@example.com.",
            }
        ],
    )
    assert Signer.objects.get(eid=first["client"]).status != "completed"

    # The documents scroll from the keyboard: the area takes focus, PageDown moves it.
    tab.page.set_viewport_size(DESKTOP)
    tab.page.focus("#sg-main")
    tab.page.keyboard.press("PageDown")
    until(tab.page, "() => document.getElementById('sg-main').scrollTop > 200")
    tab.page.fill("#sg-value", "ada@example.com")
    tab.page.click("#sg-finish")
    tab.page.wait_for_selector("#signing[data-state=done]")
    tab.close()
    assert Signer.objects.get(eid=first["client"]).values["agreement/mail1"] == "ada@example.com"
