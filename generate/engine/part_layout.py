"""One part of a long document, laid out by WeasyPrint as that stretch of the whole document
would be (`generate.engine.parts` plans the parts and joins them). The only module that reaches
into WeasyPrint's internals for parts; pinned to WeasyPrint 70 (requirements.txt), and
tests/generate/test_parts.py compares parted renders with one-piece renders page by page, so an
upgrade that moves what this relies on fails there.

What it relies on, and why each is enough:

- ``Document._build_layout_context``, ``build_formatting_structure``, ``remake_page`` and
  ``make_margin_boxes`` are the steps of ``Document._render`` / ``layout_document``: a part
  runs them itself (`_build`, `_lay_out`, `_finish_pages`) on its cut of the element tree.
- Pages first, margin boxes after. ``layout_document`` lays out every page, then draws each
  page's margin boxes from the page's saved state (``context.page_maker``: the ``page`` and
  ``pages`` counters) and from the named strings and running elements stored by page number.
  A part lays out its body knowing the pages before it (planned: the table's pages break
  regularly, checked after layout), then asks for the document's page count and the strings
  the earlier parts set before it draws the margin boxes. In one pass nothing is laid out twice.
- A part after the first starts at page-maker index 1, as page 2 of a document whose "page 1"
  is the earlier parts: WeasyPrint's continuation rules hold (no ``@page :first``, margins
  truncated at an unforced break), the ``page`` counter starts at the pages before it, the
  first page is a right or left page by its real number, and the strings and running elements
  of earlier parts are stored under that virtual page 1, where "the last value set on an earlier
  page" is looked up.
- A part cut at a forced page break (`PartJob.breaks`) starts its first page-maker item with
  ``next_page["break"] = "page"`` (``remake_page`` sets ``context.forced_break`` from it, so
  margins at the top of the page are kept, as after the break in one piece) and with a
  ``resume_at`` skip stack that goes on inside its container at child 0 (`_resume_inside`):
  ``block_container_layout`` then removes the top decoration of every box on the way, as for a
  page that starts inside them in one piece. Child 0 is the part's first element or a running
  element carried before it: nothing is skipped. Its page counter is moved on once the pages
  before it are known: margin boxes read it from ``context.page_maker``'s saved states.
- A page that starts mid-table is laid out with a skip stack: ``block_container_layout`` and
  ``table_layout`` then remove the continued boxes' top decoration (border, padding, margin:
  the default ``box-decoration-break: slice``; a table keeps its own when it repeats a header),
  and ``table_layout`` adds no top border-spacing. A part after the first lays out its first
  page from the start of its own (cut) tree, with no skip stack: on that page only, the
  table, its wrapper and its ancestors are laid out as continued (`_continued_table`), through
  the module names ``block.py`` calls them by (``block_container_layout``, ``table_layout``).
  The skip stack given says "continued" and skips nothing else the part lays out: the
  ancestors resume at their first child but their own block-level ``::before`` (drawn before
  the table, so on an earlier page in one piece; what else precedes the table is cut or makes
  no box, and the running elements carried from earlier parts, first in the body, are laid
  out), the table at the part's first row, as one piece resumes it: mid-group after the rows
  before it in its group, or at its group if it is the group's first.
- A part after the first keeps the row before its first (`_cut`'s ``previous``) as a real row
  in its box tree, skipped by that skip stack, so never laid out. WeasyPrint computes collapsed
  borders on the table's grid when it builds the boxes (``build.wrap_table``,
  ``collapse_table_borders``), and on a page that resumes a table with no header
  ``table_layout`` takes the top edge from the grid line above the first row laid out (its
  skipped rows): the border that row shares with the row before it, not the table's own top
  border, as in one piece. Not laid out, that row sets no string, running element, bookmark or
  anchor; its counters are overwritten at the part's first row (below); its cells, the earlier
  part's, are no wider than the table's columns (`_preferred_widths`).
- Body counters and the quote depth are a state carried through ``build.element_to_box`` in
  document order. The part before hands over that state after its last row (`PartStart`), and
  this part puts it back before its first row: its rows number on as in one piece.
- Stand-ins (`_StandIn`, for documents whose selectors depend on siblings): ``build`` makes
  every element's boxes through its module name ``element_to_box``, which this module wraps; a
  stand-in gets none, as an element with ``display: none`` (which ``element_to_box`` drops
  before its counters), while the selector matcher still counts it among its siblings.
- An automatic table layout sizes the columns from every cell
  (``table_and_columns_preferred_widths``, ``table_cell_min_max_content_width``): while the
  part's table is sized, each of its cells reports at least the widest of its column in any
  part, so WeasyPrint's own algorithm gives the whole table's widths.
"""

from __future__ import annotations

import contextlib
import copy
import threading
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from typing import Any

import cssselect2
from weasyprint import DEFAULT_OPTIONS
from weasyprint.css.counters import CounterStyle
from weasyprint.document import Document, Page
from weasyprint.formatting_structure import build
from weasyprint.html import get_html_metadata
from weasyprint.layout import block as block_layout
from weasyprint.layout import initialize_page_maker, layout_fixed_boxes, preferred
from weasyprint.layout import table as table_layout
from weasyprint.layout.background import layout_backgrounds
from weasyprint.layout.page import (
    make_margin_boxes,
    remake_page,
    set_page_type_computed_styles,
)
from weasyprint.pdf.metadata import DocumentMetadata

