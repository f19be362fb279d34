"""Long documents rendered in parts, concurrently in the render pool, joined into one PDF.

WeasyPrint lays a document out on one core, and holds every page until it writes the PDF (a
1,000-page table needs 2.6 GB). A long report is nearly always one long table, or chapters that
each open a page, so that is what is cut: between rows, or at forced page breaks, where the whole
document breaks its page anyway, so that each part is exactly that stretch of the document
(`generate.engine.part_layout` lays a part out as such).

1. Which documents: at least ``min_bytes`` of HTML (`PartSettings`), with a top-level table or
   forced page breaks (`cuts_at_breaks`), and none of the features a part cannot reproduce
   (`one_piece_reason`): footnotes, ``target-counter()``/``target-text()``, links inside the
   document, ``position: fixed``, left/right/blank/nth pages that differ in more than their margin
   boxes, breaks to a left or right page, a reset of the ``page`` counter, viewport units, form
   fields, ``:has()`` selectors, running elements in a document whose selectors depend on siblings
   (a later part places them first in its body), linked or imported stylesheets (fetched as the
   document renders, so not read by these rules). Anything else is rendered in one piece, as
   before.
   Selectors that depend on siblings other than a table cell's (``tr:nth-child(even)``,
   ``h2 + table``, ``:last-child``) go in parts: the rows and elements outside a part stay in it as
   stand-ins that make no box (`keeps_siblings`), so they match as in one piece.
2. A document with forced page breaks and several workers is first cut at those
   (`BreakLayout`, `plan_breaks`): the first part reads them from the styles of the body's
   elements, cascaded without their content, and asks ``ASK_BREAKS``; if the breaks give parts
   near equal shares, each part renders its elements at once, laid out as pages after a forced
   break, and learns the pages before it only with its `Placement`, before its margin boxes.
   Otherwise (and with one worker) the table:
   a probe lays out what precedes the table and its first rows: where the table's pages start.
   If full pages hold the same number of rows, the later page starts are known; otherwise the
   document is rendered in one piece. With several workers the probe is the first part's
   opening (`PartOpening`): every worker parses the document at once, the first probes its
   copy (and puts it back as it was), the pool plans the parts, and each worker renders its
   part from the copy it parsed: the document is parsed once per worker, and the other parts
   parse while the first probes. With one worker (`TableProbe`), or when the parts do not go
   in one pass, the probe's layout plans the passes below.
3. The cuts are page starts, one part per ``part_pages`` pages and at least one per worker the
   document holds (one, counted for its tenant, plus any idle ones borrowed: `ProcessPool.lease`;
   a borrowed worker is taken back when another request would wait, and the document then
   renders in one piece on its own worker).
   Each part knows the pages before it, so ``counter(page)``, ``@page :first`` and left/right
   pages are right before anything is laid out. Each part but the last also lays out the next
   part's first row and checks that it opens a new page (`PartMisaligned` otherwise: the rows
   were not regular after all, and the document is rendered in one piece).
4. As many parts as workers, or fewer: one pass, all at once. Every part measures its rows'
   cells and asks for the widest of each column in any part (an automatic table layout sizes
   its columns from every row), lays out its pages, asks for the page count and the named
   strings of the parts before it once all are laid out, then draws its margin boxes and writes
   its PDF. A worker runs a part with few garbage collections (`generate.engine.worker`).
   More parts than workers (memory): the parts run a few at a time, three times: measured,
   then laid out and counted, then laid out again and written knowing everything; about twice
   the work of one piece, but no worker holds more than one part (`_in_passes`; parts cut at
   page breaks have no columns to measure: two passes). A document of at most twice
   ``part_pages`` pages that gets too few workers for one pass renders in one piece instead.
   If a document uses counters or running elements, each part also waits for the part before
   it to have built its box tree (not laid it out) to continue its counters and running
   elements (`PartStart`).
5. The parts' PDFs are joined (pypdf): pages, links, the first part's metadata with the job's
   title, and one outline built from every part's bookmarks in order (a later part's headings
   nest under an earlier part's, as in one piece: `join_pdfs`); each part carries the
   watermark already.

The page cap counts the whole document. The CPU-time cap counts all parts: each part is stopped
past the document's base budget plus the allowance for its own pages (every part reads the whole
document's HTML, which the base pays for), and the parts' sum (probe and every pass included)
must stay within the document's budget, base plus the allowance for all its pages.
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import math
import re
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import tinycss2

from core.engine.process_pool import Lease, LeasePreempted
from generate.engine.errors import PageLimitExceeded, RenderCpuLimit, RenderTimeout
from generate.engine.job import RenderedPdf, RenderJob
from generate.engine.part_job import (
    ASK_BREAKS,
    ASK_COLUMNS,
    ASK_PART,
    ASK_PLACEMENT,
    ASK_PLAN,
    ASK_START,
    IN_PASSES,
    TELL_END,
    Bookmark,
    BreakLayout,
    BreakProbe,
    Columns,
    PartDone,
    PartJob,
    PartLayout,
    PartMisaligned,
    PartOpening,
    PartStart,
    Placement,
    TableLayout,
    TableProbe,
    widest,
)


@dataclass(frozen=True)
class PartSettings:
    min_bytes: int = 100_000  # HTML shorter than this renders in one piece
    part_pages: int = 120  # at most about this many pages in one part (a worker's memory)
    probe_rows: int = 120  # table rows the probe lays out to learn the page breaks


# -- which documents ------------------------------------------------------------------------------

_ONE_PIECE = (
    (re.compile(r"float\s*:\s*footnote", re.I), "footnotes"),
    (re.compile(r"target-(counters?|text)\s*\(", re.I), "target-counter() or target-text()"),
    (re.compile(r"""href\s*=\s*["']?#""", re.I), "links inside the document"),
    (re.compile(r"position\s*:\s*fixed", re.I), "position: fixed"),
    (
        re.compile(r"break-(before|after)\s*:\s*(left|right|recto|verso)", re.I),
        "a break to a left or right page",
    ),
    (re.compile(r"counter-(reset|set)\s*:[^;}]*\bpage\b", re.I), "a reset of the page counter"),
    (re.compile(r"\d(vw|vh|vmin|vmax)\b", re.I), "viewport units"),
)
_FORM_FIELDS = re.compile(r"<(input|select|textarea|button)\b", re.I)
_STYLE_ELEMENTS = re.compile(r"<style[^>]*>(.*?)</style", re.I | re.S)
_CHAIN = re.compile(r"counter-(reset|increment|set)|running\s*\(|\bquotes\s*:|<q\b", re.I)
_SIDE_PAGES = re.compile(r":(left|right|recto|verso)\b", re.I)
_OTHER_PAGES = re.compile(r":(blank|nth)\b", re.I)


