"""Right-to-left text for PDF drawing: reportlab draws code points left to right one glyph each,
with no shaping and no bidirectional ordering, so Arabic would come out as unjoined letters in
reverse and Hebrew reversed. Before drawing, a line is shaped (each Arabic letter replaced by its
contextual presentation form: initial, medial, final or isolated, and lam-alef ligatures,
arabic-reshaper) and put in visual order (the Unicode Bidirectional Algorithm, python-bidi, with
mirrored brackets), so that drawing it left to right shows it as a reader expects; digits and
Latin words inside stay left to right.

Text with no right-to-left character is returned unchanged (the common case costs one scan).
Pure Python (no Django).
"""

from __future__ import annotations

import re
import unicodedata

import arabic_reshaper

# bidi.algorithm (the package's pure-Python implementation) also mirrors brackets in right-to-left
# runs, as a renderer must: the Rust-backed bidi.get_display only reorders, so "(UTC)" came
# out ")UTC(".
from bidi.algorithm import get_display

# Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan, Mandaic, Arabic supplement/extended, and the
# presentation forms: the scripts written right to left that the service's fonts cover.
_RIGHT_TO_LEFT = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")
_RESHAPER = arabic_reshaper.ArabicReshaper(
    configuration={"delete_harakat": False, "support_ligatures": True}
)


def has_right_to_left(text: str) -> bool:
    return _RIGHT_TO_LEFT.search(text) is not None


def shape_logical(text: str) -> str:
    """Arabic letters in their joined forms, still in logical (reading) order, for measuring and
    wrapping; other text unchanged."""
    return _RESHAPER.reshape(text) if has_right_to_left(text) else text


def visual_line(text: str) -> str:
    """One line, shaped (see shape_logical, which it repeats harmlessly) and in visual order: the
    code points in the order they are drawn from left to right."""
    if not has_right_to_left(text):
        return text
    return get_display(_assigned(shape_logical(text)))


def _assigned(text: str) -> str:
    """``text`` with each code point Unicode has not assigned (no bidirectional class: python-bidi
    fails an assertion on it, a 500 for a fill with a stray "\u05eb") replaced by U+FFFD, the
    replacement character: no font has a glyph for it either way."""
    if all(unicodedata.bidirectional(char) for char in text):
        return text
    return "".join(char if unicodedata.bidirectional(char) else "\ufffd" for char in text)
