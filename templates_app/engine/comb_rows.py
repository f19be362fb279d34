"""Rows of character boxes (combs) from a page's rules, in page space: where one character of a
number goes in each box (an SSN, an EIN, a bank's routing and account numbers).

A comb is drawn either as closed boxes side by side (``form_geometry.combs``) or as short walls
standing on one rule with no rule across their tops: ticks on a baseline, or boxes whose top rule
is broken where the text above it was whited out. Both give the same cells. A dotted wall
between two cells (the groups of an EIN) is one of the walls. Groups of boxes on one row with a
small gap between them (an SSN's 3-2-4 with a dash between) are one number. A blank parted
only where an SSN's or EIN's groups meet, by walls or by dashes printed there, the groups as
wide as their digits, is that number's comb (``number_cells``, ``dashed_number_cells``; the
forms differ: of the nine blanks so parted by walls matched on the tuning half, three were
combs and six plain text fields; both parted by dashes were combs).

Kept out: two boxes side by side (the cells of a feet-and-inches pair, an amount and its grey
neighbour; on the tuning half of the corpus none of the eleven so found was a comb) unless they
are a group of a longer number, and a row of cells each holding a smaller box (a table of
checkboxes). Pure Python: no Django.
"""

from __future__ import annotations

from collections.abc import Sequence

from templates_app.engine.field_labels import TextRun
from templates_app.engine.form_geometry import (
    BOX_MIN_HEIGHT,
    CHECKBOX_MIN,
    COMB_CELL_MAX_WIDTH,
    TOLERANCE,
    Box,
    HLine,
    VLine,
    combs,
)

COMB_MIN_BOXES = 3
# Ticks on a baseline: cells at least this wide (points), walls at most this tall.
TICK_PITCH_MIN = 7.0
TICK_MAX_HEIGHT = 30.0
# Neighbouring cells of one comb differ in width by at most this ratio.
PITCH_RATIO = 1.35
# The groups of the numbers a box may be parted into: an SSN, an EIN.
NUMBER_GROUPS = ((3, 2, 4), (2, 7))
# Groups of one number are at most this many of their cells apart (room for a dash).
GROUP_GAP_CELLS = 1.5


def comb_rows(
    boxes: Sequence[Box], hlines: Sequence[HLine], vlines: Sequence[VLine]
) -> list[list[Box]]:
    """The candidate combs of a page, each a row of cells left to right, the longest first:
    closed boxes side by side and walls standing on a rule (``vlines`` may include dotted
    walls). A number printed in groups (an SSN's 3-2-4) gives a comb per group, as forms make
    them (the IRS's W-9 has three fields), its two-box group kept for being one of the number's
    groups. Whether the cells are empty is the caller's to check."""
    kept = [
        group
        for number in _numbers([*combs(boxes), *_wall_combs(hlines, vlines)])
        if sum(len(group) for group in number) >= COMB_MIN_BOXES
        for group in number
        if not any(_holds_box(cell, boxes) for cell in group)
    ]
    return sorted(kept, key=lambda row: -len(row))