def one_piece_reason(job: RenderJob, settings: PartSettings) -> str | None:
    """Why ``job`` renders in one piece (for the logs), or None when it may go in parts."""
    if len(job.html) < settings.min_bytes:
        return "short"
    if "<table" not in job.html.lower() and not cuts_at_breaks(job):
        return "no table or page break"
    text = "\n".join((job.html, job.author_css, job.user_css))
    for pattern, reason in _ONE_PIECE:
        if pattern.search(text):
            return reason
    if job.html_mode and _FORM_FIELDS.search(job.html):
        return "form fields"
    sheets = _sheets(job)
    if any(_page_rules_differ(sheet) for sheet in sheets):
        return "left/right, blank or nth pages laid out differently"
    if any(_HAS.search(sheet) for sheet in sheets):
        return "selectors with :has()"
    if _LINKED_SHEET.search(job.html) or any(_IMPORT.search(sheet) for sheet in sheets):
        # Their rules are fetched as the document renders: not checked by the rules above.
        return "linked or imported stylesheets"
    if _RUNNING.search(text) and keeps_siblings(job):
        return "running elements and selectors that depend on an element's siblings"
    return None


_FORCED_BREAK = re.compile(r"break-(before|after)\s*:\s*(page|always)\b", re.I)
_NAMED_PAGE = re.compile(r"(?<![\w@-])page\s*:", re.I)


