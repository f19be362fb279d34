"""What a scanned page's letters make that looks like a checkbox, told from a printed box.

A vector page's text is whited out before its rules are read (``detect_fields``); a scan's
text is pixels like its rules, so the strokes of neighbouring letters close small boxes ("C I"
of a bold title, "E N"), and a round letter is a ring. A printed checkbox stands apart: paper
runs along its sides, but for the one its label is printed at (or a rule it sits on). The
strokes that close a box between letters go on into the letters beside it, on two sides or
more; and a printed box is empty inside, where a letter's box has its strokes or the next
letter in it. Pure Python: no Django.
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
# Inside a box (this far in from its sides, points, past its outline), this share of ink:
# print, not an empty box (on the tune half's scans, 55 letters and no checkbox).
INSIDE_INSET = 2.0
INSIDE_INK = 0.15
# A cell narrower than this (points) with this share of ink inside it (CELL_INSET in from its
# rules) holds print: a line number, a letter (on the tune half, 41 such cells, 1 a field).
NARROW_CELL = 40.0
CELL_INSET = 1.5
CELL_INK = 0.05


def without_letters(
    found: Sequence[Found], image: Image.Image, frame: raster.PageFrame
) -> list[Found]:
    """``found`` without the checkboxes that have ink against two sides or more or inside
    them, nor those inside another one (a box printed with a double side or a shadow is two
    boxes), and without the narrow cells with print inside them. On a vector page a cell's
    print is known from its text; on a scan the rules' mask reads a digit's strokes as a
    dotted wall's and wipes them, so the cell looked empty."""
    ink = raster.ink_mask(image)
    ticks = [item.rect for item in found if item.kind == "checkbox"]

    def pixels(rect: Rect) -> tuple[float, float, float, float]:
        return frame.box_to_pixels(rect.x, rect.y, rect.right, rect.top)

    def letter(rect: Rect) -> bool:
        box = pixels(rect)
        return (
            _inked_sides(ink, box, frame.scale) >= LETTER_SIDES
            or _inked_inside(ink, box, INSIDE_INSET * frame.scale) >= INSIDE_INK
        )

    def inner(rect: Rect) -> bool:
        return any(
            other is not rect
            and other.width * other.height > rect.width * rect.height
            and overlap_share(rect, other) > 0.5
            for other in ticks
        )

    def printed(item: Found) -> bool:
        if item.kind == "checkbox":
            return inner(item.rect) or letter(item.rect)
        return (
            item.kind == "text"
            and item.rect.width < NARROW_CELL
            and _inked_inside(ink, pixels(item.rect), CELL_INSET * frame.scale) >= CELL_INK
        )

    return [item for item in found if not printed(item)]


def _inked_inside(ink: Image.Image, box: tuple[float, float, float, float], inset: float) -> float:
    """The share of ``box`` (pixels) inked, ``inset`` pixels in from its sides."""
    inset = round(inset)
    left, top, right, bottom = (round(value) for value in box)
    left, top, right, bottom = left + inset, top + inset, right - inset, bottom - inset
    if right <= left or bottom <= top:
        return 0.0  # a box too small to have an inside past its outline
    inside = ink.crop((left, top, right, bottom))
    return inside.histogram()[0] / (inside.width * inside.height)


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