from generate.engine.errors import PageLimitExceeded
from generate.engine.job import RenderJob
from generate.engine.part_job import (
    ASK_BREAKS,
    ASK_COLUMNS,
    ASK_PART,
    ASK_PLACEMENT,
    ASK_PLAN,
    ASK_START,
    IN_PASSES,
    TELL_END,
    BreakLayout,
    BreakProbe,
    Columns,
    PartDone,
    PartJob,
    PartLayout,
    PartMisaligned,
    PartOpening,
    PartSkipped,
    PartStart,
    Placement,
    TableLayout,
    TableProbe,
)
from generate.engine.pdf_finish import Finisher
from generate.engine.render import PreparedDocument

Ask = Callable[[Any], Any]


# -- the element tree of a part ------------------------------------------------------------------


def _body(root: ET.Element) -> ET.Element:
    body = root.find("body")
    if body is None:
        raise PartMisaligned
    return body


def _elements(parent: ET.Element) -> list[ET.Element]:
    return [child for child in parent if isinstance(child.tag, str)]


def table_rows(table: ET.Element) -> list[tuple[ET.Element, ET.Element]]:
    """(row group, row) for each body row of ``table``, in order (the HTML parser puts every row
    in a row group)."""
    return [
        (group, row)
        for group in _elements(table)
        if group.tag == "tbody"
        for row in _elements(group)
        if row.tag == "tr"
    ]


def longest_table(root: ET.Element) -> tuple[tuple[int, ...], ET.Element] | None:
    """The table with the most body rows among the body's elements and those of elements that
    wrap them (a ``<div>`` around the content, as in Markdown mode), not inside another
    table, and its path: its index among its parent's elements at each level below the body."""
    found: list[tuple[tuple[int, ...], ET.Element]] = []

    def look(parent: ET.Element, path: tuple[int, ...]) -> None:
        for index, element in enumerate(_elements(parent)):
            if element.tag == "table":
                found.append(((*path, index), element))
            elif len(path) < _WRAPPER_DEPTH:
                look(element, (*path, index))

    look(_body(root), ())
    if not found:
        return None
    return max(found, key=lambda item: len(table_rows(item[1])))


_WRAPPER_DEPTH = 3


# What `_cut` changed, to put back: (element, its children, its text, its tail) before.
Undo = list[tuple[ET.Element, list[ET.Element], str | None, str | None]]


def _changing(element: ET.Element, undo: Undo | None) -> None:
    if undo is not None:
        undo.append((element, list(element), element.text, element.tail))


def _restore(undo: Undo) -> None:
    """Undo `_cut`'s changes to the element tree."""
    for element, children, text, tail in reversed(undo):
        element[:] = children
        element.text, element.tail = text, tail
    undo.clear()


class _StandIn(ET.Element):
    """An element cut from a part that stays in its tree, so that the elements the part keeps
    have the same siblings as in the whole document (``:nth-child()``, ``:first-child``,
    ``+``, ``~``... match as in one piece): same tag and attributes (its ``id`` too: it makes no
    anchor, and stands where the element it replaces would be), no children. It makes no box
    (`_element_to_box`), as ``display: none``: no counters, strings, running elements or
    bookmarks. A space of text if the element had content, so that ``:empty`` matches as for
    the element."""


def _stand_in(element: ET.Element) -> ET.Element:
    stand_in = _StandIn(element.tag, dict(element.attrib))
    if len(element) or element.text:
        stand_in.text = " "
    return stand_in


def _keep_rows(
    table: ET.Element,
    first: int,
    end: int,
    undo: Undo | None = None,
    *,
    stand_ins: bool = False,
) -> list[ET.Element]:
    """Remove the table's body rows outside ``first`` .. ``end`` (inclusive), or replace them
    with stand-ins (`_StandIn`) if ``stand_ins``; the kept rows."""
    kept: list[ET.Element] = []
    index = 0
    for group in [e for e in _elements(table) if e.tag == "tbody"]:
        children = list(group)
        rows = [row for row in children if isinstance(row.tag, str) and row.tag == "tr"]
        keep = {id(row) for row in rows[max(0, first - index) : max(0, end + 1 - index)]}
        index += len(rows)
        _changing(group, undo)
        if stand_ins:
            group[:] = [
                child if child.tag != "tr" or id(child) in keep else _stand_in(child)
                for child in children
            ]
        else:
            group[:] = [child for child in children if child.tag != "tr" or id(child) in keep]
        kept.extend(row for row in rows if id(row) in keep)
    return kept


def _cut(
    root: ET.Element,
    path: tuple[int, ...],
    first: int,
    end: int,
    *,
    before: bool,
    after: bool,
    undo: Undo | None = None,
    stand_ins: bool = False,
    cut_children: bool = False,
    previous: bool = False,
) -> tuple[ET.Element, list[ET.Element]]:
    """Keep the table at ``path`` (with rows ``first``..``end``), what precedes it if
    ``before``, what follows it if ``after``, at every level; what is not kept is removed, or
    replaced with stand-ins (`_StandIn`) if ``stand_ins``. Returns (table, kept rows).
    ``cut_children``: the element at ``path`` is a container cut at page breaks (`break_layout`),
    and its element children ``first``..``end`` are kept instead of a table's rows.
    Stylesheets (``<style>``, ``<link>``) are always kept. What it changes is recorded in
    ``undo`` when given (`_restore`). ``previous``: row ``first - 1`` is kept too, first of the
    kept rows (a later part's, never laid out: see `_table_layout`)."""
    parent = _body(root)
    for level in path:
        elements = _elements(parent)
        target = elements[level]
        _changing(parent, undo)
        _changing(target, undo)
        if not before:
            parent.text = None
        keep: list[ET.Element] = []
        for position, element in enumerate(elements):
            if (
                position == level
                or (position < level and before)
                or (position > level and after)
                or element.tag in _SHEETS
            ):
                keep.append(element)
            elif stand_ins:
                keep.append(_stand_in(element))
        if keep != elements:
            parent[:] = keep
        if not after:
            target.tail = None
        parent = target
    if cut_children:
        return parent, _keep_children(parent, first, end, undo, stand_ins=stand_ins)
    table = parent
    if first > 0:
        _changing(table, undo)
        # The caption is drawn once, above the table's first row.
        children = list(table)
        if stand_ins:
            table[:] = [_stand_in(c) if c.tag == "caption" else c for c in children]
        else:
            table[:] = [c for c in children if c.tag != "caption"]
    start = first - 1 if previous and first > 0 else first
    return table, _keep_rows(table, start, end, undo, stand_ins=stand_ins)


