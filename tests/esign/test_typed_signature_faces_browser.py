"""Typed signatures in the script of the name (issue 49, item 6), in Chromium at 1366x900 and on
a phone (390x844), in English, Arabic and Japanese:

- a Latin name is previewed in Kristi, an Arabic one in Noto Naskh Arabic (a calligraphic face,
  not the plain sans it fell back to), both served by the page itself; the stamped PDF embeds the
  same face for the typed mark;
- a Japanese name has no handwriting-style face: the page says so beside the preview, in the
  page's language, and the PDF draws it with a plain CJK font, as the page does.

The face the browser really drew with is read from Chromium (CSS.getPlatformFontsForNode), not
only the declared font-family. Screenshots in test-artifacts/esign/; axe finds nothing.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from pypdf import PdfReader
from pypdf.generic import DictionaryObject

from esign.models import PacketDocument
from esign.packets.documents import document_pdf
from tests.axe import axe_violations
from tests.browser import Tab
from tests.esign.conftest import first_signer_created, to_the_adoption
from tests.esign.test_signing_browser import SHOTS, refused_request

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE_OPTIONS = {"is_mobile": True, "has_touch": True, "device_scale_factor": 2}
# Desktop first: the phone's tab goes on to sign, and the PDF is read after it.
SIZES = (
    ("desktop", {"width": 1366, "height": 900}, {}),
    ("phone", {"width": 390, "height": 844}, PHONE_OPTIONS),
)
NAMES = {"en": "Ada Lovelace", "ar": "آدا لوفلايس", "ja": "山田 花子"}
# The face Chromium draws the preview with, and the typed mark's font in the PDF (None: no
# handwriting face has the script).
FACES = {"en": "Kristi", "ar": "Noto Naskh Arabic", "ja": None}
PDF_FONTS = {"en": "Kristi", "ar": "NotoNaskhArabic-Regular", "ja": None}
HANDWRITING_PDF_FONTS = {"Kristi", "NotoNaskhArabic-Regular"}
PLAIN_NOTE = {
    "en": "No handwriting-style font covers this script; your name is shown in a plain font.",
    "ar": "لا يوجد خط بأسلوب الكتابة اليدوية يغطي هذه الكتابة؛ يظهر اسمك بخط عادي.",
    "ja": "この文字体系に対応する手書き風フォントはありません。お名前は標準のフォントで表示されます。",
}


@pytest.fixture
def public(settings: Any, live_server: Any) -> Any:
    settings.PUBLIC_BASE_URL = live_server.url
    return live_server


def drawn_with(tab: Tab, selector: str) -> dict[str, int]:
    """The faces Chromium drew the element's text with: family name -> glyphs."""
    cdp = tab.context.new_cdp_session(tab.page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    cdp.detach()
    return {font["familyName"]: font["glyphCount"] for font in fonts}


def pdf_fonts(pdf: bytes) -> set[str]:
    """The base font names (subset tags taken off) drawn on any page or in its forms (stamps are
    forms drawn over the pages, esign.engine.stamp)."""
    found: set[str] = set()

    def walk(resources: Any, depth: int = 0) -> None:
        resources = resources.get_object() if resources is not None else None
        if not isinstance(resources, DictionaryObject) or depth > 8:
            return
        for font in (resources.get("/Font") or DictionaryObject()).get_object().values():
            found.add(str(font.get_object()["/BaseFont"]).lstrip("/").split("+")[-1])
        for xobject in (resources.get("/XObject") or DictionaryObject()).get_object().values():
            form = xobject.get_object()
            if form.get("/Subtype") == "/Form":
                walk(form.get("/Resources"), depth + 1)

    for page in PdfReader(io.BytesIO(pdf)).pages:
        walk(page.get("/Resources"))
    return found


def shoot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


@pytest.mark.parametrize("language", ["en", "ar", "ja"])
def test_a_typed_name_is_shown_and_stamped_in_a_handwriting_face_of_its_script(
    browser: Any, graphql: Any, sign_url: Any, public: Any, language: str
) -> None:
    signer_eid, created = first_signer_created(graphql, language)
    name, face = NAMES[language], FACES[language]
    for size, viewport, options in SIZES:
        tab = Tab(browser, viewport, expected=refused_request, **options)
        page = tab.page
        page.goto(sign_url(signer_eid))
        page.wait_for_selector("#signing[data-state=ready]")
        to_the_adoption(page)
        page.fill("#sg-typed", name)
        page.evaluate("document.fonts.ready.then(() => true)")
        preview = page.locator("#sg-typed-preview")
        assert preview.inner_text() == name
        family = preview.evaluate("el => getComputedStyle(el).fontFamily")
        assert family == 'Kristi, "Hand Naskh", cursive', family
        used = drawn_with(tab, "#sg-typed-preview")
        note = page.locator("#sg-typed-plain")
        if face is not None:
            # Every letter in the one face; a space may come from the first face of the list.
            others = {family: count for family, count in used.items() if family != face}
            assert face in used, used
            assert others in ({}, {"Kristi": name.count(" ")}), used
            assert note.is_hidden()
            assert page.get_attribute("#sg-typed", "aria-describedby") is None
        else:
            # No letter in a handwriting face (Kristi draws the space at most).
            assert "Noto Naskh Arabic" not in used, used
            assert used.get("Kristi", 0) <= name.count(" "), used
            assert note.is_visible()
            assert note.inner_text() == PLAIN_NOTE[language]
            assert page.get_attribute("#sg-typed", "aria-describedby") == "sg-typed-plain"
            # Beside the preview: right under it.
            under = preview.bounding_box()
            box = note.bounding_box()
            assert 0 <= box["y"] - (under["y"] + under["height"]) <= 12
        shoot(page, f"typed-face-{language}-{size}")
        assert axe_violations(page) == []
        if size == "desktop":
            page.click("#sg-adopt-cancel")
            tab.close()
            continue
        page.press("#sg-typed", "Enter")
        page.wait_for_selector("#sg-adopt", state="hidden")
        page.click("#sg-finish")
        page.wait_for_selector("#signing[data-state=done]")
        tab.close()

    document = PacketDocument.objects.get(packet__eid=created["eid"])
    fonts = pdf_fonts(document_pdf(document))
    expected = PDF_FONTS[language]
    if expected is not None:
        assert expected in fonts, fonts
        assert not (HANDWRITING_PDF_FONTS - {expected}) & fonts, fonts
        assert "NotoSansArabic-Regular" not in fonts  # the plain face Arabic names had
    else:
        # The plain font the page named: Noto Sans, with a CJK font for the kanji.
        assert not HANDWRITING_PDF_FONTS & fonts, fonts
        assert any("CJK" in font or "Droid" in font for font in fonts), fonts


def test_the_note_follows_the_name_as_it_is_typed(
    browser: Any, graphql: Any, sign_url: Any, public: Any
) -> None:
    """Shown while some letter has no handwriting face, gone when none is left; digits and
    punctuation do not count."""
    signer_eid, _ = first_signer_created(graphql)
    tab = Tab(browser, {"width": 1366, "height": 900}, expected=refused_request)
    page = tab.page
    page.goto(sign_url(signer_eid))
    page.wait_for_selector("#signing[data-state=ready]")
    to_the_adoption(page)
    note = page.locator("#sg-typed-plain")
    for typed, shown in (
        ("Ada Lovelace 3rd, Jr.", False),
        ("Ада Лавлейс", True),  # Cyrillic: Kristi has none
        ("آدا لوفلايس", False),
        ("Ada 山田", True),
        ("Ada", False),
    ):
        page.fill("#sg-typed", typed)
        assert note.is_visible() is shown, typed
    tab.close()
