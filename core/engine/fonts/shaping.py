"""Right-to-left text for PDF drawing: reportlab draws code points left to right one glyph each,
with no shaping and no bidirectional ordering, so Arabic would come out as unjoined letters in
reverse and Hebrew reversed. Before drawing, a line is shaped (each Arabic letter replaced by its
contextual presentation form: initial, medial, final or isolated, and lam-alef ligatures,
arabic-reshaper) and put in visual order (the Unicode Bidirectional Algorithm, python-bidi, with
mirrored brackets), so that drawing it left to right shows it as a reader expects; digits and
Latin words inside stay left to right.

Values put into a sentence (a document's title in "Invoice (tpl-1.pdf, 1 page)", a signer's name
in "Attached by Ada, ...") are isolated by the caller, as HTML does with <bdi>: wrapped in FSI
(or LRI, RLI) ... PDI, each isolate is put in order as a paragraph of its own and then moved as
one neutral character within its line (Unicode's rules for isolates, UAX #9, which python-bidi's
pure-Python algorithm lacks). So brackets and punctuation of the sentence stay with the
sentence; a whole line wrapped in RLI reads right to left whatever its first word.

Text with no right-to-left character (and no RLI) is returned unchanged but for the isolate
marks, which are taken out (the common case costs one scan). Pure Python (no Django).
"""

from __future__ import annotations

import re
import unicodedata

import arabic_reshaper

# bidi.algorithm (the package's pure-Python implementation) also mirrors brackets in right-to-left
# runs, as a renderer must: the Rust-backed bidi.get_display only reorders, so "(UTC)" came
# out ")UTC(".
from bidi.algorithm import (
    apply_mirroring,
    explicit_embed_and_overrides,
    get_base_level,
    get_display,
    get_embedding_levels,
    get_empty_storage,
    reorder_resolved_levels,
    resolve_implicit_levels,
    resolve_neutral_types,
    resolve_weak_types,
)

# Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan, Mandaic, Arabic supplement/extended, and the
# presentation forms: the scripts written right to left that the service's fonts cover.
_RIGHT_TO_LEFT = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")
# Isolate marks (UAX #9): left-to-right, right-to-left, first-strong isolate, and its end.
LRI, RLI, FSI, PDI = "\u2066", "\u2067", "\u2068", "\u2069"
_OPENERS = {LRI: "L", RLI: "R", FSI: ""}
_ISOLATE_MARKS = str.maketrans("", "", LRI + RLI + FSI + PDI)
# What an isolate stands in for while its line is put in order: a neutral (class ON) character
# with no mirrored glyph, as Unicode treats an isolate's initiator.
_STAND_IN = "\ufffc"
_RESHAPER = arabic_reshaper.ArabicReshaper(
    configuration={"delete_harakat": False, "support_ligatures": True}
)


def has_right_to_left(text: str) -> bool:
    return _RIGHT_TO_LEFT.search(text) is not None


def shape_logical(text: str) -> str:
    """Arabic letters in their joined forms, still in logical (reading) order, for measuring and
    wrapping; other text unchanged."""
    return _RESHAPER.reshape(text) if has_right_to_left(text) else text


def isolate(value: str) -> str:
    """``value`` as a first-strong isolate (HTML's <bdi>): put into a sentence, it is ordered on
    its own and moves as one piece; "" stays ""."""
    return f"{FSI}{value}{PDI}" if value else value


def has_isolates(text: str) -> bool:
    return any(mark in text for mark in (LRI, RLI, FSI, PDI))


def needs_ordering(text: str) -> bool:
    """Whether ``text`` is not drawn as it is written: it has right-to-left letters, or a part
    set right to left (RLI), where even Latin words and numbers are ordered from the right."""
    return has_right_to_left(text) or RLI in text


def without_isolates(text: str) -> str:
    """``text`` without its isolate marks (no glyph draws them)."""
    return text.translate(_ISOLATE_MARKS)


def visual_line(text: str) -> str:
    """One line, shaped (see shape_logical, which it repeats harmlessly) and in visual order: the
    code points in the order they are drawn from left to right, isolate marks taken out."""
    if not needs_ordering(text):
        return without_isolates(text)
    return _visual(_assigned(shape_logical(text)), None)


def _visual(text: str, base: str | None) -> str:
    """``text`` in visual order, its isolates ordered on their own (see the module's doc);
    ``base``: the paragraph's direction ("L" or "R"), None for its first strong character's."""
    outer, isolates = _split_isolates(text)
    if not isolates:
        return (
            get_display(outer, base_dir=base) if base == "R" or has_right_to_left(outer) else outer
        )
    placed = [_visual(inner, direction or _first_strong(inner)) for direction, inner in isolates]
    storage = get_empty_storage()
    level = get_base_level(outer) if base is None else int(base == "R")
    storage["base_level"], storage["base_dir"] = level, ("L", "R")[level]
    get_embedding_levels(outer, storage)
    for index, char in enumerate(storage["chars"]):
        char["index"] = index
    explicit_embed_and_overrides(storage)
    resolve_weak_types(storage)
    resolve_neutral_types(storage, False)
    resolve_implicit_levels(storage, False)
    reorder_resolved_levels(storage, False)
    apply_mirroring(storage, False)
    stand_ins = [i for i, char in enumerate(outer) if char == _STAND_IN]
    inside = dict(zip(stand_ins, placed, strict=True))
    return "".join(inside.get(char["index"], char["ch"]) for char in storage["chars"])


def _split_isolates(text: str) -> tuple[str, list[tuple[str, str]]]:
    """``text`` with each outermost isolate replaced by a stand-in, and the isolates (direction:
    "L", "R" or "" for first strong; content, nested isolates kept). An isolate left open ends
    with the line; a PDI with no isolate open is dropped (as Unicode ignores it)."""
    outer: list[str] = []
    isolates: list[tuple[str, str]] = []
    inner: list[str] = []
    depth, direction = 0, ""
    for char in text:
        if depth == 0:
            if char in _OPENERS:
                depth, direction, inner = 1, _OPENERS[char], []
                outer.append(_STAND_IN)
            elif char != PDI and char != _STAND_IN:
                outer.append(char)
            continue
        if char in _OPENERS:
            depth += 1
        elif char == PDI:
            depth -= 1
            if depth == 0:
                isolates.append((direction, "".join(inner)))
                continue
        inner.append(char)
    if depth:
        isolates.append((direction, "".join(inner)))
    return "".join(outer), isolates


def _first_strong(text: str) -> str:
    """ "R" when the first strong character outside nested isolates is right to left, else "L"."""
    depth = 0
    for char in text:
        if char in _OPENERS:
            depth += 1
        elif char == PDI:
            depth = max(0, depth - 1)
        elif depth == 0:
            kind = unicodedata.bidirectional(char)
            if kind in ("R", "AL"):
                return "R"
            if kind == "L":
                return "L"
    return "L"


def _assigned(text: str) -> str:
    """``text`` with each code point Unicode has not assigned (no bidirectional class: python-bidi
    fails an assertion on it, a 500 for a fill with a stray "\u05eb") replaced by U+FFFD, the
    replacement character: no font has a glyph for it either way."""
    if all(unicodedata.bidirectional(char) for char in text):
        return text
    return "".join(char if unicodedata.bidirectional(char) else "\ufffd" for char in text)