_SHEETS = ("style", "link")


def _keep_children(
    container: ET.Element, first: int, end: int, undo: Undo | None, *, stand_ins: bool
) -> list[ET.Element]:
    """Keep ``container``'s element children ``first`` .. ``end`` (inclusive) and its
    stylesheets; the others are removed, or replaced with stand-ins if ``stand_ins``. The
    kept children."""
    elements = _elements(container)
    kept = elements[first : end + 1]
    keep = {id(element) for element in kept}
    _changing(container, undo)
    if first > 0:
        container.text = None  # the text before the first element is the first part's
    container[:] = [
        element if id(element) in keep or element.tag in _SHEETS else _stand_in(element)
        for element in elements
        if id(element) in keep or element.tag in _SHEETS or stand_ins
    ]
    return kept


# -- where the document breaks its pages for certain ---------------------------------------------

_NO_BOX = ("style", "link", "script", "meta", "title", "template")


def break_container(root: ET.Element) -> tuple[tuple[int, ...], ET.Element]:
    """The element whose children the document is cut between at page breaks, and its path
    (as `longest_table`'s): the body, or the element that holds all of its content (a
    ``<div>`` around it, as in Markdown mode)."""
    path: tuple[int, ...] = ()
    container = _body(root)
    while len(path) < _WRAPPER_DEPTH and not (container.text or "").strip():
        elements = _elements(container)
        boxed = [e for e in elements if e.tag not in _NO_BOX]
        if len(boxed) != 1 or (boxed[0].tail or "").strip():
            break
        path = (*path, elements.index(boxed[0]))
        container = boxed[0]
    return path, container


def break_layout(prepared: PreparedDocument) -> BreakLayout | None:
    """Where the document breaks its pages for certain (`BreakLayout`): read from the styles
    of its container's children alone, cascaded on a copy of the tree that keeps none of their
    content (stand-ins), which costs little whatever the document's length. None when the
    container is not a plain block (flex, grid, columns...), or holds fewer than two blocks.

    Only breaks between the container's own children count: a break deeper inside is not
    where the document can be cut without laying it out."""
    html = prepared.html
    root = html.etree_element
    path, container = break_container(root)
    elements = _elements(container)
    if len(elements) < 2:
        return None
    weights = tuple(_weight(element) for element in elements)
    undo: Undo = []
    try:
        _changing(container, undo)
        container[:] = [e if e.tag in _SHEETS else _stand_in(e) for e in elements]
        context, _ = _cascade(prepared)
        styles = [context.style_for(child) for child in container]
        chain = [*_ancestors(root, path), container]
        if not all(_plain_block(context.style_for(element)) for element in chain):
            return None
    finally:
        _restore(undo)
    in_flow = [_in_flow_block(style) for style in styles]
    breaks = tuple(
        index
        for index in range(1, len(styles))
        if in_flow[index - 1]
        and in_flow[index]
        and (styles[index]["break_before"] == "page" or styles[index - 1]["break_after"] == "page")
    )
    return BreakLayout(container=path, weights=weights, breaks=breaks)


def _ancestors(root: ET.Element, path: tuple[int, ...]) -> list[ET.Element]:
    found = [root, _body(root)]
    for level in path[:-1]:
        found.append(_elements(found[-1])[level])
    return found


def _weight(element: ET.Element) -> int:
    """A rough measure of how much ``element`` lays out: its text, and its elements."""
    return sum(len(e.text or "") + len(e.tail or "") + 40 for e in element.iter())


def _plain_block(style: Any) -> bool:
    """A block that lays its children out one after another, in one column."""
    return (
        tuple(style["display"][:2]) == ("block", "flow")
        and style["column_count"] == "auto"
        and style["column_width"] == "auto"
    )


def _in_flow_block(style: Any) -> bool:
    return (
        style["display"][0] == "block"
        and style["float"] == "none"
        and style["position"] in ("static", "relative")
    )


# -- the box tree: counters and running elements across parts ------------------------------------

_marks = threading.local()
_original_element_to_box = build.element_to_box


def _element_to_box(element: Any, *args: Any, **kwargs: Any) -> list[Any]:
    """``build.element_to_box``, which puts the counters back before a part's first row and
    keeps them after its last one (see the module docstring)."""
    if isinstance(element, _StandIn):
        return []  # as display: none, before its style or counters
    state = kwargs.get("state") if "state" in kwargs else (args[6] if len(args) > 6 else None)
    start: PartStart | None = getattr(_marks, "start", None)
    if start is not None and element is _marks.first and state is not None:
        quote_depth, counter_values, counter_scopes, _groups = state
        quote_depth[0] = start.quote_depth
        counter_values.clear()
        counter_values.update(copy.deepcopy(start.counters))
        counter_scopes[:] = copy.deepcopy(start.scopes)
    boxes = _original_element_to_box(element, *args, **kwargs)
    if element is getattr(_marks, "last", None) and state is not None:
        quote_depth, counter_values, counter_scopes, _groups = state
        _marks.end = (quote_depth[0], copy.deepcopy(counter_values), copy.deepcopy(counter_scopes))
    return boxes


build.element_to_box = _element_to_box