def cuts_at_breaks(job: RenderJob) -> bool:
    """Whether ``job`` may be cut at its forced page breaks (`BreakLayout`): it has some, and
    no named pages (page groups), whose layout depends on the pages before a part, which it
    learns only once every part is laid out. (Left and right pages differ in their margin
    boxes only, or the document is in one piece: the sides are set before those are drawn.)"""
    text = "\n".join((job.html, job.author_css, job.user_css))
    return bool(_FORCED_BREAK.search(text)) and not _NAMED_PAGE.search(text)


def keeps_siblings(job: RenderJob) -> bool:
    """Whether ``job``'s parts keep the rows and elements outside them as stand-ins
    (`PartJob.keep_siblings`): its selectors depend on siblings (`_sibling_selectors`). Other
    documents' parts drop them, which styles and builds a part faster."""
    return any(_sibling_selectors(sheet) for sheet in _sheets(job))


def _sheets(job: RenderJob) -> list[str]:
    return [job.author_css, job.user_css, *_STYLE_ELEMENTS.findall(job.html)]


_HAS = re.compile(r":has\(", re.I)
_LINKED_SHEET = re.compile(r"<link\b[^>]*\bstylesheet\b", re.I)
_IMPORT = re.compile(r"@import\b", re.I)
_RUNNING = re.compile(r"running\s*\(", re.I)


_STRUCTURAL = re.compile(
    r":(first|last|only)-(child|of-type)\b|:nth-(last-)?(child|of-type)\(", re.I
)
_COMBINATOR = re.compile(r"\s*([>+~])\s*|\s+")
_TYPE = re.compile(r"[a-z][\w-]*", re.I)
_SIBLING_INSIDE = re.compile(r":(not|is|where|has|matches)\([^)]*(\+|~(?!=))", re.I)


def _sibling_selectors(css: str) -> bool:
    """Whether a selector depends on an element's siblings or its position among them
    (``:nth-child()``, ``:first-child``..., ``+``, ``~``), other than a table cell's: a part
    lacks the rows before its own (and what precedes or follows the table), so
    ``tr:nth-child(even)`` or ``h2 + table`` would match other elements in it than in one
    piece, unless they stay as stand-ins (`keeps_siblings`). Cells are never cut from their
    rows: ``td:first-child`` and ``td + td`` need none."""
    if not any(mark in css for mark in (":", "+", "~")):
        return False
    for prelude in _selector_preludes(
        tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)
    ):
        # Brackets and parentheses blanked (same length): their "+", "~" and commas are not
        # combinators; the structural pseudo-classes are looked for in the original text.
        blank, depth = [], 0
        for char in prelude:
            if char in "([":
                depth += 1
            elif char in ")]":
                depth = max(0, depth - 1)
                blank.append(char)
                continue
            blank.append("x" if depth and char not in "([" else char)
        blanked = "".join(blank)
        start = 0
        for selector in blanked.split(","):
            end = start + len(selector)
            if _sibling_selector(prelude[start:end], selector):
                return True
            start = end + 1
    return False


def _sibling_selector(original: str, blanked: str) -> bool:
    """Whether one selector depends on siblings other than a table cell's. A compound is a
    cell's when it is ``td`` or ``th``, a child of ``tr`` (``tr > *``), or a sibling of a
    cell's (``td + *``)."""
    position, combinator = 0, ""
    text = blanked.strip()
    offset = len(blanked) - len(blanked.lstrip())
    before = ""  # the previous compound's element type
    cell = False  # the previous compound is a cell's
    for match in [*_COMBINATOR.finditer(text), None]:
        end = match.start() if match is not None else len(text)
        compound = original[offset + position : offset + end]
        found = _TYPE.match(compound)
        kind = found.group(0).lower() if found is not None else ""
        cell = (
            kind in ("td", "th")
            or (combinator == ">" and before == "tr")
            or (combinator in ("+", "~") and cell)
        )
        before = kind
        if not cell and (
            combinator in ("+", "~")
            or _STRUCTURAL.search(compound)
            or _SIBLING_INSIDE.search(compound)
        ):
            return True
        if match is not None:
            position, combinator = match.end(), (match.group(1) or " ")
    return False


