"""The shapes of a form's blanks, from its rules: closed boxes (table cells, checkboxes), rows of
character boxes (combs) and lines to write on.

Everything here is in page space (points, y up) and knows nothing of pictures: the rules come
from ``page_raster`` through the page's frame. A rule is a ``HLine`` or a ``VLine``.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from core.engine.template_spec import Rect

# Positions within this many points are the same (rules drawn with a pen's width, a scan's blur).
TOLERANCE = 2.0
CHECKBOX_MIN = 5.0
CHECKBOX_MAX = 22.0
COMB_CELL_MAX_WIDTH = 30.0
BOX_MIN_WIDTH = 20.0
BOX_MIN_HEIGHT = 8.5  # a sliver less tall holds no line of writing (page_shapes.FIELD_MIN_HEIGHT)
BOX_MAX_HEIGHT = 120.0
CEILING_REACH = 40.0  # points above a line where the rule over it may close its blank
# Walls this tall (points) above a rule, with no rule across their tops, make it a cell's floor.
OPEN_CELL_MIN_WALL = 12.0
CENTS_MAX_WIDTH = 30.0  # points: a narrow white box ending an amount's box is its cents
CENTS_MAX_HEIGHT = 20.0  # a line's height: taller narrow boxes are columns of their own
# An empty cell at least this tall, in a column that also has one-line cells, is written on its
# last line only (a tax form's amount column beside a question of several lines).
TALL_CELL_MIN = 28.0


@dataclass(frozen=True)
class HLine:
    x0: float
    x1: float
    y: float

    @property
    def length(self) -> float:
        return self.x1 - self.x0


@dataclass(frozen=True)
class VLine:
    x: float
    y0: float
    y1: float


@dataclass(frozen=True)
class Box:
    """A closed rectangle of rules, as x0, y0 (bottom), x1, y1 (top)."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0


def closed_boxes(hlines: Sequence[HLine], vlines: Sequence[VLine]) -> list[Box]:
    """The smallest rectangles closed by rules: for each rule as a bottom edge, each pair of
    neighbouring walls standing on it, and the lowest rule above that spans both walls."""
    tol = TOLERANCE
    by_y = sorted(hlines, key=lambda line: line.y)
    ys = [line.y for line in by_y]
    walls_by_x = sorted(vlines, key=lambda line: line.x)
    wall_xs = [line.x for line in walls_by_x]
    boxes: set[tuple[int, int, int, int]] = set()
    out: list[Box] = []
    for bottom in by_y:
        first = bisect_left(wall_xs, bottom.x0 - tol)
        walls: list[VLine] = []
        for wall in walls_by_x[first:]:
            if wall.x > bottom.x1 + tol:
                break
            if wall.y0 <= bottom.y + tol and wall.y1 >= bottom.y + CHECKBOX_MIN:
                if walls and wall.x - walls[-1].x <= tol:
                    if wall.y1 > walls[-1].y1:
                        walls[-1] = wall  # the same wall drawn twice: keep the taller
                    continue
                walls.append(wall)
        for left, right in zip(walls, walls[1:], strict=False):
            if right.x - left.x < CHECKBOX_MIN:
                continue
            reach = min(left.y1, right.y1) + tol
            start = bisect_left(ys, bottom.y + CHECKBOX_MIN - tol)
            for top in by_y[start:]:
                if top.y > reach:
                    break
                if top.x0 <= left.x + tol and top.x1 >= right.x - tol:
                    key = (round(left.x), round(bottom.y), round(right.x), round(top.y))
                    if key not in boxes:
                        boxes.add(key)
                        out.append(Box(left.x, bottom.y, right.x, top.y))
                    break
    return out


def is_checkbox(box: Box) -> bool:
    """A small box about as wide as tall; up to half again as wide (the 18 by 12 point boxes
    of the 1040's dependants' "child tax credit" column), not as tall (a comb's cell is)."""
    return (
        CHECKBOX_MIN <= box.width <= CHECKBOX_MAX
        and CHECKBOX_MIN <= box.height <= CHECKBOX_MAX
        and 0.7 <= box.width / box.height <= 1.55
    )