@contextlib.contextmanager
def _counter_marks(first: Any, last: Any, start: PartStart | None) -> Iterator[None]:
    _marks.first, _marks.last, _marks.start, _marks.end = first, last, start, None
    try:
        yield
    finally:
        _marks.first = _marks.last = _marks.start = None


def _running_name(box: Any) -> str | None:
    position = box.style["position"] if box.style is not None else None
    if isinstance(position, tuple) and position and position[0] == "running()":
        return str(position[1])
    return None


def _last_running(root_box: Any, stop: Any) -> dict[str, ET.Element]:
    """The last running element of each name before ``stop`` (an element), in document order."""
    found: dict[str, ET.Element] = {}

    def walk(box: Any) -> bool:
        if box.element is stop and stop is not None:
            return False
        name = _running_name(box)
        if name is not None and isinstance(box.element, ET.Element):
            found[name] = box.element
        return all(walk(child) for child in getattr(box, "children", ()))

    walk(root_box)
    return found


# -- the table's column widths across parts -------------------------------------------------------

_widths = threading.local()
_original_preferred_widths = preferred.table_and_columns_preferred_widths
_original_cell_widths = preferred.table_cell_min_max_content_width


def _column_widths(context: Any, table: Any) -> Columns:
    """The min- and max-content width of each column of ``table``'s cells that span one."""
    columns: dict[int, tuple[float, float]] = {}
    for group in table.children:
        for row in group.children:
            for cell in row.children:
                if cell.colspan != 1:
                    continue
                low, high = preferred.table_cell_min_max_content_width(context, cell)
                known = columns.get(cell.grid_x, (0.0, 0.0))
                columns[cell.grid_x] = (max(known[0], low), max(known[1], high))
    return [columns.get(i, (0.0, 0.0)) for i in range(max(columns, default=-1) + 1)]


def _cell_widths(context: Any, box: Any, outer: bool = True) -> tuple[float, float]:
    """``table_cell_min_max_content_width``: measured once per cell while the part's table is
    sized, and no narrower than the whole table's column (see `_preferred_widths`)."""
    cache = getattr(_widths, "cache", None)
    if cache is None or not outer:
        return _original_cell_widths(context, box, outer)
    if id(box) not in cache:
        cache[id(box)] = _original_cell_widths(context, box, outer)
    low, high = cache[id(box)]
    columns = getattr(_widths, "columns", None)
    if columns is not None and box.colspan == 1 and box.grid_x < len(columns):
        widest_low, widest_high = columns[box.grid_x]
        return max(low, widest_low), max(high, widest_high)
    return low, high


def _preferred_widths(context: Any, box: Any, outer: bool = True) -> Any:
    """``table_and_columns_preferred_widths``, which sizes the part's table from the whole
    table's columns: every cell of a column reports at least the column's widest cell of any
    part, so WeasyPrint's own algorithm (spans, percentages, the table's width) gives the
    widths the whole table gets."""
    table = box.get_wrapped_table()
    resolve = getattr(_widths, "resolve", None)
    if resolve is None or table.element is not _widths.element or table in context.tables:
        return _original_preferred_widths(context, box, outer)
    _widths.cache = {}
    try:
        _widths.columns = resolve(_column_widths(context, table))
        return _original_preferred_widths(context, box, outer)
    finally:
        _widths.cache = _widths.columns = None


preferred.table_cell_min_max_content_width = _cell_widths
preferred.table_and_columns_preferred_widths = _preferred_widths
table_layout.table_and_columns_preferred_widths = _preferred_widths


@contextlib.contextmanager
def _whole_table_columns(element: Any, resolve: Callable[[Columns], Columns]) -> Iterator[None]:
    _widths.element, _widths.resolve = element, resolve
    try:
        yield
    finally:
        _widths.element = _widths.resolve = None


def _table_box(root_box: Any, element: Any) -> Any:
    for box in root_box.descendants():
        if box.element is element and type(box).__name__ == "TableBox":
            return box
    raise PartMisaligned


# -- a later part's first page: a continuation page -----------------------------------------------

_continued = threading.local()
_original_table_layout = block_layout.table_layout
_original_block_container_layout = block_layout.block_container_layout


def _continued_box(context: Any, box: Any, skip_stack: Any) -> bool:
    """Whether ``box`` is the table or one of its ancestors, laid out from its start on the
    part's first page: in one piece, that page resumes them (they are continued)."""
    elements: dict[int, str] | None = getattr(_continued, "elements", None)
    return (
        elements is not None
        and skip_stack is None
        and context.current_page == _continued.page
        and elements.get(id(box.element)) == box.element_tag  # not its ::before, ::marker...
    )


def _block_container_layout(
    context: Any, box: Any, bottom_space: Any, skip_stack: Any, *args: Any, **kwargs: Any
) -> Any:
    """``block.block_container_layout``: on the part's first page, the table's ancestors (and
    its wrapper) resume as continued boxes do, at their first child but their own block-level
    ``::before``, which one piece draws on an earlier page (see the module docstring)."""
    if _continued_box(context, box, skip_stack):
        before = f"{box.element_tag}::before"
        skip = 0
        while skip < len(box.children) and box.children[skip].element_tag == before:
            skip += 1
        skip_stack = {skip: None}
    return _original_block_container_layout(context, box, bottom_space, skip_stack, *args, **kwargs)


