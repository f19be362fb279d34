"""Radio buttons and ovals to fill in: small rings of a page's rules picture.

A ring is a small round outline standing alone (``small_rings``), looked for once
the long rules are taken out (a ring is shorter than they are, and every row of a long rule is
a run to follow). An oval twice or three times as wide as tall is one too.

A form that says "fill in the oval" (Pennsylvania's schedules) may draw each oval with a pen a
third of its height: at the size of a block of ``page_raster.clear_filled_areas`` the oval is
as dark as a shaded bar, so it is cleared with the shading before the rules are read. Each
small spot so cleared is looked at again in the page's ink: the rules that cross it (a table's
column, the row's rule the oval sits on) are taken out and the ovals left in it are found as
the rings are. In a shaded bar nothing is left standing alone: the bar is one large shape.

Pure Python: no Django.
"""

from __future__ import annotations

from typing import Protocol

from PIL import Image

from templates_app.engine import page_raster as raster

# A cleared spot is a block darker than this on average (``page_raster.clear_filled_areas``).
FILLED_LEVEL = 90
# An oval to fill in is between so many times as wide as tall.
OVAL_MAX_ASPECT = 3.0
OVAL_MIN_ASPECT = 1.25


class PageRules(Protocol):
    """What a page's rules are read into (``page_shapes``): its pictures and their strokes."""

    rules_mask: Image.Image  # ink 0, shading cleared in blocks of ``block`` pixels
    rules_image: Image.Image  # the page with its text whited out
    row_runs: list[raster.Run]
    column_runs: list[raster.Run]
    block: int
    max_thickness: int  # pixels: a thicker stroke is no rule


def rings(
    page: PageRules, sizes: tuple[int, int], *, scan: bool
) -> list[tuple[int, int, int, int]]:
    """The rings and ovals of ``page`` (pixel boxes: left, top, right, bottom), ``sizes``
    pixels wide and tall at least and at most: on its rules with the long ones taken out, and
    on a page with text (not a scan, whose letters are still there) the thick ovals among the
    shading cleared."""
    longer = sizes[1]
    no_rules = raster.erase_runs(
        page.rules_mask,
        [run for run in page.row_runs if run.length > longer],
        [run for run in page.column_runs if run.length > longer],
    )
    found = small_rings(no_rules, *sizes, max_aspect=OVAL_MAX_ASPECT)
    if not scan:
        ink = raster.ink_mask(page.rules_image)
        found += thick_ovals(ink, page.block, *sizes, page.max_thickness)
    return found