def _selector_preludes(rules: list[Any]) -> list[str]:
    """The selectors of ``rules``' style rules, those inside ``@media`` and ``@supports``."""
    found: list[str] = []
    for rule in rules:
        if rule.type == "qualified-rule":
            found.append(tinycss2.serialize(rule.prelude))
        elif (
            rule.type == "at-rule"
            and rule.lower_at_keyword in ("media", "supports")
            and rule.content is not None
        ):
            rules_inside = tinycss2.parse_rule_list(
                rule.content, skip_comments=True, skip_whitespace=True
            )
            found.extend(_selector_preludes(rules_inside))
    return found


def _page_rules_differ(css: str) -> bool:
    """Whether an ``@page`` rule for left/right/blank/nth pages sets more than margin boxes (a
    part laid out as a right page must be right for a left one: only margin boxes are drawn
    once the part knows where it starts)."""
    if "@page" not in css.lower():
        return False
    for rule in tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True):
        if rule.type != "at-rule" or rule.lower_at_keyword not in ("page", "media"):
            continue
        if rule.lower_at_keyword == "media":
            if rule.content is not None and _page_rules_differ(tinycss2.serialize(rule.content)):
                return True
            continue
        prelude = tinycss2.serialize(rule.prelude)
        if _OTHER_PAGES.search(prelude):
            return True
        if _SIDE_PAGES.search(prelude) and rule.content is not None:
            items = tinycss2.parse_blocks_contents(
                rule.content, skip_comments=True, skip_whitespace=True
            )
            if any(item.type == "declaration" for item in items):
                return True
    return False


# -- the plan -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Cut:
    page: int  # index of the page the row opens
    row: int


@dataclass(frozen=True)
class _Plan:
    cuts: list[_Cut]  # where the parts after the first start
    step: int  # rows on a full page
    pages: int  # pages up to the table's last


def plan_cuts(layout: TableLayout, *, parts_wanted: int, part_pages: int) -> _Plan | None:
    """Where the parts start, or None when the table's pages are not regular or the document
    is too short to cut."""
    starts = [_Cut(page, row) for page, row in layout.page_starts if page > layout.first_page]
    if len(starts) < 2:
        return None  # the probe saw no full page of the table
    steps = {b.row - a.row for a, b in zip(starts, starts[1:], strict=False)}
    pages_between = {b.page - a.page for a, b in zip(starts, starts[1:], strict=False)}
    if len(steps) != 1 or pages_between != {1}:
        return None
    step = steps.pop()
    bounds = list(starts)
    while bounds[-1].row + step < layout.rows:
        bounds.append(_Cut(bounds[-1].page + 1, bounds[-1].row + step))
    table_pages = bounds[-1].page + 1
    count = max(parts_wanted, math.ceil(table_pages / part_pages))
    count = min(count, len(bounds))
    if count < 2:
        return None
    cuts: list[_Cut] = []
    for k in range(1, count):
        target = round(k * table_pages / count)
        cut = min(bounds, key=lambda b: abs(b.page - target))
        if not cuts or cut.row > cuts[-1].row:
            cuts.append(cut)
    return _Plan(cuts=cuts, step=step, pages=table_pages) if cuts else None


# A rough measure (`part_layout._weight`: characters and elements) of a full page's content:
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
    chain = bool(_CHAIN.search("\n".join((job.html, job.author_css, job.user_css))))
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


def part_jobs(job: RenderJob, layout: TableLayout, plan: _Plan) -> list[PartJob]:
    """The parts of ``job`` cut as ``plan`` says."""
    cuts = plan.cuts
    count = len(cuts) + 1
    chain = bool(_CHAIN.search("\n".join((job.html, job.author_css, job.user_css))))
    siblings = keeps_siblings(job)
    starts = [_Cut(0, 0), *cuts]
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


# -- running the parts ----------------------------------------------------------------------------


class _Aborted(Exception):  # noqa: N818 - another part failed: this one stops (its worker too)
    pass