def _table_layout(
    context: Any, table: Any, bottom_space: Any, skip_stack: Any, *args: Any, **kwargs: Any
) -> Any:
    """``block.table_layout``: on the part's first page, the table resumes at the part's first
    row, as a table continued on a page does: after the row before it, which the part keeps in
    its box tree only (see the module docstring)."""
    if _continued_box(context, table, skip_stack) and type(table).__name__ == "TableBox":
        groups = [
            index
            for index, group in enumerate(table.children)
            if not group.is_header and not group.is_footer
        ]
        first = getattr(_continued, "row", None)
        at = [
            (index, position)
            for index in groups
            for position, row in enumerate(table.children[index].children)
            if row.element is first
        ]
        if at:
            # Mid-group as one piece resumes there; at a group's first row, at the group.
            index, position = at[0]
            skip_stack = {index: {position: None} if position else None}
        elif groups:  # no row of its own: at its first group that has rows
            with_rows = [index for index in groups if table.children[index].children]
            skip_stack = {(with_rows or groups)[0]: None}
    return _original_table_layout(context, table, bottom_space, skip_stack, *args, **kwargs)


block_layout.block_container_layout = _block_container_layout
block_layout.table_layout = _table_layout


@contextlib.contextmanager
def _continued_table(
    root: ET.Element, table: ET.Element, offset: int, first_row: ET.Element | None
) -> Iterator[None]:
    """While a part after the first (``offset``: the pages before it) lays out its pages, its
    first page lays out ``table`` and its ancestors as continued, the table from ``first_row``
    (the part's first)."""
    if not offset:
        yield
        return
    parents = {id(child): parent for parent in root.iter() for child in parent}
    elements = {id(table): str(table.tag)}
    element = table
    while id(element) in parents:
        element = parents[id(element)]
        elements[id(element)] = str(element.tag)
    _continued.elements, _continued.page = elements, 2  # page-maker index 1 (see `_lay_out`)
    _continued.row = first_row
    try:
        yield
    finally:
        _continued.elements = _continued.row = None


# -- layout ---------------------------------------------------------------------------------------


def _lay_out(
    html: Any,
    root_box: Any,
    context: Any,
    *,
    offset: int,
    limit: int,
    on_page: Callable[[], None] | None,
    extra: int = 0,
    after_break: Any = None,
    until: Any = None,
) -> tuple[list[Any], int]:
    """Every page of the part's body, without margin boxes: ``layout_document``'s first half
    for a document whose pages before this part are ``offset``. Returns the pages and the
    page-maker index of the first (0, or 1 after the first part).

    ``after_break``: the part opens after a forced page break, at the start of this element's
    children (a container cut at page breaks): its first page is laid out as WeasyPrint lays
    out a page after such a break, resuming inside the container, whose ancestors and itself
    go on from an earlier page (no top margin, border or padding, as any block that goes on
    from a page before). ``until``: (container, element): stop after the page where
    ``element`` appears among the container's children (the next part's first element)."""
    initialize_page_maker(context, root_box)
    first = 0
    if offset:
        resume_at, next_page, right_page, page_state, remake_state = context.page_maker[0]
        page_state[1]["page"] = [offset]
        page_state[2][0].add("page")
        ltr = root_box.style["direction"] == "ltr"
        right_page = (offset % 2 == 0) == ltr  # page offset + 1: odd pages are right pages
        if after_break is not None:
            resume_at = _resume_inside(root_box, after_break)
            next_page = {**next_page, "break": "page"}
        item = (resume_at, next_page, right_page, page_state, remake_state)
        context.page_maker[:] = [item, copy.deepcopy(item)]
        first = 1
    pages: list[Any] = []
    for _loop in range(8):  # as layout_document: again while page-based content changes
        pages = _make_pages(
            context, root_box, html, pages, first, (offset, limit, extra), on_page, until
        )
        changed = any(state[-1]["content_changed"] for state in context.page_maker)
        if not changed:
            break
    return pages, first


def _make_pages(
    context: Any,
    root_box: Any,
    html: Any,
    previous: list[Any],
    first: int,
    cap: tuple[int, int, int],
    on_page: Callable[[], None] | None,
    until: tuple[Any, Any] | None = None,
) -> list[Any]:
    """``make_all_pages``, starting at page-maker index ``first``, with the page cap: ``cap`` is
    (pages before the part, the document's limit, pages the part lays out past its end);
    ``until``: see `_lay_out`."""
    offset, limit, extra = cap
    pages: list[Any] = []
    index = first
    context.rendered_notes = []
    while True:
        remake_state = context.page_maker[index][-1]
        done = len(pages)
        if not previous or remake_state["content_changed"] or remake_state["pages_wanted"]:
            remake_state.update(
                content_changed=False, pages_wanted=False, anchors=[], content_lookups=[]
            )
            page, resume_at = remake_page(index, context, root_box, html)
        else:
            page, resume_at = previous[done], context.page_maker[index + 1][0]
        pages.append(page)
        if offset + len(pages) > limit + extra:
            raise PageLimitExceeded(offset + len(pages), limit)
        if on_page is not None:
            on_page()
        index += 1
        if until is not None and until[1] in _opening(page, until[0], every=True):
            del context.page_maker[index + 1 :]
            return pages
        if resume_at is None and not context.reported_footnotes:
            del context.page_maker[index + 1 :]
            context.broken_out_of_flow.clear()
            return pages


def _collect_strings(context: Any, pages: list[Any], first: int) -> None:
    """The named strings set on each page, and one bookmark per element: what
    ``layout_document`` does once pagination is done."""
    seen: dict[str, list[Any]] = {"": [], "::before": [], "::after": []}
    for i, page in enumerate(pages):
        for child in page.descendants():
            if child.bookmark_label:
                tag = child.element_tag
                pseudo = next((p for p in ("::before", "::after") if tag.endswith(p)), "")
                if child.element in seen[pseudo]:
                    child.bookmark_label = ""
                else:
                    seen[pseudo].append(child.element)
            string_sets = child.string_set
            if string_sets and string_sets != "none":
                for name, text in string_sets:
                    context.string_set[name][first + i + 1].append(text)