def _wall_combs(hlines: Sequence[HLine], vlines: Sequence[VLine]) -> list[list[Box]]:
    """Rows of cells between short walls evenly spaced on one rule: each cell as tall as the
    row's walls (their median), whatever closes (or not) their tops."""
    tol = TOLERANCE
    out: list[list[Box]] = []
    for line in hlines:
        if line.length < COMB_MIN_BOXES * TICK_PITCH_MIN:
            continue
        standing = sorted(
            (
                wall
                for wall in vlines
                # A dotted wall may start a dot's gap above the rule, or come down through it
                # (the dividers of two stacked combs drawn as one dotted line).
                if wall.y0 - line.y <= 2 * tol
                and line.x0 - tol <= wall.x <= line.x1 + tol
                and wall.y1 - line.y >= CHECKBOX_MIN
            ),
            key=lambda wall: wall.x,
        )
        walls: list[VLine] = []
        for wall in standing:
            if walls and wall.x - walls[-1].x <= tol:
                continue  # the same wall drawn twice, or solid and dotted
            walls.append(wall)
        for run in _even_runs(walls):
            heights = sorted(min(w.y1 - line.y, TICK_MAX_HEIGHT + 1) for w in run[1:-1])
            height = min(heights[len(heights) // 2], _ceiling(line, run, hlines))
            if not BOX_MIN_HEIGHT <= height <= TICK_MAX_HEIGHT:
                continue  # a sliver under another row, or a table's columns
            out.append(
                [Box(a.x, line.y, b.x, line.y + height) for a, b in zip(run, run[1:], strict=False)]
            )
    return out


def number_cells(box: Box, vlines: Sequence[VLine]) -> list[Box] | None:
    """The digits' cells of a blank parted only where a number's groups meet (an SSN's 3-2-4,
    an EIN's 2-7) by short walls standing on its floor, often dotted, when each group's share
    of its width is its digits' (within PITCH_RATIO); None for any other blank."""
    tol = TOLERANCE
    walls = [
        wall
        for wall in vlines
        if box.x0 + TICK_PITCH_MIN <= wall.x <= box.x1 - TICK_PITCH_MIN
        and wall.y0 - box.y0 <= 2 * tol
        and box.y0 + CHECKBOX_MIN <= wall.y1 <= box.y1 + 2 * tol
    ]
    return _group_cells(box, sorted({round(wall.x, 1) for wall in walls}))


def dashed_number_cells(box: Box, dashes: Sequence[TextRun]) -> list[Box] | None:
    """The digits' cells of a blank with dashes printed where an SSN's or EIN's groups meet
    (``separator_dashes``), as ``number_cells``; None for any other blank. A run of several
    dashes ("-   -") does not say where each is: its blank is left as it is."""
    inside = [
        run for run in dashes if box.x0 < run.x and run.right < box.x1 and box.y0 <= run.y <= box.y1
    ]
    if any(len(run.text.split()) > 1 for run in inside):
        return None
    return _group_cells(box, sorted((run.x + run.right) / 2 for run in inside))


def _group_cells(box: Box, xs: Sequence[float]) -> list[Box] | None:
    """``box`` cut at ``xs`` into the groups of an SSN or an EIN, each group into its digits,
    when the groups are as wide as their digits (within PITCH_RATIO)."""
    if not xs:
        return None
    edges = [box.x0, *xs, box.x1]
    widths = [b - a for a, b in zip(edges, edges[1:], strict=False)]
    for groups in NUMBER_GROUPS:
        if len(groups) != len(widths):
            continue
        pitches = [width / digits for width, digits in zip(widths, groups, strict=True)]
        if max(pitches) > PITCH_RATIO * min(pitches) or max(pitches) > COMB_CELL_MAX_WIDTH:
            continue
        return [
            Box(start + i * pitch, box.y0, start + (i + 1) * pitch, box.y1)
            for start, pitch, digits in zip(edges, pitches, groups, strict=False)
            for i in range(digits)
        ]
    return None


def _ceiling(line: HLine, run: Sequence[VLine], hlines: Sequence[HLine]) -> float:
    """How far above ``line`` the lowest rule across most of ``run`` is (the cells' top, when
    the walls go on above it); infinite without one."""
    x0, x1 = run[0].x, run[-1].x
    return min(
        (
            other.y - line.y
            for other in hlines
            if other.y - line.y >= CHECKBOX_MIN
            and min(other.x1, x1) - max(other.x0, x0) >= 0.5 * (x1 - x0)
        ),
        default=float("inf"),
    )


def _even_runs(walls: Sequence[VLine]) -> list[list[VLine]]:
    """The longest runs of walls spaced alike (each gap within PITCH_RATIO of the one before),
    at least COMB_MIN_BOXES cells long, their inner walls no taller than twice the shortest."""
    runs: list[list[VLine]] = []
    current: list[VLine] = []
    for wall in walls:
        if current:
            gap = wall.x - current[-1].x
            last = current[-1].x - current[-2].x if len(current) >= 2 else gap
            if not (
                TICK_PITCH_MIN <= gap <= COMB_CELL_MAX_WIDTH
                and max(gap, last) <= PITCH_RATIO * min(gap, last)
            ):
                runs.append(current)
                current = [current[-1]] if gap >= TICK_PITCH_MIN else []
        current.append(wall)
    runs.append(current)
    out = []
    for run in runs:
        if len(run) - 1 < COMB_MIN_BOXES:
            continue
        inner = [w.y1 - w.y0 for w in run[1:-1]]
        if max(inner) <= 2 * min(inner):
            out.append(run)
    return out


def _numbers(rows: list[list[Box]]) -> list[list[list[Box]]]:
    """``rows`` gathered into numbers: rows of cells alike on one line, each starting at most
    GROUP_GAP_CELLS cells after the one before ended, are the groups of one number. A row
    found both as closed boxes and as walls is kept once."""
    rows = sorted(rows, key=lambda row: (round(row[0].y0), row[0].x0))
    out: list[list[list[Box]]] = []
    for row in rows:
        pitch = (row[-1].x1 - row[0].x0) / len(row)
        for number in out:
            last = number[-1]
            if not (
                abs(last[-1].y0 - row[0].y0) <= TOLERANCE
                and abs(last[-1].y1 - row[0].y1) <= TOLERANCE
            ):
                continue
            if row[0].x0 < last[-1].x1 - TOLERANCE:
                if row[-1].x1 <= last[-1].x1 + TOLERANCE:
                    break  # the same cells again
                continue
            width = (last[-1].x1 - last[0].x0) / len(last)
            if row[0].x0 - last[-1].x1 <= GROUP_GAP_CELLS * pitch and max(
                pitch, width
            ) <= PITCH_RATIO * min(pitch, width):
                number.append(list(row))
                break
        else:
            out.append([list(row)])
    return out


def _holds_box(cell: Box, boxes: Sequence[Box]) -> bool:
    """True when a smaller closed box (a checkbox) lies inside ``cell``."""
    tol = TOLERANCE
    return any(
        other.x0 >= cell.x0 - tol
        and other.x1 <= cell.x1 + tol
        and other.y0 >= cell.y0 - tol
        and other.y1 <= cell.y1 + tol
        and other.width * other.height < 0.8 * cell.width * cell.height
        for other in boxes
    )


DASHES = frozenset("-\u2010\u2011\u2012\u2013\u2014\u2212")
# Separator dashes of one number are this far apart at most (points).
DASH_SPACING_MAX = 60.0


def separator_dashes(runs: Sequence[TextRun]) -> list[TextRun]:
    """The dashes printed alone between the groups of a number's blank ("___ - __ - ____", an
    SSN's 3-2-4): runs that are only a dash, two or more on one line a group apart. They are no
    writing in the blank, which stays empty."""
    dashes = [run for run in runs if run.text.strip() and set(run.text.split()) <= DASHES]
    out = []
    for run in dashes:
        if len(run.text.split()) >= 2 or any(
            other is not run
            and abs(other.y - run.y) <= 1.0
            and 0 < abs(other.x - run.x) <= DASH_SPACING_MAX
            for other in dashes
        ):
            out.append(run)
    return out
