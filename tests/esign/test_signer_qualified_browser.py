"""The issue's "done when" for signature levels (issue 51), in Chromium: a packet with an
``advanced`` signer and a ``qualified`` one, both signing in the browser, the second through the
local CSC v2 service's consent page and the PIN and one-time code form; sealed with the local
TSA, it carries the advanced signature, the qualified one, the seal and an archive timestamp,
each valid to pyHanko and pdfsig (the test CA and TSA trusted), and /verify names each signer's
level and certificate. The PIN page at 1366×900 and 390×844, screenshots in
test-artifacts/esign/, axe finds nothing."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from playwright.sync_api import expect
from pyhanko.pdf_utils.reader import PdfFileReader

from esign.models import Packet, Signer
from esign.sealing.config import signer_trust_roots, trust_roots
from esign.sealing.seal import packet_seal
from tests.axe import axe_violations
from tests.browser import Tab
from tests.esign import cscserver
from tests.esign.conftest import two_signer_packet
from tests.esign.sealpki import asn1, shared_pki
from tests.esign.signerpki import pdfsig_trusted, pdfsig_verdicts, signature_statuses
from tests.esign.test_allow_updates import created
from tests.esign.test_roles_browser import link
from tests.esign.test_seal_packets import zip_url
from tests.esign.test_signer_qualified import set_up_provider
from tests.esign.test_signing_browser import SHOTS
from tests.esign.test_verify import post_file

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def csc(settings: Any, live_server: Any, organization: Any) -> Iterator[cscserver.CscTestService]:
    service = cscserver.CscTestService()
    settings.FETCH_ALLOW_HOSTS = ["127.0.0.1"]
    settings.PUBLIC_BASE_URL = live_server.url
    set_up_provider(organization.pk, service)
    yield service
    service.close()


def levels_packet() -> dict[str, Any]:
    variables = two_signer_packet()
    client, provider = variables["signers"]
    client.update(signatureLevel="advanced", signatureMode="text")
    client["fields"] = [f for f in client["fields"] if f["fieldId"] != "title1"]
    provider.update(signatureLevel="qualified", signatureMode="text")
    del provider["redirectURL"]
    return variables


def refused_pin(message: Any) -> bool:
    """The one error the signer's tab may log: the 400 of the page that refuses a wrong PIN."""
    url = message.location.get("url", "")
    return url.endswith("/favicon.ico") or ("/api/etch/qualified/" in url and url.endswith("/sign"))


def signs(tab: Tab, url: str) -> None:
    page = tab.page
    page.goto(url)
    page.wait_for_selector("#signing[data-state=ready]")
    page.click('.sg-fieldlist-item:has-text("Signature")')
    page.click("#sg-adopt-open")
    page.click("#sg-adopt-ok")
    page.click("#sg-finish")


def at_the_pin_page(tab: Tab, live_server: Any, csc: cscserver.CscTestService) -> None:
    """The qualified signer signs, is taken to the provider's consent, allows, and comes back
    to the PIN and one-time code form."""
    signs(tab, link(live_server, "provider"))
    page = tab.page
    page.wait_for_url(f"{csc.base_url}/oauth2/authorize*")
    expect(page.locator("h1")).to_have_text("Local test QTSP")
    page.click("button[value=allow]")
    page.wait_for_url(f"{live_server.url}/api/etch/qualified/return*")
    expect(page.locator("h1")).to_have_text("Sign with your certificate")


