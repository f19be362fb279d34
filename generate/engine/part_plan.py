"""Where a long document is cut (`generate.engine.parts`): at the page starts of its longest
table, whose rows break regularly, or at its forced page breaks; and the `PartJob` of each part."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from generate.engine.job import RenderJob
from generate.engine.part_job import (
    BreakLayout,
    PartJob,
    TableLayout,
)
from generate.engine.part_rules import PartSettings, carries_state, keeps_siblings

# -- the plan -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cut:
    page: int  # index of the page the row opens
    row: int


@dataclass(frozen=True)
class Plan:
    cuts: list[Cut]  # where the parts after the first start
    step: int  # rows on a full page
    pages: int  # pages up to the table's last


def plan_cuts(layout: TableLayout, *, parts_wanted: int, part_pages: int) -> Plan | None:
    """Where the parts start, or None when the table's pages are not regular or the document
    is too short to cut."""
    starts = [Cut(page, row) for page, row in layout.page_starts if page > layout.first_page]
    if len(starts) < 2:
        return None  # the probe saw no full page of the table
    steps = {b.row - a.row for a, b in zip(starts, starts[1:], strict=False)}
    pages_between = {b.page - a.page for a, b in zip(starts, starts[1:], strict=False)}
    if len(steps) != 1 or pages_between != {1}:
        return None
    step = steps.pop()
    bounds = list(starts)
    while bounds[-1].row + step < layout.rows:
        bounds.append(Cut(bounds[-1].page + 1, bounds[-1].row + step))
    table_pages = bounds[-1].page + 1
    count = max(parts_wanted, math.ceil(table_pages / part_pages))
    count = min(count, len(bounds))
    if count < 2:
        return None
    cuts: list[Cut] = []
    for k in range(1, count):
        target = round(k * table_pages / count)
        cut = min(bounds, key=lambda b: abs(b.page - target))
        if not cuts or cut.row > cuts[-1].row:
            cuts.append(cut)
    return Plan(cuts=cuts, step=step, pages=table_pages) if cuts else None


# A rough measure (`part_tree.element_weight`: characters and elements) of a full page's content:
# how many parts a document cut at its page breaks needs to keep each within ``part_pages``.
_WEIGHT_PER_PAGE = 3_000


def plan_breaks(
    layout: BreakLayout, *, parts_wanted: int, part_pages: int
) -> list[tuple[int, int]] | None:
    """Each part's elements (first, end: exclusive) of a document cut at its page breaks: at
    the breaks nearest equal shares of its weight. None when the breaks leave a part too long:
    more than 1.5 times its share when there are parts for the workers only (they render at
    once: a short cover page before a long table would gain little), more than twice
    ``part_pages`` when there are more (they bound a worker's memory)."""
    total = sum(layout.weights)
    count = max(parts_wanted, math.ceil(total / (part_pages * _WEIGHT_PER_PAGE)))
    count = min(count, len(layout.breaks) + 1)
    if count < 2 or total == 0:
        return None
    before = list(itertools.accumulate(layout.weights, initial=0))  # weight before element i
    cuts: list[int] = []
    for k in range(1, count):
        target = k * total / count
        cut = min(layout.breaks, key=lambda index: abs(before[index] - target))
        if not cuts or cut > cuts[-1]:
            cuts.append(cut)
    bounds = [0, *cuts, len(layout.weights)]
    ranges = list(zip(bounds, bounds[1:], strict=False))
    longest = max(before[end] - before[start] for start, end in ranges)
    if count > parts_wanted:
        return ranges if longest <= 2 * part_pages * _WEIGHT_PER_PAGE else None
    return ranges if longest <= 1.5 * total / len(ranges) else None


def break_part_jobs(
    job: RenderJob, layout: BreakLayout, ranges: list[tuple[int, int]]
) -> list[PartJob]:
    """The parts of ``job`` cut at the page breaks ``ranges`` start at (`plan_breaks`)."""
    chain = carries_state(job)
    siblings = keeps_siblings(job)
    return [
        PartJob(
            job=job,
            index=index,
            count=len(ranges),
            table=layout.container,
            first_row=start,
            end_row=end,
            offset=0,
            pages=None,
            step=0,
            chain=chain,
            keep_siblings=siblings,
            breaks=True,
        )
        for index, (start, end) in enumerate(ranges)
    ]


def part_jobs(job: RenderJob, layout: TableLayout, plan: Plan) -> list[PartJob]:
    """The parts of ``job`` cut as ``plan`` says."""
    cuts = plan.cuts
    count = len(cuts) + 1
    chain = carries_state(job)
    siblings = keeps_siblings(job)
    starts = [Cut(0, 0), *cuts]
    ends = [*cuts, None]
    return [
        PartJob(
            job=job,
            index=index,
            count=count,
            table=layout.table,
            first_row=start.row,
            end_row=end.row if end is not None else layout.rows,
            offset=start.page,
            pages=end.page - start.page if end is not None else None,
            step=plan.step,
            chain=chain,
            keep_siblings=siblings,
        )
        for index, (start, end) in enumerate(zip(starts, ends, strict=True))
    ]


def break_ranges(
    layout: BreakLayout | None, settings: PartSettings, workers: int
) -> list[tuple[int, int]] | None:
    """Where a document is cut at its page breaks for ``workers``: one pass when the parts are
    no more than the workers, or passes (`_in_passes`) when it is long enough not to fit one
    worker's memory (more than twice ``part_pages`` pages' weight); None otherwise."""
    if layout is None:
        return None
    ranges = plan_breaks(layout, parts_wanted=workers, part_pages=settings.part_pages)
    if ranges is None or len(ranges) <= workers:
        return ranges
    long = sum(layout.weights) > 2 * settings.part_pages * _WEIGHT_PER_PAGE
    return ranges if long else None


def plan_table(layout: TableLayout | None, settings: PartSettings, workers: int) -> Plan | None:
    if layout is None:
        return None
    return plan_cuts(layout, parts_wanted=workers, part_pages=settings.part_pages)
