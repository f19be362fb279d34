"""Checkboxes shown as white squares on a dark ground.

A form may print its choices as headers of a dark colour (Testformular1's teal bands) with a
white square in each to tick: the ground is ink to the rules (darker than ``INK_LEVEL``) but
too light to be cleared as shading, so the square has no rule of its own, only the edge of the
ground, and its sides are no strokes. Here the white squares are found in the page as drawn
(its text still there: a white letter is no square), closed on every side by something not
white, with the dark ground close around them.

Pure Python: no Django.
"""

from __future__ import annotations

from PIL import Image

from templates_app.engine import form_geometry as geometry
from templates_app.engine import page_raster as raster

DARK_LEVEL = 200  # darker is a ground (or ink) around a square
# A page has a dark ground when this share of it is a mid grey (levels GROUND_LEVELS), darker
# than the light shading of a tax form's unused cells and lighter than black ink (on the
# tuning half: 2 pages of 190, Testformular1's at 0.096; none else above 0.07).
GROUND_LEVELS = (80, 160)
GROUND_SHARE = 0.08


def white_squares(image: Image.Image, frame: raster.PageFrame) -> list[geometry.Box]:
    """The white squares of a checkbox's size standing in a dark ground of ``image`` (mode L,
    drawn as ``frame`` says), as boxes of the page."""
    min_side, max_side = (
        round(side * frame.scale) for side in (geometry.CHECKBOX_MIN, geometry.CHECKBOX_MAX)
    )
    # Every fourth pixel each way tells the share well enough, at a sixteenth of the cost.
    histogram = image.resize(
        (max(1, image.width // 4), max(1, image.height // 4)), Image.Resampling.NEAREST
    ).histogram()
    if sum(histogram[slice(*GROUND_LEVELS)]) < GROUND_SHARE * sum(histogram):
        return []  # the usual page: no dark ground, and looking costs a pass over the paper
    white = raster.white_mask(image)
    dark = image.point(lambda v: 255 if v < DARK_LEVEL else 0)
    margin = max(2, min_side // 3)
    found = []
    for left, top, right, bottom in raster.filled_boxes(white, min_side):
        width, height = right - left, bottom - top
        if width > max_side or height > max_side or not 0.7 <= width / height <= 1.4:
            continue
        box = (left, top, right, bottom)
        if not raster.paper_ends(white, box):
            continue
        around = raster.strips(box, margin, image.size)
        if len(around) == 4 and all(raster.mean_level(dark, strip) >= 128 for strip in around):
            found.append(geometry.Box(*frame.box_to_page(*box)))
    return found