class _Exchange:
    """What the parts tell each other through the pool, answered as they ask (see
    `generate.engine.part_job`'s questions). A question that cannot be answered yet waits."""

    def __init__(
        self,
        count: int,
        timeout: float,
        plan: Callable[[TableLayout | None], list[PartJob] | None] | None = None,
        breaks: Callable[[BreakLayout | None], list[PartJob] | None] | None = None,
    ) -> None:
        self.count = count
        self.timeout = timeout
        self.ends: dict[int, PartStart] = {}
        self.layouts: dict[int, PartLayout] = {}
        self.columns: dict[int, Columns] = {}
        self.failed = False
        self._condition = threading.Condition()
        # `PartOpening`s: the parts planned from the first one's probe (ASK_PLAN), once known.
        self._plan = plan
        self._breaks = breaks
        self.planned = False
        self.parts: list[PartJob] | None = None

    def abort(self) -> None:
        with self._condition:
            self.failed = True
            self._condition.notify_all()

    def _wait(self, ready: Callable[[], bool]) -> None:
        if not self._condition.wait_for(lambda: self.failed or ready(), self.timeout):
            raise _Aborted
        if self.failed:
            raise _Aborted

    def answer(self, question: Any) -> Any:
        kind = question[0]
        with self._condition:
            if kind == ASK_START:
                index = question[1]
                self._wait(lambda: index - 1 in self.ends)
                return self.ends[index - 1]
            if kind == TELL_END:
                self.ends[question[1]] = question[2]
                self._condition.notify_all()
                return None
            if kind == ASK_COLUMNS:
                self.columns[question[1]] = question[2]
                self._condition.notify_all()
                self._wait(lambda: len(self.columns) == self.count)
                return widest(list(self.columns.values()))
            if kind == ASK_PLAN:
                assert self._plan is not None
                self.parts = self._plan(question[1])
                self.planned = True
                if self.parts is not None:
                    self.count = len(self.parts)
                self._condition.notify_all()
                return self.parts[0] if self.parts is not None else None
            if kind == ASK_BREAKS:
                found = self._breaks(question[1]) if self._breaks is not None else None
                if found is None:
                    return None  # the first part probes the table next (ASK_PLAN)
                self.planned = True
                self._condition.notify_all()
                if len(found) > self.count:
                    return IN_PASSES  # more parts than workers: the others are skipped
                self.parts, self.count = found, len(found)
                return found[0]
            if kind == ASK_PART:
                index = question[1]
                self._wait(lambda: self.planned)
                return self.parts[index] if self.parts and index < len(self.parts) else None
            if kind == ASK_PLACEMENT:
                layout: PartLayout = question[1]
                self.layouts[layout.index] = layout
                self._condition.notify_all()
                self._wait(lambda: len(self.layouts) == self.count)
                return self.placement(layout.index)
        raise ValueError(f"unknown question {kind!r}")

    def placement(self, index: int) -> Placement:
        strings: dict[str, str] = {}
        for earlier in range(index):  # later parts' values win
            strings.update(self.layouts[earlier].strings)
        return Placement(
            total_pages=sum(layout.pages for layout in self.layouts.values()),
            strings=strings,
            pages_before=sum(self.layouts[earlier].pages for earlier in range(index)),
        )


def _run_all(
    leases: list[Lease[Any, Any]], parts: list[Any], timeout: float, exchange: _Exchange
) -> list[Any]:
    """Run ``parts`` on ``leases``, in order, as many at a time as there are leases; their
    results, in order. The first part to fail stops the parts under way at once (`Lease.stop`):
    their results are lost anyway, and a part that lays out pages asks nothing for minutes, so
    it would hold its worker (and the tenant's share) that long. The caller gets the first
    failure, not what stopping the others made of theirs."""
    queue = list(reversed(list(enumerate(parts))))
    lock = threading.Lock()
    done: dict[int, Any] = {}
    running: set[int] = set()  # the leases with a part under way, by index
    failures: list[BaseException] = []  # in the order they happened

    def work(index: int, lease: Lease[Any, Any]) -> None:
        while True:
            with lock:
                if not queue or exchange.failed:
                    return
                position, part = queue.pop()
                running.add(index)
            try:
                done[position] = lease.run(part, timeout=timeout, answer=exchange.answer)
            except BaseException as error:
                with lock:
                    running.discard(index)
                    failures.append(error)
                    others = [leases[i] for i in running] if len(failures) == 1 else []
                exchange.abort()
                for other in others:
                    other.stop()
                raise
            with lock:
                running.discard(index)

    with ThreadPoolExecutor(max_workers=len(leases)) as executor:
        for index, lease in enumerate(leases):
            executor.submit(work, index, lease)
    if failures:
        if isinstance(failures[0], _Aborted):
            # Nothing failed but the wait: a part waited for the others longer than the render
            # may take.
            raise RenderTimeout(timeout)
        raise failures[0]
    return [done[position] for position in range(len(parts))]


