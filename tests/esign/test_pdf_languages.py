"""Every PDF the service makes reads right in Arabic, Hebrew, Chinese, Japanese and Korean (issue
35, items 3 and 4): the audit trail (its labels in the packet's language, its values), a typed
signature's stamp, and filled values. reportlab draws code points left to right with no shaping,
so right-to-left text is shaped and put in visual order before drawing (core.engine.fonts.shaping,
in core.engine.pdf.text.TextSetter): read back with poppler's pdftotext, which gives right-to-left
text in reading order, a line is the string that was meant, its Arabic letters drawn in their
joined forms (presentation forms, which NFKC folds back); CJK is drawn with a font that has it
(glyph fallback), and the pixels show ink where the text is."""

from __future__ import annotations

import subprocess
import tempfile
import unicodedata
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from django.utils import translation
from PIL import Image

from core.engine.fonts import FontLibrary
from core.engine.fonts.shaping import visual_line
from core.engine.template_spec import Rect
from core.resources import font_library
from esign.engine.audit_trail import draw_audit_trail
from esign.engine.stamp import Stamp, stamp_pdf
from esign.packets.audit import trail_labels
from tests.esign.test_audit_trail import trail
from tests.esign.test_stamp import document, embedded_fonts, handwriting, inside, new_ink
from tests.pdfcheck import fonts, poppler_words
from tests.templates_app.conftest import ARTIFACTS

SHOTS = ARTIFACTS / "esign"
__all__ = ["handwriting"]  # the fixture of tests.esign.test_stamp, used here too


@pytest.fixture(scope="module")
def stamp_fonts(tmp_path_factory: pytest.TempPathFactory) -> FontLibrary:
    def no_download(url: str) -> bytes:
        raise OSError("no catalog fonts in these tests")

    return FontLibrary(cache_dir=tmp_path_factory.mktemp("fonts"), download=no_download)