def test_an_advanced_and_a_qualified_signer_sign_in_the_browser(
    browser: Any,
    live_server: Any,
    graphql: Any,
    api_client: Client,
    csc: cscserver.CscTestService,
    settings: Any,
    tmp_path: Path,
) -> None:
    pki = shared_pki()
    settings.SEAL_TSA_URLS = [pki.tsa_url]
    roots_file = tmp_path / "roots.pem"
    roots_file.write_bytes(pki.ca_pem)
    settings.SEAL_TRUST_ROOTS_FILE = str(roots_file)
    packet = created(graphql, levels_packet())
    SHOTS.mkdir(parents=True, exist_ok=True)
    viewport = {"width": 1366, "height": 900}

    tab = Tab(browser, viewport, reduced_motion="reduce")
    signs(tab, link(live_server, "client"))
    tab.page.wait_for_selector("#signing[data-state=done]")
    tab.close()

    tab = Tab(browser, viewport, reduced_motion="reduce", expected=refused_pin)
    at_the_pin_page(tab, live_server, csc)
    page = tab.page
    page.screenshot(path=str(SHOTS / "qualified-pin-desktop.png"))
    assert axe_violations(page) == []
    page.fill("#pin", "0000")  # a wrong PIN first: the provider's refusal, and the form again
    page.fill("#otp", cscserver.OTP)
    page.click("button[type=submit]")
    expect(page.locator(".sg-error-message")).to_contain_text("The PIN was not accepted")
    assert axe_violations(page) == []
    page.fill("#pin", cscserver.PIN)
    page.fill("#otp", cscserver.OTP)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/etch-complete*")
    tab.close()
    assert csc.signed == 1

    stored = Packet.objects.get(eid=packet["eid"])
    assert packet_seal(packet_id=stored.pk) == "sealed (PAdES-B-LTA)"
    archive = zipfile.ZipFile(io.BytesIO(api_client.get(zip_url(packet)).content))
    sealed = archive.read("agreement.pdf")
    root = asn1(pki.certificate)
    statuses = signature_statuses(sealed, [*trust_roots(), *signer_trust_roots(), root])
    assert list(statuses) == ["Signature1_client", "Signature2_provider", "DocumentSeal"]
    for name, status in statuses.items():
        assert status.bottom_line, name
        assert status.timestamp_validity is not None, name
        assert status.timestamp_validity.trusted, name
    reader = PdfFileReader(io.BytesIO(sealed))
    assert reader.embedded_signatures[-1].sig_object["/Type"] == "/DocTimeStamp"
    verdicts = pdfsig_verdicts(sealed, tmp_path)
    assert verdicts[:3] == ["Signature is Valid."] * 3
    assert len(verdicts) == 4  # and the archive timestamp
    roots = [*trust_roots(), *signer_trust_roots(), root]
    trusted = pdfsig_trusted(sealed, roots, tmp_path)
    assert trusted[:3] == [("Signature is Valid.", "Certificate is Trusted.")] * 3

    answer = post_file(api_client, sealed).json()
    signers = {s["name"]: s for s in answer["signers"]}
    assert signers["Ada Lovelace"]["signatureLevel"] == "advanced"
    assert signers["Charles Babbage"]["signatureLevel"] == "qualified"
    (qualified,) = signers["Charles Babbage"]["certificates"]
    assert (
        qualified["subject"] == statuses["Signature2_provider"].signing_cert.subject.human_friendly
    )
    (advanced,) = signers["Ada Lovelace"]["certificates"]
    assert advanced["serial"] == format(
        statuses["Signature1_client"].signing_cert.serial_number, "x"
    )


def test_the_pin_page_on_a_phone(
    browser: Any, live_server: Any, graphql: Any, csc: cscserver.CscTestService
) -> None:
    created(graphql, levels_packet())
    tab = Tab(browser, {"width": 1366, "height": 900}, reduced_motion="reduce")
    signs(tab, link(live_server, "client"))
    tab.page.wait_for_selector("#signing[data-state=done]")
    tab.close()
    assert Signer.objects.get(alias_id="client").status == "completed"

    tab = Tab(
        browser,
        {"width": 390, "height": 844},
        reduced_motion="reduce",
        is_mobile=True,
        has_touch=True,
    )
    at_the_pin_page(tab, live_server, csc)
    page = tab.page
    page.screenshot(path=str(SHOTS / "qualified-pin-phone.png"), full_page=True)
    assert axe_violations(page) == []
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390  # nothing wider than the phone
    tab.close()