def render_in_parts(
    leases: list[Lease[Any, Any]],
    job: RenderJob,
    settings: PartSettings,
    *,
    timeout: float,
) -> RenderedPdf:
    """Render ``job`` on the held workers ``leases``: in parts when its page breaks or its
    table allow it (see the module docstring), otherwise in one piece on the first."""
    whole = leases[0]
    spent = 0.0
    siblings = keeps_siblings(job)
    breaks = cuts_at_breaks(job)
    try:
        found: BreakLayout | TableLayout | None = None
        if len(leases) > 1:
            # Every worker parses the document while the first probes it; the first part goes
            # on with the document it parsed, the others with theirs once the plan is known.
            def one_pass(layout: TableLayout | None) -> list[PartJob] | None:
                plan = _plan(layout, settings, len(leases))
                jobs = part_jobs(job, layout, plan) if layout is not None and plan else None
                return jobs if jobs is not None and len(jobs) <= len(leases) else None

            def by_breaks(layout: BreakLayout | None) -> list[PartJob] | None:
                ranges = _break_ranges(layout, settings, len(leases))
                return break_part_jobs(job, layout, ranges) if layout and ranges else None

            openings = [
                PartOpening(
                    job=job,
                    index=index,
                    probe_rows=settings.probe_rows,
                    keep_siblings=siblings,
                    breaks=breaks,
                )
                for index in range(len(leases))
            ]
            exchange = _Exchange(len(leases), timeout, plan=one_pass, breaks=by_breaks)
            opened = _run_all(leases, openings, timeout, exchange)
            spent = sum(result.cpu_seconds for result in opened if result is not None)
            if isinstance(opened[0], PartDone):
                done = [result for result in opened if isinstance(result, PartDone)]
                return _joined(job, done, spent)
            found = opened[0]
        else:
            if breaks:
                at_breaks: BreakLayout | None = whole.run(BreakProbe(job=job), timeout=timeout)
                spent = at_breaks.cpu_seconds if at_breaks is not None else 0.0
                if _break_ranges(at_breaks, settings, 1) is not None:
                    found = at_breaks
            if found is None:
                probe = TableProbe(job=job, rows=settings.probe_rows, keep_siblings=siblings)
                found = whole.run(probe, timeout=timeout)
                spent += found.cpu_seconds if found is not None else 0.0
        if isinstance(found, BreakLayout):
            ranges = _break_ranges(found, settings, len(leases))
            assert ranges is not None  # the exchange answered IN_PASSES for these
            parts = break_part_jobs(job, found, ranges)
        else:
            plan = _plan(found, settings, len(leases))
            if found is None or plan is None:
                return whole.run(job, timeout=timeout)
            parts = part_jobs(job, found, plan)
            if len(parts) <= len(leases) or plan.pages <= 2 * settings.part_pages:
                # One pass would have been taken above; too few workers free for one pass,
                # and short enough to fit one worker's memory: three passes would cost more
                # than one piece.
                return whole.run(job, timeout=timeout)
        done, passes = _in_passes(leases, parts, timeout)
        spent += passes
    except (PartMisaligned, LeasePreempted):
        # Not cut where the document breaks its pages, or a borrowed worker was taken back for
        # another request: the document in one piece, on its own worker.
        return whole.run(job, timeout=timeout)
    return _joined(job, done, spent)


