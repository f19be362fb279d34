"""The verification mark's link in a real browser (headless Chromium through Playwright): the QR
code read from the sealed document's page opens /verify on that document, on a desktop and a
phone, axe finds nothing, and the sealed PDF uploaded from there is the one this service sealed.
Screenshots go to test-artifacts/verification-mark/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from esign.models import Packet
from esign.packets.documents import sealed_document_pdf
from esign.sealing.seal import packet_seal
from tests.axe import axe_violations
from tests.browser import PHONE
from tests.esign.test_verification_mark import qr_codes
from tests.esign.test_verify_browser import DESKTOP
from tests.esign.test_verify_browser import pytestmark as pytestmark  # noqa: F401 - its marks
from tests.templates_app.conftest import ARTIFACTS

SHOTS = ARTIFACTS / "verification-mark"


def test_the_qr_codes_link_opens_verify_on_the_sealed_document(
    browser, live_server, complete, settings: Any, tmp_path: Path
) -> None:
    _created, packet = complete()
    Packet.objects.filter(pk=packet.pk).update(verification_stamp=True)
    settings.PUBLIC_BASE_URL = live_server.url  # the link the mark carries points here
    packet_seal(packet_id=packet.pk)
    sealed = sealed_document_pdf(packet.documents.get())
    (link, _same) = qr_codes(sealed)
    assert link.startswith(f"{live_server.url}/verify?d=")
    path = tmp_path / "agreement.pdf"
    path.write_bytes(sealed)

    context = browser.new_context(viewport=DESKTOP)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.set_default_timeout(15_000)
    SHOTS.mkdir(parents=True, exist_ok=True)

    tab.goto(link)
    mark = tab.inner_text("#mark-verdict")
    assert mark.startswith("✓ Sealed by this service.")
    assert "“Services agreement” (2 pages)" in mark
    assert packet.documents.get().sealed_sha256 in mark
    assert axe_violations(tab) == []
    tab.screenshot(path=str(SHOTS / "01-mark-link-desktop.png"), full_page=True)

    tab.set_viewport_size(PHONE)
    assert tab.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert axe_violations(tab) == []
    tab.screenshot(path=str(SHOTS / "02-mark-link-phone.png"), full_page=True)

    # The copy the person holds, uploaded from the page the link opened.
    tab.get_by_label("PDF file").set_input_files(str(path))
    tab.get_by_role("button", name="Verify").click()
    tab.wait_for_selector("#result")
    assert tab.inner_text("#sealed-by-us").startswith("✓ Sealed by this service.")
    tab.screenshot(path=str(SHOTS / "03-mark-upload-phone.png"), full_page=True)

    tab.goto(f"{live_server.url}/verify?d={'0' * 24}")
    assert tab.inner_text("#mark-verdict").startswith("✗ Not a document this service sealed.")
    assert axe_violations(tab) == []
    tab.screenshot(path=str(SHOTS / "04-mark-unknown-phone.png"), full_page=True)

    context.close()
    assert errors == []
