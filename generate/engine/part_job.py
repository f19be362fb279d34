"""What a render worker is handed and hands back when a long document renders in parts
(`generate.engine.parts`). Light, like `generate.engine.job`: no WeasyPrint import."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from generate.engine.errors import GenerateError
from generate.engine.job import RenderJob

# The min- and max-content width of each column of the table (its cells that span one column):
# an automatic table layout sizes the columns from every row, so every part sizes its columns
# from the widest cells of the whole table, not only of its own rows.
Columns = list[tuple[float, float]]


def widest(columns: list[Columns]) -> Columns:
    """Each column's widest min- and max-content width among ``columns``."""
    count = max((len(c) for c in columns), default=0)
    return [
        (
            max((c[i][0] for c in columns if i < len(c)), default=0.0),
            max((c[i][1] for c in columns if i < len(c)), default=0.0),
        )
        for i in range(count)
    ]


@dataclass(frozen=True)
class TableProbe:
    """Lay out the document up to its longest top-level table and that table's first
    ``rows`` rows, to learn where its pages break (`TableLayout`)."""

    job: RenderJob
    rows: int
    keep_siblings: bool = False  # see `PartJob`


@dataclass(frozen=True)
class PartOpening:
    """A part sent before its cut is known, so that every worker parses the document while the
    first probes it. The first (``index`` 0) probes the table as `TableProbe` does and asks
    ``ASK_PLAN`` with its `TableLayout`; the others ask ``ASK_PART``. The answer is the part's
    `PartJob`, rendered on the document the worker has parsed already (`PartDone`), or None
    when the document does not go in one pass of these parts: the first then returns its
    `TableLayout` (or None, no table), the others `PartSkipped`."""

    job: RenderJob
    index: int
    probe_rows: int
    keep_siblings: bool = False  # see `PartJob`
    # The document may be cut at its forced page breaks: the first part first asks
    # ``ASK_BREAKS`` with its `BreakLayout`, and probes the table only if that gives no plan.
    breaks: bool = False


@dataclass(frozen=True)
class BreakLayout:
    """Where the document breaks its pages for certain, without laying anything out: the
    block elements of ``container`` (the body, or the element that wraps all its content, as
    in Markdown mode: `part_tree.break_container`'s path), ``weights`` (a rough measure of
    each one's content: its text and elements) and ``breaks``: the indices of the elements
    that open a page, because of their ``break-before`` or the ``break-after`` of the one
    before."""

    container: tuple[int, ...]
    weights: tuple[int, ...]
    breaks: tuple[int, ...]
    cpu_seconds: float = 0.0


@dataclass(frozen=True)
class BreakProbe:
    """Find where ``job``'s document breaks its pages for certain (`BreakLayout`), with one
    worker (with several, the first `PartOpening` does)."""

    job: RenderJob


@dataclass(frozen=True)
class PartSkipped:
    """A `PartOpening` that got no part: the CPU-seconds it took (parsing the document)."""

    cpu_seconds: float = 0.0


@dataclass(frozen=True)
class TableLayout:
    """Where the probe's pages broke. ``table``: the table's path (`part_tree.longest_table`);
    ``rows``: its body rows in all; ``page_starts``: (page index, first row on that page) for
    every page the probe laid out that starts with one of the table's rows; ``first_page``: the
    page index of the table's first row."""

    table: tuple[int, ...]
    rows: int
    first_page: int
    page_starts: tuple[tuple[int, int], ...]
    cpu_seconds: float = 0.0  # what the probe took


@dataclass(frozen=True)
class PartStart:
    """The state of the box tree where a part starts, from the part before it: the counters
    (name -> stacked values, the open scopes) and quote depth, and the last running element
    of each name (`xml.etree.ElementTree.Element`, placed first in the part's body)."""

    counters: dict[str, list[int]]
    scopes: list[set[str]]
    quote_depth: int
    running: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Placement:
    """What a part learns once every part is laid out: the document's page count and the
    value each named string (``string-set``) had at the end of the parts before it."""

    total_pages: int
    strings: dict[str, str]
    pages_before: int = 0  # the pages of the parts before it


