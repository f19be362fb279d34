"""A page as a picture, and the straight lines printed on it.

Field detection reads a page's lines from its rendering, not from its content stream: a form
draws a rule as a stroked path, a thin filled rectangle, a row of underscores or (scanned) as
pixels, and a picture shows all of these the same way. pdfium renders the page (pypdfium2), and
the dark runs of each pixel row (and of each column, on the transposed picture) are found by
searching the row's bytes: the work is done in C, with no numpy. A scan's dashed rules are
found among its ink's connected pieces (OpenCV, which OCR brings), as its letters are there too.

A scanned page is a photograph of paper, turned a little: ``deskew`` finds the angle whose row
profile is sharpest and turns the picture back, so its rules are rows again.

Coordinates: pixels (``Pixels``) have their origin at the top-left of the rendered crop box; a
``PageFrame`` turns them into the page's default user space (the space of widget rects).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from PIL import Image, ImageChops, ImageDraw, ImageFilter

# Darker than this (0-255) is ink.
INK_LEVEL = 170
# Darker than this is a tint: a field's background colour.
TINT_LEVEL = 240
# Lighter than this (0-255) is white paper, not a tint.
WHITE_LEVEL = 250
# A dotted wall is seen DOT_ROWS rows to one, where its dots (an eighth of it inked or more)
# are darker than DOTTED_LEVEL.
DOT_ROWS = 4
DOTTED_LEVEL = 224
# The angles (degrees) a scan is tried at to find its skew, and the step between them.
MAX_SKEW = 2.0
SKEW_STEP = 0.1
# ...on a copy of the page at most this many pixels each way: a tenth of a degree moves its
# rows' ends by about a pixel, enough to tell the angles apart.
SKEW_PIXELS = 1000


@dataclass(frozen=True)
class PageFrame:
    """Where the rendered picture lies on the page: crop box, /Rotate and pixels per point."""

    crop: tuple[float, float, float, float]  # x0, y0, x1, y1 in default user space
    rotation: int  # the page's /Rotate, 0, 90, 180 or 270
    scale: float  # pixels per point

    def to_page(self, px: float, py: float) -> tuple[float, float]:
        """The page point at pixel (px, py) of the rendered picture."""
        x0, y0, x1, y1 = self.crop
        u, v = px / self.scale, py / self.scale
        if self.rotation == 90:
            return x0 + v, y0 + u
        if self.rotation == 180:
            return x1 - u, y0 + v
        if self.rotation == 270:
            return x1 - v, y1 - u
        return x0 + u, y1 - v

    def to_pixels(self, x: float, y: float) -> tuple[float, float]:
        """The pixel of the rendered picture at page point (x, y)."""
        x0, y0, x1, y1 = self.crop
        s = self.scale
        if self.rotation == 90:
            return (y - y0) * s, (x - x0) * s
        if self.rotation == 180:
            return (x1 - x) * s, (y - y0) * s
        if self.rotation == 270:
            return (y1 - y) * s, (x1 - x) * s
        return (x - x0) * s, (y1 - y) * s

    def box_to_page(
        self, left: float, top: float, right: float, bottom: float
    ) -> tuple[float, float, float, float]:
        """A pixel box (left, top, right, bottom) as a page box (x0, y0, x1, y1)."""
        ax, ay = self.to_page(left, top)
        bx, by = self.to_page(right, bottom)
        return min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)

    def box_to_pixels(
        self, x0: float, y0: float, x1: float, y1: float
    ) -> tuple[float, float, float, float]:
        """A page box as a pixel box (left, top, right, bottom)."""
        ax, ay = self.to_pixels(x0, y0)
        bx, by = self.to_pixels(x1, y1)
        return min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)


@dataclass(frozen=True)
class Run:
    """A straight dark stroke in pixels: ``start``..``end`` along it (inclusive), at rows
    ``across``..``across_end`` across it (its thickness)."""

    start: int
    end: int
    across: int
    across_end: int

    @property
    def length(self) -> int:
        return self.end - self.start + 1

    @property
    def thickness(self) -> int:
        return self.across_end - self.across + 1


def ink_mask(image: Image.Image) -> Image.Image:
    """``image`` (mode L) as ink (0) on paper (255)."""
    return image.point(lambda v: 0 if v < INK_LEVEL else 255)


def tint_mask(image: Image.Image) -> Image.Image:
    """``image`` as anything not white (0), the lightest background tints included."""
    return image.point(lambda v: 0 if v < TINT_LEVEL else 255)


def deskew(image: Image.Image) -> tuple[Image.Image, float]:
    """``image`` turned back by the skew of its rules and lines of text, and that angle.

    The right angle makes each rule one row, so the profile of ink by row has its sharpest
    peaks: the angle with the largest sum of squared row totals wins, tried on a small copy,
    coarsely and then finely around the best. The copy is turned by nearest pixels: a smoothed
    turn blurs the rows at every angle but 0 (which Pillow does not resample), so a page
    turned half a degree read sharpest unturned and was left skewed.
    """
    small = image.copy()
    small.thumbnail((SKEW_PIXELS, SKEW_PIXELS))
    inverted = small.point(lambda v: 255 - v)

    def sharpness(angle: float) -> float:
        turned = inverted.rotate(angle, resample=Image.Resampling.NEAREST)
        rows = turned.resize((1, turned.height), Image.Resampling.BOX).tobytes()
        return float(sum(value * value for value in rows))

    coarse = [
        step * 4 * SKEW_STEP for step in range(-5, 6) if abs(step * 4 * SKEW_STEP) <= MAX_SKEW
    ]
    best = max(coarse, key=sharpness)
    fine = [best + step * SKEW_STEP / 2 for step in range(-4, 5)]
    best = max(fine, key=sharpness)
    if abs(best) < SKEW_STEP / 2:
        return image, 0.0
    turned = image.rotate(best, resample=Image.Resampling.BICUBIC, fillcolor=255, expand=False)
    return turned, best


def clear_filled_areas(mask: Image.Image, block: int) -> Image.Image:
    """``mask`` with its large dark areas (shaded bars, reversed headings) made paper: the
    white letters inside them would otherwise read as a maze of small boxes."""
    width, height = mask.size
    small = mask.resize((max(1, width // block), max(1, height // block)), Image.Resampling.BOX)
    filled = small.point(lambda v: 255 if v < 90 else 0)
    if filled.getbbox() is None:
        return mask
    # Grown by a block each way, so the rim of an area goes with it.
    filled = filled.filter(ImageFilter.MaxFilter(3)).resize(
        (width, height), Image.Resampling.NEAREST
    )
    return ImageChops.lighter(mask, filled)


def close_row_gaps(mask: Image.Image, gap: int) -> Image.Image:
    """``mask`` (ink 0) with the gaps of at most ``gap`` pixels along each row inked in: a
    dashed rule (a tax form's "- - - -" line to write on) becomes one stroke. A pixel is inked
    where ink lies within ``gap`` pixels on both sides of it in its row."""
    width, height = mask.size

    def shifted(image: Image.Image, by: int) -> Image.Image:
        out = Image.new("L", (width, height), 255)
        if by > 0:
            out.paste(image.crop((0, 0, width - by, height)), (by, 0))
        else:
            out.paste(image.crop((-by, 0, width, height)), (0, 0))
        return out

    # Ink within ``reach`` pixels to the left (and right), grown by doubling steps.
    left = right = mask
    reach = 0
    while reach < gap:
        step = min(max(1, reach), gap - reach)
        left = ImageChops.darker(left, shifted(left, step))
        right = ImageChops.darker(right, shifted(right, -step))
        reach += step
    return ImageChops.darker(mask, ImageChops.lighter(left, right))


def _row_groups(mask: Image.Image, min_length: int) -> list[list[int]]:
    """Dark runs of each row at least ``min_length`` pixels long, joined with the runs of the
    rows next to them that start and end within two pixels: [start, end, first row, last row]."""
    width, height = mask.size
    data = mask.tobytes()
    needle = b"\x00" * max(1, min_length)
    open_runs: list[list[int]] = []
    done: list[list[int]] = []
    for y in range(height):
        row = data[y * width : (y + 1) * width]
        if needle not in row:  # most rows: one fast search, nothing to follow
            done.extend(open_runs)
            open_runs = []
            continue
        still_open: list[list[int]] = []
        taken = set()
        # Both this row's runs and the open ones are in order of their start: one pass.
        first = 0
        for start, end in runs_of(row, needle):
            while first < len(open_runs) and open_runs[first][0] < start - 2:
                first += 1
            index = first
            while index < len(open_runs) and open_runs[index][0] <= start + 2:
                run = open_runs[index]
                if index not in taken and abs(run[1] - end) <= 2:
                    taken.add(index)
                    run[0], run[1], run[3] = min(run[0], start), max(run[1], end), y
                    still_open.append(run)
                    break
                index += 1
            else:
                still_open.append([start, end, y, y])
        done.extend(run for index, run in enumerate(open_runs) if index not in taken)
        still_open.sort(key=lambda run: run[0])
        open_runs = still_open
    done.extend(open_runs)
    return done


def runs_of(row: bytes, needle: bytes) -> Iterator[tuple[int, int]]:
    """(first, last) of each run of ink (0) in ``row`` at least as long as ``needle``. bytes.find
    is a fast C search; a regular expression steps through every byte in Python's engine."""
    position = row.find(needle)
    while position >= 0:
        end = row.find(b"\xff", position)
        if end < 0:
            end = len(row)
        yield position, end - 1
        position = row.find(needle, end)


def row_runs(mask: Image.Image, min_length: int, max_thickness: int) -> list[Run]:
    """The horizontal strokes of a mask (ink 0): dark runs of each row at least ``min_length``
    pixels long, joined with the runs of the rows next to them into strokes no thicker than
    ``max_thickness`` (thicker ones are filled areas, not rules). A stroke broken by a pixel or
    two (a scan's noise) is joined up."""
    strokes = [
        Run(start, end, first, last)
        for start, end, first, last in _row_groups(mask, min_length)
        if last - first + 1 <= max_thickness
    ]
    return _join_gaps(strokes)


def filled_boxes(mask: Image.Image, min_side: int) -> list[tuple[int, int, int, int]]:
    """Rectangles of one even tint (``mask``: tinted 0), at least ``min_side`` pixels each way,
    as (left, top, right, bottom) exclusive: a field shown only by its background colour. Text
    or a rule inside breaks a rectangle's rows, so only empty ones are found whole."""
    return [
        (start, first, end + 1, last + 1)
        for start, end, first, last in _row_groups(mask, min_side)
        if last - first + 1 >= min_side
    ]


def _join_gaps(runs: list[Run], gap: int = 3) -> list[Run]:
    """Strokes that continue one another, as one: on rows at most a pixel apart (a scan's
    leftover skew steps a rule by a row every few hundred pixels), overlapping or with a gap of
    at most ``gap`` pixels between them. The joined stroke's rows are those of its first part
    (its position across), so a long rule stepping down does not grow thick."""
    runs = sorted(runs, key=lambda run: run.start)
    joined: list[Run] = []
    # The stroke last extended on each row: where a run on that row or next to it may join.
    by_row: dict[int, int] = {}
    for run in runs:
        middle = (run.across + run.across_end) // 2
        for row in (middle, middle - 1, middle + 1):
            index = by_row.get(row)
            if index is None:
                continue
            last = joined[index]
            if last.start <= run.start <= last.end + gap + 1:
                joined[index] = Run(
                    last.start, max(last.end, run.end), last.across, last.across_end
                )
                by_row[middle] = index
                break
        else:
            by_row[middle] = len(joined)
            joined.append(run)
    return joined


def column_runs(mask: Image.Image, min_length: int, max_thickness: int) -> list[Run]:
    """The vertical strokes of a mask, as ``row_runs`` finds them on its transpose: ``start``
    and ``end`` are rows, ``across`` columns."""
    return row_runs(mask.transpose(Image.Transpose.TRANSPOSE), min_length, max_thickness)


def dotted_columns(mask: Image.Image, min_length: int, max_thickness: int) -> list[Run]:
    """The vertical strokes of a mask (ink 0) drawn dotted or dashed as well as solid, as
    ``column_runs`` gives them: the picture is seen DOT_ROWS rows to one, where the dots of a
    column (a dotted wall between the groups of an SSN's digits) average into one stroke."""
    width, height = mask.size
    small = mask.resize((width, max(1, height // DOT_ROWS)), Image.Resampling.BOX).point(
        lambda v: 0 if v < DOTTED_LEVEL else 255
    )
    return [
        Run(run.start * DOT_ROWS, run.end * DOT_ROWS + DOT_ROWS - 1, run.across, run.across_end)
        for run in column_runs(small, max(3, min_length // DOT_ROWS), max_thickness)
    ]


def dashed_rows(
    mask: Image.Image,
    dash: tuple[int, int],
    max_gap: int,
    max_thickness: int,
    min_length: int,
    walls: Sequence[Run] = (),
) -> list[Run]:
    """The dashed rules of a scan's ``mask`` (ink 0), as ``row_runs`` gives strokes: its
    connected pieces of ink no thicker than ``max_thickness`` and ``dash`` (shortest, longest)
    pixels long, joined where at most ``max_gap`` pixels apart along a row, at least
    ``min_length`` long in all. On a vector page the dashes are joined on a picture with the
    text whited out; a scan keeps its letters, whose bars would join up with them, but a
    letter's bar is one piece with its stem or bowl, so the thin pieces are dashes, hyphens and
    underscores. Pieces no longer than a dash keep ``row_runs``'s short strokes out. The dash
    that touches a wall is one piece with it: a rule ending within three gaps of one of ``walls``
    (column strokes) is drawn to it, so the cells it parts are closed."""
    import cv2  # only scans come here; OCR loads it for them anyway
    import numpy

    ink = (numpy.asarray(mask) == 0).astype(numpy.uint8)
    _count, _labels, stats, _centres = cv2.connectedComponentsWithStats(ink, connectivity=8)
    pieces = [
        Run(int(x), int(x + w - 1), int(y), int(y + h - 1))
        for x, y, w, h, _area in stats[1:]
        if h <= max_thickness and dash[0] <= w <= dash[1]
    ]
    rules = [run for run in _join_gaps(pieces, max_gap) if run.length >= min_length]
    reach = 3 * max_gap + 1
    out = []
    for rule in rules:
        crossing = [wall.across for wall in walls if wall.start <= rule.across <= wall.end]
        start = min((x for x in crossing if rule.start - reach <= x < rule.start), default=None)
        end = max((x for x in crossing if rule.end < x <= rule.end + reach), default=None)
        out.append(
            Run(
                rule.start if start is None else start,
                rule.end if end is None else end,
                rule.across,
                rule.across_end,
            )
        )
    return out


def erase_runs(mask: Image.Image, rows: list[Run], columns: list[Run]) -> Image.Image:
    """A copy of ``mask`` without the given strokes, a pixel wider each side: what is left is
    the text and marks on the page, to tell an empty box from a filled-in one."""
    out = mask.copy()
    draw = ImageDraw.Draw(out)
    for run in rows:
        draw.rectangle((run.start, run.across - 1, run.end, run.across_end + 1), fill=255)
    for run in columns:
        draw.rectangle((run.across - 1, run.start, run.across_end + 1, run.end), fill=255)
    return out


def blank_rows_from_bottom(ink: Image.Image, box: tuple[int, int, int, int]) -> int:
    """How many pixel rows of ``box`` (left, top, right, bottom; inclusive-exclusive) hold no
    ink, counted up from its bottom edge: the empty band a person writes in."""
    left, top, right, bottom = box
    if right - left < 2 or bottom - top < 1:
        return 0
    crop = ink.crop((left, top, right, bottom))
    # Ink pixels per row: the darkest a row's average gets is 255 - 255 * ink / width.
    profile = crop.resize((1, crop.height), Image.Resampling.BOX).tobytes()
    allowed = 255 - max(1, 255 * 1.5 / crop.width)  # a speck of noise is not writing
    blank = 0
    for value in reversed(profile):
        if value < allowed:
            break
        blank += 1
    return blank


def blank_columns_from_right(
    ink: Image.Image, box: tuple[int, int, int, int], *, from_left: bool = False
) -> int:
    """How many pixel columns of ``box`` hold no ink, counted from its right edge leftwards:
    the empty part of a cell whose label or sign ("=", "$") is printed at its left. With
    ``from_left``, counted from its left edge: the part before a unit printed at its right."""
    left, top, right, bottom = box
    if right - left < 1 or bottom - top < 2:
        return 0
    crop = ink.crop((left, top, right, bottom))
    profile = crop.resize((crop.width, 1), Image.Resampling.BOX).tobytes()
    allowed = 255 - max(1, 255 * 1.5 / crop.height)
    blank = 0
    for value in profile if from_left else reversed(profile):
        if value < allowed:
            break
        blank += 1
    return blank


def paper_around(mask: Image.Image, box: tuple[int, int, int, int], margin: int) -> bool:
    """True when the ``margin`` pixels around ``box`` (left, top, right, bottom) are mostly
    paper (255) in ``mask``: the box stands alone."""
    left, top, right, bottom = box
    width, height = mask.size
    strips = (
        (left - margin, top - margin, right + margin, top),
        (left - margin, bottom, right + margin, bottom + margin),
        (left - margin, top, left, bottom),
        (right, top, right + margin, bottom),
    )
    for x0, y0, x1, y1 in strips:
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(width, x1), min(height, y1)
        if x1 <= x0 or y1 <= y0:
            continue
        mean = mask.crop((x0, y0, x1, y1)).resize((1, 1), Image.Resampling.BOX).tobytes()[0]
        if mean < 200:
            return False
    return True


def white_mask(image: Image.Image) -> Image.Image:
    """``image`` (mode L) with its white paper as ink (0) and everything else as paper."""
    return image.point(lambda v: 0 if v >= WHITE_LEVEL else 255)


def paper_ends(white: Image.Image, box: tuple[int, int, int, int]) -> bool:
    """True when the white paper of ``box`` (in ``white_mask``) stops at each of its four
    edges: something not white, or a rule, runs along every side (the page's edge is none)."""
    edges = strips(box, 1, white.size)
    return len(edges) == 4 and all(mean_level(white, strip) >= 200 for strip in edges)


def strips(
    box: tuple[int, int, int, int], margin: int, size: tuple[int, int]
) -> list[tuple[int, int, int, int]]:
    """The ``margin`` pixels outside each side of ``box`` (left, top, right, bottom), inside
    the picture."""
    left, top, right, bottom = box
    width, height = size
    strips = (
        (left, top - margin, right, top),
        (left, bottom, right, bottom + margin),
        (left - margin, top, left, bottom),
        (right, top, right + margin, bottom),
    )
    return [
        (max(0, x0), max(0, y0), min(width, x1), min(height, y1))
        for x0, y0, x1, y1 in strips
        if min(width, x1) > max(0, x0) and min(height, y1) > max(0, y0)
    ]


def mean_level(mask: Image.Image, box: tuple[int, int, int, int]) -> int:
    return mask.crop(box).resize((1, 1), Image.Resampling.BOX).tobytes()[0]