def pdftotext(pdf: bytes) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "in.pdf"
        path.write_bytes(pdf)
        return subprocess.run(
            ["pdftotext", "-enc", "UTF-8", str(path), "-"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout


def read_back(pdf: bytes) -> str:
    """The text in reading order, joined letter forms folded back, bidi marks dropped."""
    text = unicodedata.normalize("NFKC", pdftotext(pdf))
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def render(pdf: bytes, name: str) -> Image.Image:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "in.pdf"
        path.write_bytes(pdf)
        subprocess.run(
            ["pdftoppm", "-r", "72", "-f", "1", "-l", "1", "-png", str(path), f"{tmp}/page"],
            check=True,
        )
        image = Image.open(f"{tmp}/page-1.png").convert("L")
        image.load()
    SHOTS.mkdir(parents=True, exist_ok=True)
    image.save(SHOTS / f"{name}.png")
    return image


def ink(image: Image.Image, box: tuple[int, int, int, int]) -> int:
    """Dark pixels in ``box`` (left, top, right, bottom) of a 72 dpi page."""
    return sum(image.crop(box).histogram()[:128])


def language_trail(language: str, packet_name: str, signer_name: str) -> bytes:
    with translation.override(language):
        labels = trail_labels()
    base = trail(packet_name=packet_name, labels=labels)
    signer = replace(base.signers[0], name=signer_name, events=base.signers[0].events[:3])
    return draw_audit_trail(replace(base, signers=(signer,)), fonts=font_library())


def test_shaping_joins_arabic_letters_and_orders_right_to_left_text_visually() -> None:
    assert visual_line("Packet 12") == "Packet 12"  # nothing right to left: unchanged
    assert visual_line("שלום 12") == "12 םולש"
    shaped = visual_line("الوقت (UTC)")
    assert shaped.startswith("(UTC) ")  # the brackets mirrored: "(" still opens, at the left
    assert all("\ufe70" <= c <= "\ufeff" for c in shaped[6:])
    assert unicodedata.normalize("NFKC", shaped[6:])[::-1] == "الوقت"
    # Joined forms: initial, medial, final (not the isolated letters of the catalogue).
    assert visual_line("شهادة") == "\ufe93\ufea9\ufe8e\ufeec\ufeb7"
    assert unicodedata.normalize("NFKC", visual_line("شهادة"))[::-1] == "شهادة"


def test_the_audit_trail_in_arabic_reads_back_in_order_with_joined_letters() -> None:
    pdf = language_trail("ar", "عقد الخدمات 2026", "דוד לוי")

    text = read_back(pdf)
    for line in (
        "شهادة الإتمام",  # the title, from esign/locale/ar
        "عقد الخدمات 2026",  # the packet's name, a value
        "تاريخ إعداد هذا السجل",  # a label
        "דוד לוי",  # a Hebrew value
        "وكيل المستخدم",  # a column's heading
    ):
        assert line in text, line
    raw = pdftotext(pdf)
    assert "\ufeb7\ufeec\ufe8e\ufea9\ufe93" in raw  # شهادة as drawn: joined forms
    # A mixed line (poppler's reordering of those is its own guess): in "الوقت (UTC)", read from
    # the right, the Arabic word comes first.
    # pdftotext -bbox lists each word's glyphs as drawn, left to right.
    placed: dict[str, Any] = {}
    for word in poppler_words(pdf):  # the first of each (the footer repeats some)
        placed.setdefault(unicodedata.normalize("NFKC", word.text), word)
    assert placed["الوقت"[::-1]].x_min > placed["(UTC)"].x_max
    used = fonts(pdf)
    assert "NotoSansArabic-Regular" in used
    assert any(name.startswith("NotoSansHebrew") for name in used), used
    page = render(pdf, "60-audit-trail-arabic")
    # The page is mirrored: the title at the right margin, each label right of its value.
    assert ink(page, (400, 50, 558, 90)) > 200
    assert ink(page, (54, 50, 300, 90)) == 0
    assert placed["الحزمة"[::-1]].x_min > placed["Packet1234567890abcd"].x_max
    assert placed["Packet1234567890abcd"].x_max == pytest.approx(612 - 54 - 90, abs=1)


def test_the_audit_trail_in_hebrew() -> None:
    pdf = language_trail("he", "הסכם שירותים", "فاطمة الزهراء")

    text = read_back(pdf)
    assert "תעודת השלמה" in text
    assert "הסכם שירותים" in text
    assert "فاطمة الزهراء" in text


@pytest.mark.parametrize(
    ("language", "title", "packet_name", "signer_name", "label"),
    [
        ("ja", "完了証明書", "業務委託契約書", "山田 太郎", "この記録の作成日時"),
        ("zh-hans", "完成证书", "服务协议", "王小明", "本记录生成时间"),
        ("ko", "완료 인증서", "서비스 계약서", "김민준", "이 기록 작성 일시"),
    ],
)
def test_the_audit_trail_in_chinese_japanese_and_korean(
    language, title, packet_name, signer_name, label
) -> None:
    pdf = language_trail(language, packet_name, signer_name)

    text = read_back(pdf)
    for line in (title, packet_name, signer_name, label):
        assert line in text, line
    page = render(pdf, f"61-audit-trail-{language}")
    assert ink(page, (54, 50, 200, 80)) > 150  # the title is drawn, not left blank
    used = fonts(pdf)
    assert used & {"DroidSansFallback", "NanumGothic"}, used


@pytest.mark.parametrize(
    ("name", "font"),
    [
        ("山田 太郎", "DroidSansFallback"),
        ("王小明", "DroidSansFallback"),
        ("김민준", "NanumGothic"),
        ("فاطمة الزهراء", "NotoSansArabic"),
        ("דוד לוי", "NotoSansHebrew"),
    ],
)
def test_a_typed_signature_stamp_in_any_script(stamp_fonts, handwriting, name, font) -> None:
    base = document(["Base"])
    rect = Rect(100, 500, 300, 50)

    out = stamp_pdf(
        base,
        [Stamp(0, rect, "signature", text=name, caption=f"{name} 2026-11-23")],
        fonts=stamp_fonts,
        handwriting_font=handwriting,
    )

    assert name in read_back(out)
    assert any(used.startswith(font) for used in embedded_fonts(out)), embedded_fonts(out)
    page = render(out, f"62-typed-signature-{font}")
    # The name's ink is inside the signature's rect (PDF y up; the image's y down).
    assert ink(page, (100, 792 - 550, 400, 792 - 500)) > 100
    assert all(inside(point, rect) for point in new_ink(base, out))
