"""The verification page's verdicts in a real browser (headless Chromium through Playwright), on
a desktop and a 390 px phone: valid (a B-LTA seal of a trusted CA), valid with a development
seal, intact but not from a trusted signer (another installation's development seal; a revoked
certificate), changed after signing (an /Info-only update) and not signed (the seal removed).
Screenshots go to test-artifacts/verify/."""

from __future__ import annotations

import io
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from esign.engine.seal import seal_pdf
from esign.engine.seal_credentials import SoftwareKey, load_credentials
from esign.engine.seal_keys import create_development_pki
from esign.sealing.seal import packet_seal
from tests.browser import PHONE, watched_tab
from tests.esign import verify_files as files
from tests.esign.sealpki import shared_pki
from tests.esign.test_seal_engine import three_pages
from tests.esign.test_seal_packets import zip_url
from tests.esign.test_verify_browser import SHOTS
from tests.esign.test_verify_browser import pytestmark as pytestmark  # noqa: F401 - its marks


@pytest.fixture
def audited(
    complete,  # noqa: F811 - tests/esign/conftest.py
    api_client: Client,
    tmp_path: Path,
    settings: Any,
) -> dict[str, Path]:
    """One file of each verdict, each in a folder of its own (the page shows the file name)."""
    pki = shared_pki()
    roots = tmp_path / "roots.pem"
    roots.write_bytes(pki.ca_pem)
    settings.SEAL_TRUST_ROOTS_FILE = str(roots)
    created, packet = complete()
    packet_seal(packet_id=packet.pk)
    archive = zipfile.ZipFile(io.BytesIO(api_client.get(zip_url(created)).content))
    sealed = archive.read("agreement.pdf")
    elsewhere = create_development_pki(now=datetime.now(UTC))
    other_install = seal_pdf(
        three_pages(),
        credentials=load_credentials(
            SoftwareKey(elsewhere.key_pem, elsewhere.cert_pem, elsewhere.ca_pem)
        ),
        signing_time=files.NOW,
    )
    made = {
        "valid": files.lta_seal(three_pages(), pki),
        "development": sealed,
        "other-install": other_install,
        "revoked": files.revoked_signer(three_pages(), pki)[0],
        "changed": files.info_title_changed(sealed),
        "unsigned": files.seal_removed(sealed),
    }
    paths = {}
    for name, data in made.items():
        path = tmp_path / name / "agreement.pdf"
        path.parent.mkdir()
        path.write_bytes(data)
        paths[name] = path
    return paths


def verify(tab: Any, path: Path) -> None:
    tab.get_by_label("PDF file").set_input_files(str(path))
    with tab.expect_navigation():  # the last result stays on the page until the next one loads
        tab.get_by_role("button", name="Verify").click()
    tab.wait_for_selector("#result")


def verdict_of(tab: Any, path: Path, code: str) -> str:
    """The verdict's text for the file at ``path``, after checking its code (``data-verdict``)."""
    verify(tab, path)
    assert tab.get_attribute("#verdict", "data-verdict") == code
    return tab.inner_text("#verdict")


def no_sideways_scrolling(tab: Any) -> None:
    assert tab.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_each_verdict_reads_right_on_a_desktop_and_a_phone(browser, live_server, audited) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    with watched_tab(browser, width=1280, height=900) as tab:
        tab.goto(f"{live_server.url}/verify")

        verify(tab, audited["valid"])
        assert tab.title() == "Valid: agreement.pdf | Verify a signed PDF"
        assert tab.get_attribute("#verdict", "data-verdict") == "valid"
        assert tab.inner_text("#verdict").startswith(
            "✓ Valid. Every signature is intact and trusted, and nothing was changed after it."
        )
        assert "Seal tests software seal" in tab.inner_text(".signers")
        stamp = tab.locator(".document-timestamps .signature").first.inner_text()
        assert "Seal tests TSA" in stamp
        assert "Yes: nothing it covers was changed" in stamp
        tab.screenshot(path=str(SHOTS / "10-verdict-valid-lta-desktop.png"), full_page=True)

        verdict = verdict_of(tab, audited["development"], "valid_development")
        assert verdict.startswith("! Valid, with a development seal.")
        assert "trusted here only" in verdict
        assert tab.inner_text("#sealed-by-us").startswith("✓ Sealed by this service.")
        assert tab.locator("dd.warn").inner_text() == (
            "In this installation only: a development certificate, trusted nowhere else"
        )
        signers = tab.inner_text(".signers")
        assert "Ada Lovelace" in signers
        assert "Charles Babbage" in signers
        tab.screenshot(path=str(SHOTS / "11-verdict-development-desktop.png"), full_page=True)

        verdict = verdict_of(tab, audited["other-install"], "untrusted")
        assert verdict.startswith("! Intact, but not from a trusted signer.")
        tab.screenshot(path=str(SHOTS / "12-verdict-untrusted-desktop.png"), full_page=True)

        verdict = verdict_of(tab, audited["changed"], "changed")
        assert verdict.startswith("✗ Changed after signing.")
        assert "The document's information (title, author, subject...) was changed" in verdict
        tab.screenshot(path=str(SHOTS / "13-verdict-changed-desktop.png"), full_page=True)

        assert verdict_of(tab, audited["unsigned"], "not_signed").startswith("✗ Not signed.")
        assert tab.inner_text("#sealed-by-us").startswith(
            "! A document of this service, without its seal."
        )
        tab.screenshot(path=str(SHOTS / "14-verdict-unsigned-desktop.png"), full_page=True)

    with watched_tab(browser, width=PHONE["width"], height=PHONE["height"]) as tab:
        tab.goto(f"{live_server.url}/verify")
        for name, verdict, shot in (
            ("revoked", "untrusted", "20-verdict-revoked-phone.png"),
            ("changed", "changed", "21-verdict-changed-phone.png"),
            ("development", "valid_development", "22-verdict-development-phone.png"),
            ("unsigned", "not_signed", "23-verdict-unsigned-phone.png"),
        ):
            verdict_of(tab, audited[name], verdict)
            no_sideways_scrolling(tab)
            tab.screenshot(path=str(SHOTS / shot), full_page=True)
        verify(tab, audited["revoked"])
        assert "No: the certificate was revoked" in tab.inner_text(".signature")
        assert "claims: not verified" in tab.inner_text(".signers")
        assert "The file has no signature" not in tab.inner_text("#result")
