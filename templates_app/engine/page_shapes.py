"""The blanks of one rendered page: where a person would write, as shapes of its rules.

From the rules of a page's picture (``page_raster``) and their geometry (``form_geometry``):

- a row of small boxes sharing walls, or of short walls evenly spaced on one rule, is one comb
  (``charList``, ``comb_rows``), its box count the length;
- a small square or ring is a checkbox;
- a larger closed box, or a line (solid or dashed), with empty space above its bottom edge is a
  text field: the empty band below a label printed inside a cell, or the paper after a sign, a
  short label or an arrow ("Firm's name ▶") printed at its left;
- a rectangle of tint, empty inside, is a field shown by its background colour;
- a white rectangle on a tinted ground (the IRS's pink or blue pages) is a field shown by the
  paper left unprinted, often with only a rule under it; a white square on a dark ground
  (``dark_ground``) is a checkbox.

Kept out: a cell shaded grey, a table's row heading beside its empty cells, the open paper
above a table, the heading of a column whose cells are empty, slivers narrower than a box to
write in. Everything is in the space the page is seen in (the caller turns a turned page's
picture back). Pure Python: no Django.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from PIL import Image

from core.engine.template_spec import Rect
from templates_app.engine import form_geometry as geometry
from templates_app.engine import page_raster as raster
from templates_app.engine import page_rings
from templates_app.engine.comb_rows import comb_rows, number_cells
from templates_app.engine.dark_ground import white_squares
from templates_app.engine.form_geometry import overlap_share

UNDERLINE_MIN = 30.0  # points: shorter rules are parts of letters, arrows, ticks
UNDERLINE_FIELD_MAX_HEIGHT = 20.0
# Less paper than this (points) above a line or in a box holds no line of writing: the slivers
# between rules printed close together (issue 48).
FIELD_MIN_HEIGHT = 8.5
# A cell may have a sign ("=", "$", "%") printed at its left and still be a blank.
SIGN_MAX_WIDTH = 16.0
UNIT_MAX_WIDTH = 30.0  # points: a unit after a cell's blank ("miles", "%")
# A label printed inside a cell above its blank is a line or two; more is a cell of text.
LABEL_MAX_HEIGHT = 24.0
# A one-line cell with its label at its left is a field when at least this share of its width
# (and BOX_MIN_WIDTH) is paper after the label.
LEFT_LABEL_CELL_MAX_HEIGHT = 30.0
LEFT_LABEL_BLANK_SHARE = 0.4
LEFT_LABEL_MAX_WIDTH = 70.0  # a word or three ("City", "Last or Business"), not a sentence
ROW_EMPTY_SLACK = 3.5  # points under the rule above a row that its pen's width may take
POINTER_REACH = 6.0  # points from an arrow's tip to the blank it points at
RING_MIN_SCAN = 9.0  # points: a radio button on a scan, larger than the letters beside it
FILLED_MIN = 8.0  # points: the smallest side of a field shown by its background colour
RUN_MIN = 5.0  # points: the shortest stroke that can be the side of a checkbox
DASH_GAP = 2.0  # points: the widest gap between the dashes of a dashed rule
DASH_MAX = 10.0  # points: the longest dash of a dashed rule on a scan
# A tinted ground is grey levels from GROUND_LEVEL up to WHITE_LEVEL (the palest tints read as
# paper to the rules and the ink); a page is tinted when at least GROUND_SHARE of it is.
GROUND_LEVEL = 200
GROUND_SHARE = 0.05


@dataclass
class Found:
    kind: str  # "text", "checkbox" or "comb"
    rect: Rect
    boxes: tuple[Rect, ...] = ()
    # Where a label inside the field's own cell would be (the band above an empty band).
    cell_top: float | None = None
    # Found by the label printed at the start of a row's rule ("City ____"): a field only if
    # that label names one (``field_labels.names_a_field``).
    by_label: bool = False


def shapes(
    image: Image.Image,
    rules_image: Image.Image,
    frame: raster.PageFrame,
    *,
    scan: bool,
    pointers: Sequence[Rect] = (),
) -> list[Found]:
    """The blanks of one rendered page, top to bottom: ``image`` as drawn, ``rules_image`` with
    its text whited out (the same picture on a scan). Each kind of shape in turn; a later one
    never takes the place of a field already found."""
    page = _PageShapes(image, rules_image, frame, scan=scan)
    page.pointers = pointers
    boxes = geometry.closed_boxes(page.hlines, page.vlines)
    page.boxes = boxes
    page.add_combs(boxes)
    page.add_boxes(boxes)
    page.settle_tall_cells()
    page.add_tinted_boxes()
    if not scan:  # a scan's paper is no even white
        page.add_white_boxes(image)
        page.add_white_squares(image)
    page.add_rings(scan=scan)
    page.add_lines()
    page.part_numbers()
    page.drop_cents()
    return sorted(page.found, key=lambda item: (-round(item.rect.top), item.rect.x))


class _PageShapes:
    """One page's rules (in page space), its ink without them, and the fields found so far."""

    def __init__(
        self, image: Image.Image, rules_image: Image.Image, frame: raster.PageFrame, *, scan: bool
    ):
        self.frame = frame
        self.scale = scale = frame.scale
        min_run = max(3, round(RUN_MIN * scale))
        self.max_thickness = max_thickness = max(3, round(2.5 * scale) + 1)
        self.block = block = max(4, round(4 * scale))
        self.rules_image = rules_image
        self.rules_mask = raster.clear_filled_areas(raster.ink_mask(rules_image), block)
        # A dashed rule is a line to write on: its dashes are joined on a page whose text is
        # whited out (on a scan the letters of a word would join up too).
        rows_mask = (
            self.rules_mask
            if scan
            else raster.close_row_gaps(self.rules_mask, max(1, round(DASH_GAP * scale)))
        )
        self.row_runs = raster.row_runs(rows_mask, min_run, max_thickness)
        self.column_runs = raster.column_runs(self.rules_mask, min_run, max_thickness)
        if scan:
            dash = (max(2, round(1.5 * scale)), round(DASH_MAX * scale))
            gap, length = round(DASH_GAP * scale), round(UNDERLINE_MIN * scale)
            self.row_runs += raster.dashed_rows(
                self.rules_mask, dash, gap, max_thickness, length, self.column_runs
            )
        # What is printed besides the rules: tells an empty box from a filled-in one. A dotted
        # wall in a blank (between the groups of an SSN's digits, an amount's cents) is no
        # writing either, on a scan too.
        dotted = raster.dotted_columns(self.rules_mask, min_run, max_thickness)
        walls = self.column_runs + dotted
        self.ink = raster.erase_runs(raster.ink_mask(image), self.row_runs, walls)
        self.hlines: list[geometry.HLine] = []
        self.vlines: list[geometry.VLine] = []
        for run in self.row_runs:
            self._add_rule(
                frame.box_to_page(run.start, run.across, run.end + 1, run.across_end + 1)
            )
        for run in self.column_runs:
            self._add_rule(
                frame.box_to_page(run.across, run.start, run.across_end + 1, run.end + 1)
            )
        self.dotted_vlines = [  # solid walls too: a comb's cells may be parted by either
            geometry.VLine((x0 + x1) / 2, y0, y1)
            for x0, y0, x1, y1 in (
                frame.box_to_page(run.across, run.start, run.across_end + 1, run.end + 1)
                for run in dotted
            )
        ]
        self.found: list[Found] = []
        self.taken: list[geometry.Box] = []  # boxes whose bottom rule is no line to write on
        self.empty_boxes: list[geometry.Box] = []  # boxes that are fields, empty as printed
        self.boxes: Sequence[geometry.Box] = []  # every closed box of the page's rules
        self.pointers: Sequence[Rect] = []  # arrows printed between a label and its blank

    def _add_rule(self, box: tuple[float, float, float, float]) -> None:
        x0, y0, x1, y1 = box
        if x1 - x0 >= y1 - y0:
            self.hlines.append(geometry.HLine(x0, x1, (y0 + y1) / 2))
        else:
            self.vlines.append(geometry.VLine((x0 + x1) / 2, y0, y1))

    def _pixels(self, x0: float, y0: float, x1: float, y1: float) -> tuple[int, int, int, int]:
        left, top, right, bottom = self.frame.box_to_pixels(x0, y0, x1, y1)
        return math.ceil(left), math.ceil(top), math.floor(right), math.floor(bottom)

    def blank_height(self, x0: float, y0: float, x1: float, y1: float) -> float:
        """Points of empty paper above y0, inside the page box, up to y1."""
        rows = raster.blank_rows_from_bottom(self.ink, self._pixels(x0, y0, x1, y1))
        return rows / self.scale

    def blank_width(
        self, x0: float, y0: float, x1: float, y1: float, *, from_left: bool = False
    ) -> float:
        """Points of empty paper left of x1, inside the page box, from x0 (with ``from_left``:
        right of x0, up to x1)."""
        columns = raster.blank_columns_from_right(
            self.ink, self._pixels(x0, y0, x1, y1), from_left=from_left
        )
        return columns / self.scale

    def shaded(self, box: geometry.Box) -> bool:
        """True when ``box`` is filled with a grey shade, a point in from its sides: a cell the
        form greys out, not one to write in."""
        pixels = self._pixels(box.x0 + 1, box.y0 + 1, box.x1 - 1, box.y1 - 1)
        return pixels[2] > pixels[0] and pixels[3] > pixels[1] and self._grey(pixels)

    def _grey(self, pixels: tuple[int, int, int, int]) -> bool:
        """True when the page (text left out) is a grey shade over ``pixels``: darker than a
        tinted ground, lighter than ink; where a form says nothing is written."""
        return raster.INK_LEVEL <= raster.mean_level(self.rules_image, pixels) < GROUND_LEVEL

    def overlaps_found(self, rect: Rect) -> bool:
        return any(overlap_share(rect, other.rect) > 0.3 for other in self.found)

    def add_combs(self, boxes: Sequence[geometry.Box]) -> None:
        """Rows of empty character boxes: one charList each (``comb_rows``)."""
        inset = 1.0
        rows = comb_rows(boxes, self.hlines, [*self.vlines, *self.dotted_vlines])
        for row in rows:
            if any(
                self.shaded(b)
                or self.blank_height(b.x0 + inset, b.y0 + inset, b.x1 - inset, b.y1 - inset)
                < 0.8 * (b.height - 2 * inset)
                for b in row
            ):
                continue  # printed in: a table of small cells, not boxes to write in
            union = Rect(row[0].x0, row[0].y0, row[-1].x1 - row[0].x0, row[0].height)
            if self.overlaps_found(union):
                continue  # a longer reading of the same boxes came first
            self.taken.extend(row)
            rects = tuple(Rect(b.x0, b.y0, b.width, b.height) for b in row)
            self.found.append(Found("comb", union, boxes=rects))

    def part_numbers(self) -> None:
        """A blank parted into an SSN's or EIN's groups is that number's comb."""
        cells_of = partial(number_cells, vlines=self.dotted_vlines)
        self.found = [as_number(item, cells_of) for item in self.found]

    def add_boxes(self, boxes: Sequence[geometry.Box]) -> None:
        """Empty squares (checkboxes), and empty boxes and table cells (text fields): the whole
        box, the part right of a sign, or the band below a label printed inside."""
        in_combs = set(self.taken)
        comb_rects = [item.rect for item in self.found if item.kind == "comb"]
        inset = 1.0
        labelled: list[tuple[geometry.Box, Found]] = []
        row_labels: list[tuple[geometry.Box, Found]] = []
        for box in boxes:
            whole = Rect(box.x0, box.y0, box.width, box.height)
            if box in in_combs or any(overlap_share(whole, c) > 0.5 for c in comb_rects):
                continue  # a comb's cells (closed by a rule its walls stand under)
            inner = box.height - 2 * inset
            empty = self.blank_height(
                box.x0 + inset, box.y0 + inset, box.x1 - inset, box.y1 - inset
            )
            if self.shaded(box):
                self.taken.append(box)  # a grey cell: where the form says nothing is written
                continue
            if geometry.is_checkbox(box):
                if empty >= 0.8 * inner:
                    self.found.append(Found("checkbox", whole))
                    self.taken.append(box)
                continue
            if (
                box.width < geometry.BOX_MIN_WIDTH
                or not geometry.BOX_MIN_HEIGHT <= box.height <= geometry.BOX_MAX_HEIGHT
            ):
                continue
            if empty >= inner - 0.5:
                self.found.append(Found("text", whole))
                self.taken.append(box)
                self.empty_boxes.append(box)
                continue
            edges = (box.x0 + inset, box.y0 + inset, box.x1 - inset, box.y1 - inset)
            right = self.blank_width(*edges)
            if (
                box.width - right <= SIGN_MAX_WIDTH
                and right >= geometry.BOX_MIN_WIDTH
                and right * box.height >= empty * box.width
            ):
                # A cell with a sign at its left ("=", "$"): the field is the rest.
                rect = Rect(box.x1 - right - inset, box.y0, right + inset, box.height)
                self.found.append(Found("text", rect))
                self.taken.append(box)
                self.empty_boxes.append(box)
            elif box.width - (
                left := self.blank_width(*edges, from_left=True)
            ) <= UNIT_MAX_WIDTH and left >= max(geometry.BOX_MIN_WIDTH, 0.5 * box.width):
                # A cell with its unit printed at its right ("miles", "%", ".00"): the field is
                # the paper before it.
                self.found.append(Found("text", Rect(box.x0, box.y0, left + inset, box.height)))
                self.taken.append(box)
                self.empty_boxes.append(box)
            elif empty >= max(FIELD_MIN_HEIGHT, 0.3 * inner) and inner - empty <= LABEL_MAX_HEIGHT:
                # A table cell with its label printed at the top: the field is the band below it.
                rect = Rect(box.x0, box.y0, box.width, empty + inset)
                labelled.append((box, Found("text", rect, cell_top=box.y1)))
            elif (
                box.height <= LEFT_LABEL_CELL_MAX_HEIGHT
                and box.width - right <= LEFT_LABEL_MAX_WIDTH
                and right >= max(geometry.BOX_MIN_WIDTH, LEFT_LABEL_BLANK_SHARE * box.width)
            ):
                # A row's cell with its label at the left ("First", "City"): the field is the
                # paper after it.
                rect = Rect(box.x1 - right - inset, box.y0, right + inset, box.height)
                row_labels.append((box, Found("text", rect)))
        for box, item in row_labels:
            if any(
                abs(other.y0 - box.y0) <= geometry.TOLERANCE
                and abs(other.y1 - box.y1) <= geometry.TOLERANCE
                and other.x0 >= box.x1 - geometry.TOLERANCE
                for other in self.empty_boxes
            ):
                continue  # a table's row heading ("Total production"): its row's cells are
            self.found.append(item)
            self.taken.append(box)
        for box, item in labelled:
            if any(
                abs(other.y1 - box.y0) <= geometry.TOLERANCE
                and abs(other.x0 - box.x0) <= geometry.TOLERANCE
                and abs(other.x1 - box.x1) <= geometry.TOLERANCE
                for other in self.empty_boxes
            ):
                continue  # the heading of a table's column: the empty cells below are the fields
            self.found.append(item)
            self.taken.append(box)

    def settle_tall_cells(self) -> None:
        """A tall empty cell in a column of one-line cells is written on its last line
        (``form_geometry.last_line``); a tall cell alone in its column stays whole."""
        for index, item in enumerate(self.found):
            rect = geometry.last_line(item.rect, self.empty_boxes)
            if item.kind == "text" and rect != item.rect:
                self.found[index] = Found("text", rect)

    def drop_cents(self) -> None:
        """Leaves out the cents boxes of amounts (``form_geometry.is_cents``)."""
        texts = [item.rect for item in self.found if item.kind == "text"]

        def cents(item: Found) -> bool:
            return item.kind == "text" and geometry.is_cents(item.rect, texts)

        self.found = [item for item in self.found if not cents(item)]

    def add_tinted_boxes(self) -> None:
        """Fields shown only by a background colour: even rectangles of tint, empty inside,
        with paper around them (not a piece of a bold letter or of a shaded band)."""
        tint = raster.tint_mask(self.rules_image)
        min_side = max(3, round(FILLED_MIN * self.scale))
        for left, top, right, bottom in raster.filled_boxes(tint, min_side):
            if not raster.paper_around(tint, (left, top, right, bottom), max(2, round(self.scale))):
                continue
            if self._grey((left, top, right, bottom)):
                continue  # a grey shade (■ is ink)
            x0, y0, x1, y1 = self.frame.box_to_page(left, top, right, bottom)
            box = geometry.Box(x0, y0, x1, y1)
            rect = Rect(x0, y0, box.width, box.height)
            if self.overlaps_found(rect):
                continue  # the fill inside a ruled box already found
            self._add_filled(box, rect)

    def add_white_boxes(self, image: Image.Image) -> None:
        """Fields shown as white paper on a tinted ground: even white rectangles, empty inside,
        ended on every side by the ground or a rule (a stack of them shares its rules), with
        the ground on a fair part of their surroundings (a white cell of a white page has only
        rules and paper round it: not one of these)."""
        ground = image.point(lambda v: 255 if GROUND_LEVEL <= v < raster.WHITE_LEVEL else 0)
        if ground.resize((1, 1), Image.Resampling.BOX).tobytes()[0] < GROUND_SHARE * 255:
            return  # no tinted ground: the usual white page
        white = raster.white_mask(image)
        min_side = max(3, round(FILLED_MIN * self.scale))
        margin = max(3, round(2 * self.scale))
        candidates: list[geometry.Box] = []
        for left, top, right, bottom in raster.filled_boxes(white, min_side):
            box_px = (left, top, right, bottom)
            if not raster.paper_ends(white, box_px):
                continue  # white paper goes on past an edge (or the page's): no box
            around = raster.strips(box_px, margin, image.size)
            if sum(raster.mean_level(ground, strip) for strip in around) < 0.2 * 255 * len(around):
                continue
            candidates.append(geometry.Box(*self.frame.box_to_page(left, top, right, bottom)))
        tol = geometry.TOLERANCE
        for box in candidates:
            rect = Rect(box.x0, box.y0, box.width, box.height)
            if self.overlaps_found(rect):
                continue
            if box.width <= geometry.CENTS_MAX_WIDTH and any(
                abs(other.x1 - box.x0) <= tol
                and abs(other.y0 - box.y0) <= tol
                and abs(other.y1 - box.y1) <= tol
                and other.width > box.width
                for other in candidates
            ):
                continue  # the cents of the amount at its left, written with it
            self._add_filled(box, rect)

    def add_white_squares(self, image: Image.Image) -> None:
        """Checkboxes shown as white squares on a dark ground (``dark_ground``)."""
        for box in white_squares(image, self.frame):
            rect = Rect(box.x0, box.y0, box.width, box.height)
            if not self.overlaps_found(rect):
                self._add_filled(box, rect)

    def _add_filled(self, box: geometry.Box, rect: Rect) -> None:
        """A filled or white box as a field: a checkbox by its shape, else a text field when
        it is a box's size; anything else is no field."""
        if geometry.is_checkbox(box):
            self.found.append(Found("checkbox", rect))
        elif box.width >= geometry.BOX_MIN_WIDTH and (
            geometry.BOX_MIN_HEIGHT <= box.height <= geometry.BOX_MAX_HEIGHT
        ):
            self.found.append(Found("text", rect))
        else:
            return
        self.taken.append(box)

    def add_rings(self, *, scan: bool) -> None:
        """Radio buttons and ovals to fill in (``page_rings``). On a scan the letters are still
        there, so a ring must be larger than an "O" of body text."""
        ring_min = RING_MIN_SCAN if scan else geometry.CHECKBOX_MIN
        sizes = (round(ring_min * self.scale), round(geometry.CHECKBOX_MAX * self.scale))
        for left, top, right, bottom in page_rings.rings(self, sizes, scan=scan):
            x0, y0, x1, y1 = self.frame.box_to_page(left, top, right, bottom)
            rect = Rect(x0, y0, x1 - x0, y1 - y0)
            if not self.overlaps_found(rect):
                self.found.append(Found("checkbox", rect))
                self.taken.append(geometry.Box(x0, y0, x1, y1))

    def add_lines(self) -> None:
        """Lines to write on: the free stretches of each long rule with empty paper above them
        (after a sign printed on the line's start, if there is one)."""
        by_y = sorted(self.hlines, key=lambda line: line.y)
        for line in by_y:
            if line.length < UNDERLINE_MIN:
                continue
            under = [box for box in self.taken if abs(box.y0 - line.y) <= geometry.TOLERANCE]
            for piece in geometry.free_stretches(line, self.vlines, under):
                # The floor of an open-topped cell is looked for only where it matters.
                heads = geometry.heads_column(piece, self.empty_boxes)
                if piece.length >= UNDERLINE_MIN and (
                    not (heads or geometry.tops_table(piece, self.boxes))
                    or geometry.open_cell_floor(piece, self.vlines, self.boxes)
                    or (heads and self._empty_row(piece, by_y))
                ):
                    self._add_line(piece, by_y)

    def _empty_row(self, piece: geometry.HLine, by_y: Sequence[geometry.HLine]) -> bool:
        """True when the paper above ``piece`` is empty up to the rule above it, beside a wall:
        a row of its own to write in (an amount column's cell open at one side), not the
        heading of the empty cells below, which prints its words above their top rule."""
        ceiling = geometry.ceiling(piece, by_y)
        empty = self.blank_height(piece.x0 + 1, piece.y + 1, piece.x1 - 1, ceiling - 1)
        return (
            empty >= max(FIELD_MIN_HEIGHT, ceiling - piece.y - ROW_EMPTY_SLACK)
            and ceiling < piece.y + geometry.CEILING_REACH
            and geometry.walled(piece, self.vlines)
        )

    def _add_line(self, piece: geometry.HLine, by_y: Sequence[geometry.HLine]) -> None:
        ceiling = geometry.ceiling(piece, by_y)
        empty = self.blank_height(piece.x0 + 1, piece.y + 1, piece.x1 - 1, ceiling - 1)
        x0 = piece.x0
        by_label = False
        if empty < FIELD_MIN_HEIGHT:
            # A sign on the line's start ("$ ____"), or an arrow: the field is the line after it.
            band = min(ceiling, piece.y + UNDERLINE_FIELD_MAX_HEIGHT) - 1
            right = self.blank_width(piece.x0 + 1, piece.y + 1, piece.x1 - 1, band)
            x0 = piece.x1 - 1 - right
            # Or a short label on the start of a row's rule ("City ____", a rule close above):
            # kept only where the label names a field (detect_fields).
            label_width = piece.length - right
            by_label = label_width > SIGN_MAX_WIDTH and not self._pointed(x0, piece.y, band)
            if right < geometry.BOX_MIN_WIDTH or (
                by_label
                and not (
                    ceiling - piece.y <= LEFT_LABEL_CELL_MAX_HEIGHT
                    and label_width <= LEFT_LABEL_MAX_WIDTH
                    and right >= LEFT_LABEL_BLANK_SHARE * piece.length
                )
            ):
                return
            empty = self.blank_height(x0, piece.y + 1, piece.x1 - 1, ceiling - 1)
            if empty < FIELD_MIN_HEIGHT:
                return
        height = min(empty + 1, UNDERLINE_FIELD_MAX_HEIGHT)
        rect = Rect(x0, piece.y, piece.x1 - x0, height)
        if self.overlaps_found(rect):
            return
        cell_top = ceiling if ceiling - piece.y < geometry.CEILING_REACH else None
        self.found.append(Found("text", rect, cell_top=cell_top, by_label=by_label))

    def _pointed(self, x: float, y0: float, y1: float) -> bool:
        """True when an arrow ends at ``x`` between ``y0`` and ``y1``: the paper after it is a
        blank, whatever label comes before the arrow ("Firm's name ▶ ____")."""
        return any(
            x - POINTER_REACH <= arrow.right <= x + 1 and y0 - 1 <= arrow.y <= y1
            for arrow in self.pointers
        )


def as_number(item: Found, cells_of: Callable[[geometry.Box], list[geometry.Box] | None]) -> Found:
    """``item``, or where it is a text blank that ``cells_of`` parts into a number's digits
    (``comb_rows``), that number's comb."""
    r = item.rect
    cells = cells_of(geometry.Box(r.x, r.y, r.right, r.top)) if item.kind == "text" else None
    if not cells:
        return item
    return Found("comb", r, boxes=tuple(Rect(b.x0, b.y0, b.width, b.height) for b in cells))