def combs(boxes: Sequence[Box]) -> list[list[Box]]:
    """Rows of at least two small boxes of one size side by side, sharing their walls: the
    character boxes of a tax form's number."""
    small = sorted(
        (b for b in boxes if b.width <= COMB_CELL_MAX_WIDTH and b.height <= 40),
        key=lambda b: (round(b.y0), b.x0),
    )
    rows: list[list[Box]] = []
    for box in small:
        for row in rows:
            last = row[-1]
            if (
                abs(last.y0 - box.y0) <= TOLERANCE
                and abs(last.y1 - box.y1) <= TOLERANCE
                and abs(box.x0 - last.x1) <= TOLERANCE
                and max(box.width, last.width) <= 1.35 * min(box.width, last.width)
            ):
                row.append(box)
                break
        else:
            rows.append([box])
    return [row for row in rows if len(row) >= 2]


def free_stretches(line: HLine, vlines: Sequence[VLine], taken: Sequence[Box]) -> list[HLine]:
    """The parts of a rule not under a box already found, cut where a wall meets it from above:
    each is a line someone may write on."""
    tol = TOLERANCE
    cuts = sorted(
        wall.x
        for wall in vlines
        if wall.y0 <= line.y + tol
        and wall.y1 >= line.y + CHECKBOX_MIN
        and line.x0 + tol < wall.x < line.x1 - tol
    )
    pieces, start = [], line.x0
    for x in [*cuts, line.x1]:
        if x - start > tol:
            pieces.append(HLine(start, x, line.y))
        start = x
    free = []
    for piece in pieces:
        covered = sum(
            max(0.0, min(piece.x1, box.x1) - max(piece.x0, box.x0))
            for box in taken
            if abs(box.y0 - piece.y) <= tol
        )
        if covered < 0.5 * piece.length:
            free.append(piece)
    return free


def tops_table(piece: HLine, boxes: Sequence[Box]) -> bool:
    """True when ``piece`` is the top edge of closed boxes and the bottom of none: the open
    paper above a table, between it and the text before it, is nowhere to write."""
    tol = TOLERANCE

    def shared(box: Box) -> float:
        return max(0.0, min(box.x1, piece.x1) - max(box.x0, piece.x0))

    under = sum(shared(box) for box in boxes if abs(box.y1 - piece.y) <= tol)
    over = any(abs(box.y0 - piece.y) <= tol and shared(box) > 0 for box in boxes)
    return under >= 0.5 * piece.length and not over


def heads_column(piece: HLine, empty_boxes: Sequence[Box]) -> bool:
    """True when ``piece`` is the top edge of an empty cell: the space above it is a table's
    heading, the cells below are the blanks."""
    return any(
        abs(box.y1 - piece.y) <= TOLERANCE
        and min(box.x1, piece.x1) - max(box.x0, piece.x0) >= 0.5 * piece.length
        for box in empty_boxes
    )


def ceiling(piece: HLine, by_y: Sequence[HLine]) -> float:
    """The height of the lowest rule over ``piece`` (``by_y``: the page's rules, low to high),
    at most CEILING_REACH above it: how far up the paper above a line may be its blank."""
    above = next(
        (
            line.y
            for line in by_y
            if line.y > piece.y + TOLERANCE and line.x0 < piece.x1 - 5 and line.x1 > piece.x0 + 5
        ),
        piece.y + CEILING_REACH,
    )
    return min(above, piece.y + CEILING_REACH)


def walled(piece: HLine, vlines: Sequence[VLine]) -> bool:
    """True when a wall stands on either end of ``piece``, OPEN_CELL_MIN_WALL tall at least."""
    return any(
        min(abs(wall.x - piece.x0), abs(wall.x - piece.x1)) <= TOLERANCE
        and wall.y0 <= piece.y + TOLERANCE
        and wall.y1 >= piece.y + OPEN_CELL_MIN_WALL
        for wall in vlines
    )