def _break_ranges(
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


def _in_passes(
    leases: list[Lease[Any, Any]], parts: list[PartJob], timeout: float
) -> tuple[list[PartDone], float]:
    """More parts than workers: the parts run a few at a time, laid out and counted, then laid
    out again and written knowing the pages and strings before each (a table's parts are
    measured first, for its columns). Their results, and the CPU-seconds all passes took."""
    measured: list[PartDone] = []
    if not parts[0].breaks:
        measured = _run_all(
            leases,
            [dataclasses.replace(p, widths_only=True) for p in parts],
            timeout,
            _Exchange(len(parts), timeout),
        )
        columns = widest([d.columns or [] for d in measured])
        parts = [dataclasses.replace(p, columns=columns) for p in parts]
    counted = _run_all(
        leases,
        [dataclasses.replace(p, count_only=True) for p in parts],
        timeout,
        _Exchange(len(parts), timeout),
    )
    exchange = _Exchange(len(parts), timeout)
    exchange.layouts = {d.layout.index: d.layout for d in counted}
    known = [
        dataclasses.replace(
            part,
            start=counted[part.index - 1].end if part.index else None,
            placement=exchange.placement(part.index),
        )
        for part in parts
    ]
    done = _run_all(leases, known, timeout, exchange)
    return done, sum(d.cpu_seconds for d in [*measured, *counted, *done])


def _plan(layout: TableLayout | None, settings: PartSettings, workers: int) -> _Plan | None:
    if layout is None:
        return None
    return plan_cuts(layout, parts_wanted=workers, part_pages=settings.part_pages)


def _joined(job: RenderJob, done: list[PartDone], spent: float) -> RenderedPdf:
    """The parts' PDFs joined, within the document's page cap and CPU budget (``spent``: what
    every part, probe and pass took)."""
    total = sum(d.layout.pages for d in done)
    if total > job.max_pages:
        raise PageLimitExceeded(total, job.max_pages)
    allowed = job.cpu_seconds + job.cpu_seconds_per_page * total
    if job.cpu_seconds and spent > allowed:
        raise RenderCpuLimit(allowed, total)
    pdfs = [d.pdf for d in done if d.pdf is not None]
    bookmarks: list[Bookmark] = []
    before = 0
    for part in done:
        bookmarks.extend(
            (level, label, before + page, x, y, state)
            for level, label, page, x, y, state in part.bookmarks
        )
        before += part.layout.pages
    return RenderedPdf(pdf=join_pdfs(pdfs, title=job.title, bookmarks=bookmarks), pages=total)


def join_pdfs(pdfs: list[bytes], *, title: str | None, bookmarks: list[Bookmark]) -> bytes:
    """One PDF of ``pdfs``' pages in order, with their links, the first one's metadata
    (``title`` over its title when given), and an outline of ``bookmarks`` (page numbers of
    the joined PDF) nested as WeasyPrint nests a document's: under the last bookmark of a
    lower level before it."""
    import pypdf
    from pypdf.generic import Fit

    writer = pypdf.PdfWriter()
    metadata: dict[str, Any] = {}
    for number, pdf in enumerate(pdfs):
        reader = pypdf.PdfReader(io.BytesIO(pdf))
        if number == 0 and reader.metadata is not None:
            metadata = dict(reader.metadata.items())
        writer.append(reader, import_outline=False)
    open_items: list[tuple[int, Any]] = []  # (level, outline item) of the bookmarks above
    for level, label, page, x, y, state in bookmarks:
        while open_items and open_items[-1][0] >= level:
            open_items.pop()
        item = writer.add_outline_item(
            title=label,
            page_number=page,
            parent=open_items[-1][1] if open_items else None,
            fit=Fit.xyz(left=x, top=y, zoom=0),
            is_open=state != "closed",
        )
        open_items.append((level, item))
    if title is not None:
        metadata["/Title"] = title
    if metadata:
        writer.add_metadata(metadata)
    output = io.BytesIO()
    writer.write(output)
    return output.getvalue()