def thick_ovals(
    ink: Image.Image, block: int, min_side: int, max_side: int, max_thickness: int
) -> list[tuple[int, int, int, int]]:
    """The rings and ovals (pixel boxes: left, top, right, bottom) in the small spots of
    ``ink`` (ink 0, before shading is cleared) that ``clear_filled_areas`` clears with
    ``block``: spots no wider or taller than ``max_side`` pixels."""
    width, height = ink.size
    columns, rows = max(1, width // block), max(1, height // block)
    small = ink.resize((columns, rows), Image.Resampling.BOX).tobytes()
    filled = {index for index, value in enumerate(small) if value < FILLED_LEVEL}
    if not filled:
        return []
    found: set[tuple[int, int, int, int]] = set()  # windows of spots close by overlap
    margin = max_side + block  # pixels around a spot: every rule crossing it is longer than a ring
    for spot in _spots(filled, columns):
        xs = [index % columns for index in spot]
        ys = [index // columns for index in spot]
        left = max(0, min(xs) * block - margin)
        top = max(0, min(ys) * block - margin)
        right = min(width, (max(xs) + 1) * block + margin)
        bottom = min(height, (max(ys) + 1) * block + margin)
        crop = ink.crop((left, top, right, bottom))
        crop = raster.erase_runs(
            crop,
            raster.row_runs(crop, max_side + 1, max_thickness),
            raster.column_runs(crop, max_side + 1, max_thickness),
        )
        for x0, y0, x1, y1 in small_rings(crop, min_side, max_side, max_aspect=OVAL_MAX_ASPECT):
            # A round ring this dark is a bold letter drawn as a path (a logo's "O"): an oval
            # to fill in is wider than tall.
            if x1 - x0 > OVAL_MIN_ASPECT * (y1 - y0):
                found.add((left + x0, top + y0, left + x1, top + y1))
    return sorted(found)


def _spots(filled: set[int], columns: int) -> list[list[int]]:
    """The groups of touching blocks (each way and corner to corner) in ``filled``, blocks
    numbered row by row ``columns`` to a row."""
    spots = []
    left = set(filled)
    while left:
        start = left.pop()
        spot, todo = [start], [start]
        while todo:
            index = todo.pop()
            x, y = index % columns, index // columns
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    other = (y + dy) * columns + x + dx
                    if 0 <= x + dx < columns and other in left:
                        left.remove(other)
                        spot.append(other)
                        todo.append(other)
        spots.append(spot)
    return spots


def small_rings(
    mask: Image.Image, min_side: int, max_side: int, *, max_aspect: float = 1.25
) -> list[tuple[int, int, int, int]]:
    """Small round outlines standing alone (radio buttons), as (left, top, right, bottom)
    exclusive: connected shapes of ink (found run by run, row by row) about as wide as tall,
    between ``min_side`` and ``max_side`` pixels, hollow (a ring, not a dot or a letter's
    blob), whose middle and corners are paper. With ``max_aspect`` above 1.25, ovals up to
    that many times as wide as tall too: hollow along their middle row, their very corners
    paper."""
    width, height = mask.size
    data = mask.tobytes()
    parent: list[int] = []
    boxes: list[list[int]] = []  # per run: left, top, right, bottom, ink

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    previous: list[tuple[int, int, int]] = []  # (start, end, run index) of the row above
    for y in range(height):
        row = data[y * width : (y + 1) * width]
        if b"\x00" not in row:
            previous = []
            continue
        current: list[tuple[int, int, int]] = []
        pointer = 0
        for start, end in raster.runs_of(row, b"\x00"):
            index = len(parent)
            parent.append(index)
            boxes.append([start, y, end + 1, y + 1, end - start + 1])
            current.append((start, end, index))
            while pointer < len(previous) and previous[pointer][1] < start - 1:
                pointer += 1
            above = pointer
            while above < len(previous) and previous[above][0] <= end + 1:
                a, b = root(previous[above][2]), root(index)
                if a != b:
                    parent[b] = a
                above += 1
        previous = current
    shapes: dict[int, list[int]] = {}
    for index, box in enumerate(boxes):
        key = root(index)
        shape = shapes.get(key)
        if shape is None:
            shapes[key] = list(box)
        else:
            shape[0], shape[1] = min(shape[0], box[0]), min(shape[1], box[1])
            shape[2], shape[3] = max(shape[2], box[2]), max(shape[3], box[3])
            shape[4] += box[4]
    rings = []
    for left, top, right, bottom, ink in shapes.values():
        w, h = right - left, bottom - top
        if not (min_side <= w <= max_side and min_side <= h <= max_side and w / h >= 0.8):
            continue
        middle = ((top + bottom) // 2) * width
        # A ring's pen is thin beside its size; an oval twice as wide as tall may be drawn
        # with a pen a third of its height (PA's "fill in the oval"), its corners less round.
        inset = 1
        if w / h > 1.25:
            if w / h > max_aspect or not _hollow_oval(data[middle + left : middle + right]):
                continue
            inset = 0
        elif ink > 0.6 * w * h or data[middle + (left + right) // 2] == 0:
            continue  # a dot or a filled blob, not a ring
        near, far = top + inset, bottom - 1 - inset
        corners = (
            data[near * width + left + inset],
            data[near * width + right - 1 - inset],
            data[far * width + left + inset],
            data[far * width + right - 1 - inset],
        )
        if 0 in corners:
            continue  # square cornered: a frame of something else (squares are boxes)
        rings.append((left, top, right, bottom))
    return rings


def _hollow_oval(middle_row: bytes) -> bool:
    """True when the middle row of a wide shape is two strokes of ink with paper between them
    for at least 0.4 of its width: an oval drawn with a thick pen, not a bar or a blob."""
    inner = middle_row.strip(b"\xff").strip(b"\x00")
    return b"\x00" not in inner and len(inner) >= 0.4 * len(middle_row)
