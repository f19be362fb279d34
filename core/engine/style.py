"""The one reading of a style object (fontFamily, fontSize, textColor, alignment, fontWeight).

Templates (saved JSON, the admin's forms) and fill payloads (document, field and array-element
styles) all go through ``parse_style``, so a style valid in one place is valid in every other,
with the same messages and the same font check.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from core.engine.colors import COLOR_MESSAGE, parse_color
from core.engine.problems import Problem
from core.engine.template_spec import ALIGNMENTS, FONT_WEIGHTS, STYLE_KEYS, Style

MAX_FONT_SIZE = 200

# A font name -> None when it is supported, else the message to show (naming the font, with a
# "did you mean" hint when only the case is off): FontLibrary.family_problem.
FontCheck = Callable[[str], "str | None"]


def parse_style(
    raw: Mapping[str, Any],
    prefix: str,
    problems: list[Problem],
    *,
    font_problem: FontCheck | None = None,
    refuse_unknown_keys: bool = False,
) -> Style:
    """The style in ``raw``; each problem is appended with the path ``prefix + key``.

    A wrong value is left unset (None), so the caller can go on collecting problems. Colours
    are accepted with or without "#" and normalized to "#RRGGBB".
    """
    if refuse_unknown_keys:
        problems.extend(
            Problem(f"{prefix}{key}", "Unknown style property.")
            for key in raw
            if key not in STYLE_KEYS
        )
    family = raw.get("fontFamily")
    if family is not None and (not isinstance(family, str) or not family.strip()):
        problems.append(Problem(f"{prefix}fontFamily", "Must be a font name."))
        family = None
    elif family is not None and font_problem is not None:
        message = font_problem(family)
        if message is not None:
            problems.append(Problem(f"{prefix}fontFamily", message))
            family = None
    size = raw.get("fontSize")
    if size is not None and (
        isinstance(size, bool) or not isinstance(size, int | float) or not 0 < size <= MAX_FONT_SIZE
    ):
        problems.append(
            Problem(f"{prefix}fontSize", f"Must be a number from 1 to {MAX_FONT_SIZE}.")
        )
        size = None
    color = raw.get("textColor")
    if color is not None:
        color = parse_color(color)
        if color is None:
            problems.append(Problem(f"{prefix}textColor", COLOR_MESSAGE))
    alignment = raw.get("alignment")
    if alignment is not None and alignment not in ALIGNMENTS:
        problems.append(Problem(f"{prefix}alignment", "Must be left, center or right."))
        alignment = None
    weight = raw.get("fontWeight")
    if weight is not None and weight not in FONT_WEIGHTS:
        problems.append(
            Problem(f"{prefix}fontWeight", "Must be normal, bold, italic or boldItalic.")
        )
        weight = None
    return Style(
        font_family=family,
        font_size=float(size) if size is not None else None,
        text_color=color,
        alignment=alignment,
        font_weight=weight,
    )
