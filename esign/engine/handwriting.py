"""The handwriting faces of typed signatures and initials, one per script that has one: the
choice of the stamped mark (esign.signing.turns), the certificate of completion's picture of it
(esign.sealing.certificate) and the signing page's note (esign.templatetags.handwriting). Pure:
the faces are files, found beside the service's handwriting font, which the caller passes.

Kristi (Latin) is the service's handwriting font (esign.packets.documents.HANDWRITING_FONT).
Arabic names are set in Noto Naskh Arabic: Naskh is a calligraphic hand, the one Arabic writing
is taught in, rather than the plain sans a name fell back to. A Nastaliq face (Noto Nastaliq
Urdu) would look more like a pen, but the PDF's text engine draws Arabic as the presentation
forms of arabic-reshaper (core.engine.fonts.shaping), which that font does not map, and its
letters join only through OpenType positioning the engine does not apply: the stamped PDF would
show another face than the preview. No handwriting-style face the service ships covers Japanese,
Chinese, Korean, Cyrillic, Greek or Hebrew; the signing page says so beside the preview
(handwriting_letters gives it the letters the faces cover) and the PDF draws those letters with
the glyph fallbacks, as the page does.

Both files are in static/esign/fonts/, served by the page's own origin (sign.css, @font-face)
and read here for the PDF, so the preview and the stamped mark are the same face.
"""

from __future__ import annotations

import functools
from pathlib import Path

from core.engine.fonts.coverage import file_codepoints

# The Arabic face's file, in the folder of the service's handwriting font.
ARABIC_HANDWRITING_FILE = "NotoNaskhArabic-Regular.ttf"


def handwriting_faces(latin: Path) -> tuple[Path, ...]:
    """The handwriting faces, in order of preference (a name every face covers is set in the
    first): ``latin``, the service's handwriting font, then the faces shipped beside it."""
    return (latin, latin.with_name(ARABIC_HANDWRITING_FILE))


def _letters(text: str) -> list[int]:
    # Letters only: spaces, digits and punctuation do not decide a name's script.
    return [ord(char) for char in text if char.isalpha()]


def handwriting_font_for(latin: Path, *texts: str) -> Path | None:
    """The face of a signer's typed signature and initials (``texts``), among
    :func:`handwriting_faces` of ``latin``: the first face that has every letter of them, else
    the one that has the most (the letters it lacks are drawn by the glyph fallbacks). None when
    no face has any of their letters: the name is set in the plain font (esign.engine.stamp:
    Noto Sans and its fallbacks), as the page says, and sized by that font's own height
    (Kristi's cut the foot of kanji)."""
    letters = [code for text in texts for code in _letters(text)]
    if not letters:
        return latin
    best, best_count = None, 0
    for path in handwriting_faces(latin):
        count = sum(code in file_codepoints(path) for code in letters)
        if count == len(letters):
            return path
        if count > best_count:
            best, best_count = path, count
    return best


@functools.cache
def handwriting_letters(latin: Path) -> str:
    """The code points some handwriting face covers, as ranges ("0041-005A,0600-06FF"), for the
    signing page's note that a name is shown in a plain font (adopt.js)."""
    faces = handwriting_faces(latin)
    codes = sorted(set().union(*(file_codepoints(path) for path in faces)))
    ranges: list[list[int]] = []
    for code in codes:
        if ranges and code == ranges[-1][1] + 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    return ",".join(f"{start:04X}-{end:04X}" for start, end in ranges)
