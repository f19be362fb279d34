"""The signing page's fields in a real browser: fields sit where they are on a rotated page, typed
values are checked, initials are adopted alone, the pages scroll by keyboard, and the signer
downloads their copy after signing and when reopening."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest

from esign.models import Signer
from tests.browser import Tab
from tests.esign.conftest import contract_pdf, two_signer_packet
from tests.esign.test_signing_browser import (
    DESKTOP,
    INITIALS,
    PHONE,
    SHOTS,
    live,
    refused_request,
    shoot,
    signers_of,
    until,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


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