def _finish_pages(
    context: Any,
    pages: list[Any],
    first: int,
    placement: Placement,
    carried: set[int],
    *,
    html: Any = None,
    unplaced: bool = False,
) -> Iterator[Any]:
    """``layout_document``'s end: each page's margin boxes, knowing the document's page count
    and the earlier parts' strings and running elements (on the virtual page 1). ``unplaced``:
    the part was laid out not knowing the pages before it, as if one came before it: its
    ``page`` counter is moved on to the pages before it that it now knows, and its pages' sides
    set (``html``: the document, for their margin boxes' styles)."""
    if first:
        for name, value in placement.strings.items():
            context.string_set[name][1] = [value]
        # Running elements carried from the earlier parts were laid out on this part's first
        # page; they belong to the virtual page before it.
        for stored in context.running_elements.values():
            own = stored.get(first + 1, [])
            carried_boxes = [b for b in own if id(b.element) in carried]
            if carried_boxes:
                stored[1] = carried_boxes
                own = [b for b in own if b not in carried_boxes]
                if own:
                    stored[first + 1] = own
                else:
                    del stored[first + 1]
    # A part cut at a page break was laid out as if one page came before it (`_render_part`).
    shift = placement.pages_before - first if unplaced else 0
    if unplaced:
        # Its pages' sides follow from the pages before it, now known. Left and right pages
        # differ in their margin boxes only (`parts.one_piece_reason`), drawn below.
        for number, page in enumerate(pages, placement.pages_before + 1):
            right = (number % 2 == 1) == (page.style["direction"] == "ltr")
            side = "right" if right else "left"
            if page.page_type.side != side:
                page.page_type = page.page_type._replace(side=side)
                set_page_type_computed_styles(page.page_type, html, context.style_for)
    for page_maker_state in context.page_maker:
        counters = page_maker_state[3][1]
        counters["pages"] = [placement.total_pages]
        if shift:
            counters["page"] = [value + shift for value in counters["page"]]
    for i, page in enumerate(pages):
        root, footnote_area, note_area = page.children
        root.children = [
            *layout_fixed_boxes(context, pages[:i], page),
            *root.children,
            *layout_fixed_boxes(context, pages[i + 1 :], page),
        ]
        context.current_page = first + i + 1
        state = context.page_maker[context.current_page][3]
        children = [root]
        if footnote_area.children:
            children.append(footnote_area)
        if note_area.children:
            children.append(note_area)
        children.extend(make_margin_boxes(context, page, state))
        page.children = tuple(children)
        layout_backgrounds(page, context.get_image_from_uri)
        yield page


def _strings_set(context: Any, first: int, count: int) -> dict[str, str]:
    """The last value of each named string set on the part's own pages."""
    last: dict[str, str] = {}
    for name, by_page in context.string_set.items():
        for page in range(first + count, first, -1):
            if by_page.get(page):
                last[name] = by_page[page][-1]
                break
    return last


def _own_box(box: Any, element: Any) -> bool:
    """Whether ``box`` is ``element``'s own box (not its ``::before`` or ``::after``)."""
    return box.element is element and not box.element_tag.endswith(("::before", "::after"))


def _resume_inside(root_box: Any, container: Any) -> dict[int, Any]:
    """The skip stack (WeasyPrint's ``resume_at``) of a page that goes on inside
    ``container``'s box at its first child: every box from the root down to it is continued."""
    path: list[int] = []
    found: list[Any] = []

    def find(box: Any) -> bool:
        if _own_box(box, container):
            found.append(box)
            return True
        for index, child in enumerate(getattr(box, "children", ())):
            if find(child):
                path.append(index)
                return True
        return False

    if not find(root_box):
        raise PartMisaligned
    # The container's own ``::before`` (its box, or the anonymous block around it) was drawn
    # on the document's first page of it, in an earlier part: skipped. Its element children's
    # boxes follow: the running elements carried, then the part's first element.
    children = found[0].children
    first = next((i for i, child in enumerate(children) if child.element is not container), 0)
    # An inline ``::before`` takes the running elements carried after it into its anonymous
    # block's line (``build.inline_in_block`` keeps out-of-flow boxes with the inlines before
    # them): skipped with it, they would be lost. Such a document renders in one piece.
    if any(_holds_other_elements(child, container) for child in children[:first]):
        raise PartMisaligned
    stack: dict[int, Any] = {first: None}
    for index in path:  # innermost first
        stack = {index: stack}
    return stack


def _holds_other_elements(box: Any, container: Any) -> bool:
    """Whether ``box`` or a box inside it is another element's than ``container``'s."""
    if box.element is not None and box.element is not container:
        return True
    return any(_holds_other_elements(child, container) for child in getattr(box, "children", ()))


def _opening(page: Any, container: Any, *, every: bool = False) -> list[Any]:
    """The elements of ``container``'s child boxes on ``page``, in order: the first only,
    unless ``every``."""
    boxes = [page]
    while boxes:
        box = boxes.pop(0)
        if _own_box(box, container):
            children = [child.element for child in box.children if child.element is not None]
            return children if every else children[:1]
        boxes.extend(getattr(box, "children", ()))
    return []


def _first_row_on(page: Any, rows: dict[int, int]) -> int | None:
    """The index of the first table row laid out on ``page`` (rows: id(element) -> index)."""
    for box in page.descendants():
        index = rows.get(id(box.element))
        if index is not None and box.element_tag == "tr":
            return index
    return None


# -- entry points (called in a render worker) ----------------------------------------------------