def open_cell_floor(piece: HLine, vlines: Sequence[VLine], boxes: Sequence[Box]) -> bool:
    """True when walls stand on both ends of ``piece`` and rise at least OPEN_CELL_MIN_WALL
    above it, with no closed box on it: the floor of a cell whose top is left open, as the
    first cell of a tax form's amount column under the open space beside its line's text.
    Such a rule is written on even where it tops the column's cells below. A box taller than
    any field (BOX_MAX_HEIGHT) closes no cell: it is the column's empty run beside several
    lines of questions, written on at its floor only."""
    tol = TOLERANCE

    def wall_at(x: float) -> bool:
        return any(
            abs(wall.x - x) <= tol
            and wall.y0 <= piece.y + tol
            and wall.y1 >= piece.y + OPEN_CELL_MIN_WALL
            for wall in vlines
        )

    return (
        wall_at(piece.x0)
        and wall_at(piece.x1)
        and not any(
            abs(box.y0 - piece.y) <= tol
            and min(box.x1, piece.x1) - max(box.x0, piece.x0) > 0
            and box.height <= BOX_MAX_HEIGHT
            for box in boxes
        )
    )


def follows(rect: Rect, other: Rect) -> bool:
    """``rect`` starts where ``other`` ends, on the same row and as tall."""
    tol = TOLERANCE
    return (
        abs(other.right - rect.x) <= tol
        and abs(other.y - rect.y) <= tol
        and abs(other.height - rect.height) <= tol
    )


def overlap_share(a: Rect, b: Rect) -> float:
    """The area a and b share, as a share of the smaller one."""
    width = min(a.right, b.right) - max(a.x, b.x)
    height = min(a.top, b.top) - max(a.y, b.y)
    if width <= 0 or height <= 0:
        return 0.0
    return width * height / max(1e-6, min(a.width * a.height, b.width * b.height))


def is_cents(rect: Rect, texts: Sequence[Rect]) -> bool:
    """True when ``rect``, among a page's text fields ``texts``, is a narrow one-line box right
    after a wider one, ending the row or followed by the next column's amount: the amount's
    cents, written with the amount, not a field of its own (on the tuning half of the corpus, 1
    such box at a row's end in 112 was a field, and none of the 23 between amount columns)."""

    def after(box: Rect) -> list[Rect]:
        return [other for other in texts if follows(other, box)]

    amounts = [other for other in texts if follows(rect, other) and other.width > rect.width]
    if rect.width > CENTS_MAX_WIDTH or not amounts:
        return False
    nexts = after(rect)
    # Between two amounts of one width: the first one's cents, on rows of one line or two
    # (Schedule E's properties A, B and C side by side, the last column's cents left open at
    # the page's edge; Form 8839's children, two lines a row). A taller narrow box elsewhere
    # may be a column of its own (Form 8275's "Line No.").
    if rect.height < 1.5 * CENTS_MAX_HEIGHT and any(
        other.width > rect.width and any(abs(other.width - amount.width) <= 1 for amount in amounts)
        for other in nexts
    ):
        return True
    # Else they end the row, or the next column's amount has cents of their width after it.
    return rect.height < CENTS_MAX_HEIGHT and (
        not nexts
        or any(
            other.width > rect.width
            and any(abs(more.width - rect.width) <= 1 for more in after(other))
            for other in nexts
        )
    )


def last_line(rect: Rect, cells: Sequence[Box]) -> Rect:
    """``rect`` (a text field), or where it is an empty cell several lines tall in a column of
    one-line ``cells`` (an amount column beside a question that takes three lines), its bottom
    band as tall as the column's one-line cells: it is written on its last line, where the
    line's number is printed. A tall cell alone in its column (a box for a description) stays
    whole."""
    if rect.height < TALL_CELL_MIN:
        return rect
    column = sorted(
        box.height
        for box in cells
        if box.height < TALL_CELL_MIN
        and abs(box.x0 - rect.x) <= TOLERANCE
        and abs(box.x1 - rect.right) <= TOLERANCE
    )
    if not column:
        return rect
    return Rect(rect.x, rect.y, rect.width, column[len(column) // 2])
