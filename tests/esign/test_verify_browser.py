"""The verification page in a real browser (headless Chromium through Playwright): upload a sealed
document, then the same file with one byte changed, on a desktop and a phone; screenshots go to
test-artifacts/verify/."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from django.test import Client

from esign.sealing.seal import packet_seal
from tests.browser import PHONE, Tab
from tests.esign.test_seal_packets import zip_url
from tests.esign.test_verify import changed_in_content
from tests.templates_app.conftest import ARTIFACTS

# The marks of every test of a sealed packet's pages here (imported by the other such modules).
pytestmark = [
    pytest.mark.usefixtures("development_seal"),
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
]

SHOTS = ARTIFACTS / "verify"
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture
def files(
    complete,  # noqa: F811 - the fixture imported above
    api_client: Client,
    tmp_path: Path,
) -> dict[str, Path]:
    """A sealed document as downloaded, and a copy with one byte changed."""
    created, packet = complete()
    packet_seal(packet_id=packet.pk)
    archive = zipfile.ZipFile(io.BytesIO(api_client.get(zip_url(created)).content))
    sealed = archive.read("agreement.pdf")
    paths = {
        "sealed": tmp_path / "agreement.pdf",
        "changed": tmp_path / "changed" / "agreement.pdf",
    }
    paths["changed"].parent.mkdir()
    paths["sealed"].write_bytes(sealed)
    paths["changed"].write_bytes(changed_in_content(sealed))
    return paths


def test_a_sealed_pdf_and_a_one_byte_changed_copy(browser, live_server, files) -> None:
    # Every script or console error of its pages fails the test when it closes.
    watched = Tab(browser, DESKTOP)
    tab = watched.page
    SHOTS.mkdir(parents=True, exist_ok=True)

    tab.goto(f"{live_server.url}/verify")
    assert tab.title() == "Verify a signed PDF"
    tab.screenshot(path=str(SHOTS / "01-verify-empty-desktop.png"), full_page=True)
    tab.get_by_label("PDF file").set_input_files(str(files["sealed"]))
    tab.get_by_role("button", name="Verify").click()
    tab.wait_for_selector("#result")

    assert tab.title() == "Valid, with a development seal: agreement.pdf | Verify a signed PDF"
    assert tab.inner_text("#verdict").startswith("! Valid, with a development seal.")
    assert tab.inner_text("#sealed-by-us").startswith("✓ Sealed by this service.")
    signature = tab.locator(".signature").first
    assert "DEVELOPMENT ONLY - document automation seal" in signature.inner_text()
    assert "PAdES-B-B" in signature.inner_text()
    assert tab.locator("dd.yes").count() == 2  # intact, whole; trusted here only (dd.warn)
    assert tab.locator("dd.warn").count() == 1
    # A PAdES-B-B seal has no timestamp: said so, not "Timestamp None".
    timestamp = signature.locator("div:has(> dt:text-is('Timestamp')) dd").inner_text()
    assert timestamp.startswith("Not timestamped: the signing time is the one the signature")
    assert "None" not in signature.inner_text()
    tab.screenshot(path=str(SHOTS / "02-verify-sealed-desktop.png"), full_page=True)

    tab.set_viewport_size(PHONE)
    tab.get_by_label("PDF file").set_input_files(str(files["changed"]))
    tab.get_by_role("button", name="Verify").click()
    tab.wait_for_selector("#result")

    assert tab.title() == "Changed after signing: agreement.pdf | Verify a signed PDF"
    verdict = tab.inner_text("#verdict")
    assert verdict.startswith("✗ Changed after signing. The file is not as it was signed")
    assert "The document was changed after it was signed." in verdict
    assert tab.inner_text("#sealed-by-us").startswith("✗ Not a file this service sealed.")
    assert tab.locator("dd.no").count() == 3
    width = tab.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"]  # nothing wider than the phone: no sideways scrolling
    tab.screenshot(path=str(SHOTS / "03-verify-changed-phone.png"), full_page=True)

    watched.close()