def probe_table(
    probe: TableProbe,
    prepare: Callable[[RenderJob], PreparedDocument],
    *,
    on_page: Callable[[], None] | None = None,
) -> TableLayout | None:
    """Lay out the document up to its longest table and that table's first ``probe.rows`` rows;
    where the table's pages start. None when the body has no table."""
    return _probe(prepare(probe.job), probe.rows, probe.job.max_pages, on_page, probe.keep_siblings)


def probe_breaks(
    probe: BreakProbe, prepare: Callable[[RenderJob], PreparedDocument]
) -> BreakLayout | None:
    """Where the document breaks its pages for certain (`break_layout`)."""
    return break_layout(prepare(probe.job))


def open_part(
    opening: PartOpening,
    prepare: Callable[[RenderJob], PreparedDocument],
    ask: Ask,
    *,
    on_page: Callable[[], None] | None = None,
) -> PartDone | TableLayout | BreakLayout | PartSkipped | None:
    """Parse the document, then (the first part) probe it and ask for the plan, or (the others)
    ask for the part; render the part given on the parsed document (see `PartOpening`)."""
    prepared = prepare(opening.job)
    part: PartJob | None
    if opening.index == 0 and opening.breaks:
        breaks = break_layout(prepared)
        answer = ask((ASK_BREAKS, breaks))
        if answer == IN_PASSES:
            return breaks
        if answer is not None:
            return _render_part(answer, prepared, ask, on_page=on_page)
    if opening.index == 0:
        layout = _probe(
            prepared, opening.probe_rows, opening.job.max_pages, on_page, opening.keep_siblings
        )
        part = ask((ASK_PLAN, layout))
        if part is None:
            return layout
    else:
        part = ask((ASK_PART, opening.index))
        if part is None:
            return PartSkipped()
    return _render_part(part, prepared, ask, on_page=on_page)


def _probe(
    prepared: PreparedDocument,
    probe_rows: int,
    limit: int,
    on_page: Callable[[], None] | None,
    stand_ins: bool,
) -> TableLayout | None:
    """`probe_table` on a parsed document, which it leaves as it found it."""
    html = prepared.html
    found = longest_table(html.etree_element)
    if found is None:
        return None
    path, table = found
    rows = len(table_rows(table))
    undo: Undo = []
    try:
        _, kept = _cut(
            html.etree_element,
            path,
            0,
            probe_rows - 1,
            before=True,
            after=False,
            undo=undo,
            stand_ins=stand_ins,
        )
        index_of = {id(row): i for i, row in enumerate(kept)}
        context, root_box = _build(prepared, None, None, None)
        pages, _first = _lay_out(html, root_box, context, offset=0, limit=limit, on_page=on_page)
    finally:
        _restore(undo)
    starts = []
    first_page = None
    for number, page in enumerate(pages):
        row = _first_row_on(page, index_of)
        if row is None:
            continue
        if first_page is None:
            first_page = number
        starts.append((number, row))
    if first_page is None:
        return None
    return TableLayout(table=path, rows=rows, first_page=first_page, page_starts=tuple(starts))


def render_part(
    part: PartJob,
    prepare: Callable[[RenderJob], PreparedDocument],
    ask: Ask,
    *,
    on_page: Callable[[], None] | None = None,
) -> PartDone:
    """Lay out (and unless ``count_only``, write) one part; see `PartJob`."""
    return _render_part(part, prepare(part.job), ask, on_page=on_page)


def _render_part(
    part: PartJob,
    prepared: PreparedDocument,
    ask: Ask,
    *,
    on_page: Callable[[], None] | None = None,
) -> PartDone:
    html = prepared.html
    root = html.etree_element
    # A later part keeps the row before its first in its box tree, never laid out: its first
    # page's top edge is then the border that row shares with the next in the table's
    # collapsed border grid, as in one piece (see the module docstring).
    previous = part.index > 0 and not part.breaks and part.first_row > 0 and part.offset > 0
    table, kept = _cut(
        root,
        part.table,
        part.first_row,
        part.end_row,
        before=part.index == 0,
        after=part.last,
        stand_ins=part.keep_siblings,
        cut_children=part.breaks,
        previous=previous,
    )
    if previous:
        kept = kept[1:]
    own_rows = kept if part.last else kept[:-1]
    probe_row = None if part.last else kept[-1]
    start = part.start
    if start is None and part.index > 0 and part.chain:
        start = ask((ASK_START, part.index))
    carried: set[int] = set()
    if start is not None and part.index > 0:
        # A part cut at a page break resumes inside its container (`_resume_inside`): the
        # running elements carried go first in it, where that page's layout meets them.
        host = table if part.breaks else _body(root)
        for position, element in enumerate(start.running.values()):
            clone = copy.deepcopy(element)
            clone.tail = None
            host.insert(position, clone)
            carried.add(id(clone))
    first_row = own_rows[0] if own_rows else None
    last_row = own_rows[-1] if own_rows and not part.last else None
    context, root_box = _build(prepared, first_row, last_row, start)
    end: PartStart | None = None
    if not part.last:
        quote_depth, counters, scopes = _marks_end()
        end = PartStart(
            counters=counters,
            scopes=scopes,
            quote_depth=quote_depth,
            running=_last_running(root_box, probe_row),
        )
        if part.chain and part.start is None:
            ask((TELL_END, part.index, end))
    if part.breaks:
        pages, first = _break_pages(part, html, root_box, context, table, probe_row, on_page)
        return _finish_part(part, prepared, ask, context, (pages, first), end, carried)
    if part.widths_only:
        columns = _column_widths(context, _table_box(root_box, table))
        layout = PartLayout(index=part.index, pages=0, strings={})
        return PartDone(layout=layout, pdf=None, end=end, cpu_seconds=0.0, columns=columns)
    given = part.columns

    def resolve(own: Columns) -> Columns:
        return given if given is not None else ask((ASK_COLUMNS, part.index, own))

    with (
        _whole_table_columns(table, resolve),
        _continued_table(root, table, part.offset, own_rows[0] if own_rows else None),
    ):
        pages, first = _lay_out(
            html,
            root_box,
            context,
            offset=part.offset,
            limit=part.job.max_pages,
            on_page=on_page,
            extra=0 if part.last else 1,  # the next part's first row, on a page of its own
        )
    if part.index > 0:
        # Every page of the part opens with the row the plan says (a part that does not start
        # as a continuation page of the whole document would not).
        index_of = {id(row): part.first_row + i for i, row in enumerate(own_rows)}
        for number, page in enumerate(pages[: len(pages) - (probe_row is not None)]):
            row = _first_row_on(page, index_of)
            if row is not None and row != part.first_row + number * part.step:
                raise PartMisaligned
    if probe_row is not None:
        # The next part's first row must open this part's last page, and that page only.
        index_of = {id(probe_row): 0}
        if (
            part.pages is None
            or len(pages) != part.pages + 1
            or _first_row_on(pages[-1], index_of) != 0
        ):
            raise PartMisaligned
        pages.pop()
    elif part.pages is not None and len(pages) != part.pages:
        raise PartMisaligned
    return _finish_part(part, prepared, ask, context, (pages, first), end, carried)


