"""What a scanned page's letters make that looks like a checkbox, told from a printed box.

A vector page's text is whited out before its rules are read (``detect_fields``); a scan's
text is pixels like its rules, so the strokes of neighbouring letters close small boxes ("C I"
of a bold title, "E N"), and a round letter is a ring. A printed checkbox stands apart: paper
runs along its sides, but for the one its label is printed at (or a rule it sits on). The
strokes that close a box between letters go on into the letters beside it, on two sides or
more. Pure Python: no Django.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image

from core.engine.template_spec import Rect
from templates_app.engine import page_raster as raster
from templates_app.engine.form_geometry import overlap_share
from templates_app.engine.page_shapes import Found

# The band outside each side of a checkbox that is looked at (points from its edge), and the
# share of it inked that counts as something printed against that side.
BAND = (0.5, 2.0)
SIDE_INK = 0.1
# A line of the band darker than this on average (0-255) is a rule along the side.
RULE_MEAN = 64
# On this many sides or more: the box is made by letters.
LETTER_SIDES = 2


def without_letters(
    found: Sequence[Found], image: Image.Image, frame: raster.PageFrame
) -> list[Found]:
    """``found`` without the checkboxes that have ink against two sides or more, nor those
    inside another one (a box printed with a double side or a shadow is two boxes)."""
    ink = raster.ink_mask(image)
    ticks = [item.rect for item in found if item.kind == "checkbox"]

    def letter(rect: Rect) -> bool:
        box = frame.box_to_pixels(rect.x, rect.y, rect.right, rect.top)
        return _inked_sides(ink, box, frame.scale) >= LETTER_SIDES

    def inner(rect: Rect) -> bool:
        return any(
            other is not rect
            and other.width * other.height > rect.width * rect.height
            and overlap_share(rect, other) > 0.5
            for other in ticks
        )

    return [
        item
        for item in found
        if item.kind != "checkbox" or not (inner(item.rect) or letter(item.rect))
    ]


def _inked_sides(ink: Image.Image, box: tuple[float, float, float, float], scale: float) -> int:
    """On how many sides of ``box`` (pixels) something other than a rule is printed."""
    left, top, right, bottom = (round(value) for value in box)
    near, far = (max(1, round(value * scale)) for value in BAND)
    width, height = ink.size
    strips = (
        (left - far, top, left - near, bottom),
        (right + near, top, right + far, bottom),
        (left, top - far, right, top - near),
        (left, bottom + near, right, bottom + far),
    )
    count = 0
    for index, (x0, y0, x1, y1) in enumerate(strips):
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(width, x1), min(height, y1)
        if x1 <= x0 or y1 <= y0:
            continue
        strip = ink.crop((x0, y0, x1, y1))
        # Ink by line along the side: a line inked most of the way is a rule beside the box
        # (its own double side, the rule it sits on), not a letter.
        along = (strip.width, 1) if index < 2 else (1, strip.height)
        lines = [v for v in strip.resize(along, Image.Resampling.BOX).tobytes() if v >= RULE_MEAN]
        if lines and sum(255 - v for v in lines) > SIDE_INK * 255 * len(lines):
            count += 1
    return count
