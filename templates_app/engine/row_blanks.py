"""The blanks of a ruled row that carries its own labels, printed on the rule before each
blank: "Street ________", "City ______ State ___ ZIP ______", "First ____ M.I. __". No wall
parts the blanks; the labels do. Each stretch of paper after a label, along the rule, is a field.

Page space (points, y up) through the page's frame; pure Python.
"""

from __future__ import annotations

from PIL import Image

from templates_app.engine import page_raster as raster
from templates_app.engine.form_geometry import BOX_MIN_WIDTH

# The longest label printed on a rule before its blank ("Last or Business", "Foreign Country");
# a longer text on a rule is a sentence or a heading, not a label.
ROW_LABEL_MAX_WIDTH = 70.0
# A blank after a label is at least a word wide; and the row ends with a blank, or a short note
# after it: a row whose words run on past its last gap is a heading or a sentence with gaps.
ROW_BLANK_MIN_WIDTH = 40.0
ROW_TAIL_MAX_WIDTH = 40.0
LABEL_CUT_SLACK = 4.0  # points a label's whited-out box may reach past where the rule resumes


def blanks_after_labels(
    ink: Image.Image, frame: raster.PageFrame, x0: float, x1: float, y0: float, y1: float
) -> list[tuple[float, float]]:
    """The stretches (left, right, in points) of the band x0..x1, y0..y1 above a rule that are
    paper at least ROW_BLANK_MIN_WIDTH wide, each after a label no wider than
    ROW_LABEL_MAX_WIDTH: the ink since the gap before it (BOX_MIN_WIDTH of paper). The first
    label may start left of the rule (its descenders cut the rule where it was whited out with
    the text), so the band is read from that far left. None when the rule starts under paper
    (a heading centred over its column) or its row ends with more than ROW_TAIL_MAX_WIDTH of
    text (a sentence with gaps)."""
    left, top, right, bottom = frame.box_to_pixels(x0 - ROW_LABEL_MAX_WIDTH, y0, x1, y1)
    box = (max(0, round(left)), round(top), round(right), round(bottom))
    gap = max(1, round(BOX_MIN_WIDTH * frame.scale))
    spans = raster.blank_column_spans(ink, box, gap)
    # Where the rule starts, in pixels; its label may end a little after (the whiting-out's
    # margin), but paper from well before it is no label's.
    start_px = frame.to_pixels(x0, y0)[0]
    slack = LABEL_CUT_SLACK * frame.scale
    if not spans or any(a <= start_px - slack and b >= start_px + gap for a, b in spans):
        return []
    if (box[2] - spans[-1][1]) / frame.scale > ROW_TAIL_MAX_WIDTH:
        return []
    out = []
    previous = box[0]
    for start, end in spans:
        label = (start - previous) / frame.scale
        previous = end
        if start < start_px - slack or (end - start) / frame.scale < ROW_BLANK_MIN_WIDTH:
            continue
        if label <= ROW_LABEL_MAX_WIDTH:
            page_left, _y0, page_right, _y1 = frame.box_to_page(start, box[1], end, box[3])
            out.append((page_left, page_right))
    return out