def _break_pages(
    part: PartJob,
    html: Any,
    root_box: Any,
    context: Any,
    container: ET.Element,
    probe: ET.Element | None,
    on_page: Callable[[], None] | None,
) -> tuple[list[Any], int]:
    """The pages of a part cut at page breaks (`PartJob.breaks`). A part after the first is
    laid out as pages that follow a forced break, as if one page came before it: the pages
    before it are known only once every part is laid out (`_finish_pages` moves its page
    counter on). A part that is not the last lays out the next part's first element up to its
    first page, which that element must open (the break is where the whole document breaks
    its page); that page is dropped."""
    pages, first = _lay_out(
        html,
        root_box,
        context,
        offset=1 if part.index else 0,
        limit=part.job.max_pages,
        on_page=on_page,
        extra=0 if probe is None else 1,
        after_break=container if part.index else None,
        until=(container, probe) if probe is not None else None,
    )
    if probe is not None:
        if len(pages) < 2 or _opening(pages[-1], container) != [probe]:
            raise PartMisaligned
        if probe in _opening(pages[-2], container, every=True):
            raise PartMisaligned
        pages.pop()
    return pages, first


def _finish_part(
    part: PartJob,
    prepared: PreparedDocument,
    ask: Ask,
    context: Any,
    laid_out: tuple[list[Any], int],
    end: PartStart | None,
    carried: set[int],
) -> PartDone:
    """A part laid out: its strings and page count, then (unless ``count_only``) its margin
    boxes, once its `Placement` is known, and its PDF."""
    pages, first = laid_out
    html = prepared.html
    _collect_strings(context, pages, first)
    layout = PartLayout(
        index=part.index, pages=len(pages), strings=_strings_set(context, first, len(pages))
    )
    if part.count_only:
        return PartDone(layout=layout, pdf=None, end=end, cpu_seconds=0.0)
    placement = part.placement or ask((ASK_PLACEMENT, layout))
    unplaced = part.breaks and part.index > 0
    finished = list(
        _finish_pages(context, pages, first, placement, carried, html=html, unplaced=unplaced)
    )
    written = [Page(page_box) for page_box in finished]
    # The joined PDF's outline is built from every part's bookmarks (`parts.join_pdfs`): the
    # part's PDF has none of its own, which would put its headings at the outline's top level.
    bookmarks = tuple(
        (level, label, number, x * _PT_PER_PX, (page.height - y) * _PT_PER_PX, state)
        for number, page in enumerate(written)
        for level, label, (x, y), state in page.bookmarks
    )
    for page in written:
        page.bookmarks = []
    rendering = Document(
        written,
        DocumentMetadata(**get_html_metadata(html)),
        html.url_fetcher,
        prepared.font_config,
        {},
        None,
    )
    rendering._html = html
    pdf = rendering.write_pdf(finisher=Finisher(part.job.watermark))
    return PartDone(layout=layout, pdf=pdf, end=end, cpu_seconds=0.0, bookmarks=bookmarks)


_PT_PER_PX = 0.75  # PDF points per CSS pixel, as WeasyPrint writes them (at zoom 1)


def _marks_end() -> tuple[int, dict[str, list[int]], list[set[str]]]:
    end = getattr(_marks, "end", None)
    if end is None:
        raise PartMisaligned
    return end


def _build(
    prepared: PreparedDocument, first_row: Any, last_row: Any, start: PartStart | None
) -> tuple[Any, Any]:
    """``Document._render`` up to the box tree: the cascade and the formatting structure."""
    context, html = _cascade(prepared)
    with _counter_marks(first_row, last_row, start):
        root_box = build.build_formatting_structure(
            html.etree_element,
            context.style_for,
            context.get_image_from_uri,
            html.base_url,
            context.target_collector,
            context.counter_style,
            context.footnotes,
        )
        end = getattr(_marks, "end", None)
    _marks.end = end
    return context, root_box


def _cascade(prepared: PreparedDocument) -> tuple[Any, Any]:
    """The layout context of the (cut) tree as it is now: its styles cascaded."""
    html = prepared.html
    # The selector matcher's view of the tree caches children: made again for the cut tree.
    html.wrapper_element = cssselect2.ElementWrapper.from_html_root(
        html.etree_element, content_language=None
    )
    options = {**DEFAULT_OPTIONS, **prepared.options}
    context = Document._build_layout_context(
        html, prepared.font_config, CounterStyle(), {}, options
    )
    return context, html
