"""The face of a typed signature follows the script of the name (esign.engine.handwriting):
Kristi for Latin, Noto Naskh Arabic for Arabic, the plain font where no handwriting face has
the letters; and the letters the signing page is told the faces cover (issue 49, item 6)."""

from __future__ import annotations

import pytest

from esign.engine.handwriting import (
    ARABIC_HANDWRITING_FILE,
    handwriting_font_for,
    handwriting_letters,
)
from esign.packets.documents import HANDWRITING_FONT

ARABIC_HANDWRITING_FONT = HANDWRITING_FONT.with_name(ARABIC_HANDWRITING_FILE)


def test_the_shipped_faces_are_truetype_files_beside_the_page() -> None:
    assert HANDWRITING_FONT.is_file()
    assert ARABIC_HANDWRITING_FONT.is_file()
    assert ARABIC_HANDWRITING_FONT.read_bytes()[:4] == b"\x00\x01\x00\x00"  # glyf outlines
    assert ARABIC_HANDWRITING_FONT.with_name("NotoNaskhArabic-OFL.txt").is_file()


@pytest.mark.parametrize(
    ("texts", "face"),
    [
        (("Ada Lovelace", "AL"), HANDWRITING_FONT),
        (("José Ñúñez",), HANDWRITING_FONT),
        (("آدا لوفلايس", "آل"), ARABIC_HANDWRITING_FONT),
        (("محمد عبد الله ٣",), ARABIC_HANDWRITING_FONT),  # Arabic-Indic digits do not count
        (("山田 花子", "山"), None),
        (("Ада Лавлейс",), None),
        (("Łukasz Wróbel",), HANDWRITING_FONT),  # most letters: Kristi lacks only Ł
        (("Ada", "آل"), HANDWRITING_FONT),  # three letters of five are Latin
        (("", ""), HANDWRITING_FONT),
        (("1984",), HANDWRITING_FONT),
    ],
)
def test_the_face_is_the_one_that_has_the_letters(texts: tuple[str, ...], face: object) -> None:
    assert handwriting_font_for(HANDWRITING_FONT, *texts) == face


def test_the_page_is_told_which_letters_have_a_handwriting_face() -> None:
    ranges = [
        tuple(int(end, 16) for end in part.split("-"))
        for part in handwriting_letters(HANDWRITING_FONT).split(",")
    ]

    def covered(char: str) -> bool:
        return any(start <= ord(char) <= end for start, end in ranges)

    assert all(covered(char) for char in "AdaLovelaceéñ")
    assert all(covered(char) for char in "آدالوفلايس")
    assert not any(covered(char) for char in "山田花子Лж")
