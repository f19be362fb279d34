"""Required files to attach in the signing page's guide (issue 49, item 2), in Chromium on a
phone (390×844) and at 1366×900, in English, Arabic and Japanese.

With every field filled but a required file missing, the guide does not say "All N fields
completed. Select Finish to sign." and Finish is not shown ready: the count includes the file
and the guide names it. A limit of 5,000,000 bytes reads "5 MB" (decimal units), not "4.8 MB".
A text file named ``notes.pdf`` is told it is not the PDF its name says, and the types the field
accepts. Once the file is
attached the guide says all is done and Finish is ready. Screenshots in test-artifacts/esign/;
axe finds nothing."""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image

from tests.axe import axe_violations
from tests.browser import DESKTOP, PHONE, PHONE_OPTIONS, Tab
from tests.esign import test_attachments as attachments
from tests.esign.conftest import first_signer_created, to_the_adoption
from tests.esign.test_signing_browser import SHOTS, refused_request

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = (("phone", PHONE, PHONE_OPTIONS), ("desktop", DESKTOP, {}))
ID_PHOTO = {**attachments.ID_PHOTO, "maxBytes": 5_000_000}
PROOF = attachments.PROOF
# What each language says where the test looks (esign/locale).
WORDS = {
    "en": {"all_done": "All 3 fields completed. Select Finish to sign.", "types": "PDF, PNG, JPEG"},
    "ar": {"all_done": "اكتملت الحقول كلها (3). اختر «إنهاء» للتوقيع.", "types": "PDF, PNG, JPEG"},
    "ja": {
        "all_done": "3 個のフィールドすべてに入力しました。署名するには「完了」を選択してください。",
        "types": "PDF, PNG, JPEG",
    },
}


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (400, 300), (60, 120, 200)).save(out, "PNG")
    return out.getvalue()


@pytest.fixture
def attach_signer(graphql: Any, settings: Any, live_server: Any) -> Any:
    settings.PUBLIC_BASE_URL = live_server.url

    def make(language: str) -> str:
        return first_signer_created(graphql, language, attachments=[ID_PHOTO, PROOF])[0]

    return make


def fill_the_fields(page: Any) -> None:
    to_the_adoption(page)
    page.press("#sg-typed", "Enter")
    page.wait_for_selector("#sg-adopt", state="hidden")


@pytest.mark.parametrize("language", ["en", "ar", "ja"])
def test_a_required_file_counts_in_the_guide_and_holds_finish(
    browser: Any, attach_signer: Any, sign_url: Any, language: str
) -> None:
    words = WORDS[language]
    for name, viewport, options in SIZES:
        tab = Tab(browser, viewport, expected=refused_request, **options)
        page = tab.page
        page.goto(sign_url(attach_signer(language)))
        page.wait_for_selector("#signing[data-state=ready]")
        photo = page.locator(".sg-attachment[data-field=idPhoto]")
        proof = page.locator(".sg-attachment[data-field=proof]")
        # "5 MB", isolated: not "MB 5" on an Arabic page.
        assert photo.locator(".sg-attachment-hint bdi").all_inner_texts() == ["PNG, JPEG", "5 MB"]
        assert photo.locator(".sg-attachment-label bdi").inner_text() == "Photo of your ID"

        fill_the_fields(page)
        count = page.locator("#sg-count")
        assert count.inner_text() != words["all_done"]
        assert "Photo of your ID" in count.locator("bdi").inner_text()
        assert "is-ready" not in (page.get_attribute("#sg-finish", "class") or "")
        assert page.get_attribute("#sg-bar", "value") == "2"
        assert page.get_attribute("#sg-bar", "max") == "3"

        # A text file named like a PDF: the types the field accepts.
        proof.locator("input[data-role=choose]").set_input_files(
            {"name": "notes.pdf", "mimeType": "application/pdf", "buffer": b"Just some notes.\n"}
        )
        error = proof.locator("[data-role=error]")
        error.wait_for(state="visible")
        assert words["types"] in error.inner_text()
        assert "notes.pdf" in error.inner_text()
        proof.scroll_into_view_if_needed()
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"attachment-guide-missing-{language}-{name}.png"))
        assert axe_violations(page) == []

        # Finish asks for the file; once it is attached, all is done.
        page.click("#sg-finish")
        photo.locator("[data-role=error]").wait_for(state="visible")
        photo.locator("input[data-role=choose]").set_input_files(
            {"name": "id.png", "mimeType": "image/png", "buffer": png()}
        )
        page.wait_for_function(
            "text => document.getElementById('sg-count').textContent === text",
            arg=words["all_done"],
            timeout=10_000,
        )
        assert "is-ready" in page.get_attribute("#sg-finish", "class")
        assert photo.locator("[data-role=file] bdi").first.inner_text() == "id.png"
        page.screenshot(path=str(SHOTS / f"attachment-guide-done-{language}-{name}.png"))
        assert axe_violations(page) == []
        tab.close()