@dataclass(frozen=True)
class PartJob:
    """One part of ``job``'s document: the table's body rows ``first_row`` to ``end_row``
    (exclusive; everything before the table too in the first part, everything after it in the
    last). A part that is not the last also lays out row ``end_row``, and must find it at the
    top of a page: that proves the cut is where the whole document breaks its page.

    ``offset``: the pages before this part; ``pages``: the pages it must have (None for the
    last part); a part after the first also checks that each of its pages opens with the row
    the plan says. ``start``/``placement`` None: asked of the pool on the way
    (`core.engine.process_worker.ask`); ``count_only``: lay out and report, write nothing.
    ``keep_siblings``: the document's selectors depend on siblings, so the rows and elements
    outside the part stay in its tree as empty stand-ins that make no boxes
    (`part_tree.cut_tree`), instead of being removed.

    ``breaks``: the part is cut at forced page breaks (`BreakLayout`), not between a table's
    rows: ``table`` is then the path of the elements' container, ``first_row``..``end_row``
    the part's elements among its element children, and a part that is not the last lays out
    element ``end_row`` only up to its first page, which it must open. The pages before the
    part are not known until every part is laid out (``offset`` and ``pages`` unused): the
    part learns them with its `Placement`, before it draws its margin boxes.
    """

    job: RenderJob
    index: int
    count: int
    table: tuple[int, ...]  # the table's path (`part_tree.longest_table`)
    first_row: int
    end_row: int
    offset: int
    pages: int | None
    step: int  # rows on a full page of the table
    chain: bool  # the part needs the counters and running elements of the part before it
    keep_siblings: bool = False
    breaks: bool = False
    count_only: bool = False
    # Measure the table's columns (`Columns`) and stop: no layout.
    widths_only: bool = False
    start: PartStart | None = None
    placement: Placement | None = None
    columns: Columns | None = None  # the whole table's column widths, if known

    @property
    def last(self) -> bool:
        return self.index == self.count - 1


@dataclass(frozen=True)
class PartLayout:
    """A part laid out: its pages, and the last value of each named string it set."""

    index: int
    pages: int
    strings: dict[str, str]


# A heading's bookmark: (level, label, page index, x, y in PDF points from the page's bottom,
# "open" or "closed"). A part's come back with it, and the joined PDF's outline is built from
# every part's in order (a later part's headings nest under an earlier part's, as in one piece).
Bookmark = tuple[int, str, int, float, float, str]


@dataclass(frozen=True)
class PartDone:
    """A part finished: its PDF (None for ``count_only``), its layout, the state where the next
    part starts (None for the last part) and the CPU-seconds it took."""

    layout: PartLayout
    pdf: bytes | None
    end: PartStart | None
    cpu_seconds: float
    columns: Columns | None = None  # its rows' column widths (``widths_only``)
    bookmarks: tuple[Bookmark, ...] = ()  # page indices within the part


# Questions a part asks its pool (`core.engine.process_worker.ask`), with what it hands over.
ASK_START = "start"  # (ASK_START, index) -> PartStart
TELL_END = "end"  # (TELL_END, index, PartStart) -> None: what the next part starts with
ASK_PLACEMENT = "placement"  # (ASK_PLACEMENT, PartLayout) -> Placement
ASK_COLUMNS = "columns"  # (ASK_COLUMNS, index, its rows' Columns) -> the whole table's Columns
ASK_PLAN = "plan"  # (ASK_PLAN, TableLayout | None) -> the first part's PartJob, or None
ASK_PART = "part"  # (ASK_PART, index) -> that part's PartJob, or None
# (ASK_BREAKS, BreakLayout | None) -> the first part's PartJob; None: probe the table; IN_PASSES:
# the parts are more than the workers, so they run in passes: the opening returns its layout.
ASK_BREAKS = "breaks"
IN_PASSES = "passes"


class PartMisaligned(GenerateError):
    """A part's cut is not where the whole document breaks its page (the table's rows are not
    as regular as its first pages said): the document is rendered in one piece instead. Never
    reaches a caller."""

    code = "part_misaligned"
