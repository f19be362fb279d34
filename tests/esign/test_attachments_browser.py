"""What a signer does with an attachment field, in Chromium on a phone (390×844, touch) and on a
desktop, in English and in the signer's Spanish: Finish asks for the required file first, a HEIC
photo is refused with a message beside the field, a photo taken with the camera input is
attached and shown, and the packet is signed with it. Screenshots in test-artifacts/esign/;
axe finds nothing."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image

from esign.models import SignerAttachment
from tests.axe import axe_violations
from tests.browser import Tab
from tests.esign.conftest import first_signer_created
from tests.esign.test_attachments import ID_PHOTO, PROOF, heic
from tests.esign.test_signing_browser import SHOTS, refused_request

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
PHONE_OPTIONS = {"is_mobile": True, "has_touch": True, "device_scale_factor": 2}

WORDS = {
    "en": {
        "title": "Files to attach",
        "missing": "Attach “Photo of your ID” to finish.",
        "heic": "HEIC",
        "attached": "Attached: IMG_0042.jpg",
        "done": "You signed",
    },
    "es": {
        "title": "Archivos para adjuntar",
        "missing": "Adjunte «Photo of your ID» para terminar.",
        "heic": "HEIC",
        "attached": "Adjunto: IMG_0042.jpg",
        "done": "Ya firmó",
    },
}


def camera_photo() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (1200, 900), (90, 140, 200)).save(out, "JPEG", quality=85)
    return out.getvalue()


@pytest.fixture
def attach_signer(
    graphql: Callable[..., Any], settings: Any, live_server: Any
) -> Callable[[str], str]:
    settings.PUBLIC_BASE_URL = live_server.url

    def make(language: str) -> str:
        return first_signer_created(graphql, language, attachments=[ID_PHOTO, PROOF])[0]

    return make


@pytest.mark.parametrize("language", ["en", "es"])
@pytest.mark.parametrize(
    ("name", "viewport", "options"), [("phone", PHONE, PHONE_OPTIONS), ("desktop", DESKTOP, {})]
)
def test_a_signer_attaches_a_photo_and_signs(
    browser: Any,
    attach_signer: Callable[[str], str],
    sign_url: Callable[..., str],
    language: str,
    name: str,
    viewport: dict[str, int],
    options: dict[str, Any],
) -> None:
    words = WORDS[language]
    signer_eid = attach_signer(language)
    tab = Tab(browser, viewport, expected=refused_request, **options)
    page = tab.page
    page.goto(sign_url(signer_eid))
    page.wait_for_selector("#signing[data-state=ready]")
    section = page.locator("#sg-attachments")
    assert section.is_visible()
    assert page.inner_text("#sg-attachments-title") == words["title"]
    photo_field = section.locator(".sg-attachment").first
    camera = photo_field.locator("input[data-role=camera]")
    assert camera.get_attribute("capture") == "environment"
    assert camera.get_attribute("accept") == "image/png,image/jpeg"

    # The document's fields, then Finish: the required file is asked for first.
    page.fill("#sg-value", "Chief Analyst")
    page.click("#sg-next")
    page.click("#sg-adopt-open")
    page.click("#sg-adopt-ok")
    page.wait_for_selector("#sg-adopt", state="hidden")
    page.click("#sg-finish")
    error = photo_field.locator("[data-role=error]")
    error.wait_for(state="visible")
    assert error.inner_text() == words["missing"]

    # An iPhone's own HEIC photo is refused by the server, with the reason beside the field.
    photo_field.locator("input[data-role=choose]").set_input_files(
        {"name": "IMG_0041.HEIC", "mimeType": "image/heic", "buffer": heic()}
    )
    page.wait_for_function(
        "el => el.textContent.includes('HEIC')", arg=error.element_handle(), timeout=10_000
    )
    assert words["heic"] in error.inner_text()
    assert not SignerAttachment.objects.exists()
    SHOTS.mkdir(parents=True, exist_ok=True)
    photo_field.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"attachments-refused-{language}-{name}.png"))
    assert axe_violations(page) == []

    # A photo from the camera (the browser names it), attached and shown.
    camera.set_input_files(
        {"name": "IMG_0042.jpg", "mimeType": "image/jpeg", "buffer": camera_photo()}
    )
    file_line = photo_field.locator("[data-role=file]")
    page.wait_for_function(
        "el => el.textContent.includes('IMG_0042')", arg=file_line.element_handle(), timeout=10_000
    )
    assert file_line.inner_text().startswith(words["attached"])
    assert error.is_hidden()
    photo_field.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"attachments-{language}-{name}.png"))
    assert axe_violations(page) == []

    page.click("#sg-finish")
    page.wait_for_selector("#signing[data-state=done]")
    assert words["done"] in page.inner_text("#sg-result-text")
    assert SignerAttachment.objects.get().filename == "IMG_0042.jpg"
    tab.close()
