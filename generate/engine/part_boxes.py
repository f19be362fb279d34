"""The box tree of one part of a long document: WeasyPrint's formatting structure built for the
part's cut of the element tree, with the hooks that make it the stretch of the whole document's
(counters and quotes carried between parts, running elements carried, the table's columns sized
as the whole table's, and a later part's first page laid out as a continuation page). Why each
hook is enough is in `weasyprint_seam`'s docstring."""

from __future__ import annotations

import contextlib
import copy
import threading
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from typing import Any

from generate.engine.part_job import Columns, PartMisaligned, PartStart
from generate.engine.part_tree import StandIn
from generate.engine.render import PreparedDocument
from generate.engine.weasyprint_seam import (
    DEFAULT_OPTIONS,
    CounterStyle,
    Document,
    block_layout,
    build,
    cssselect2,
    preferred,
    table_layout,
)

# -- the box tree: counters and running elements across parts ------------------------------------

_marks = threading.local()
_original_element_to_box = build.element_to_box


def _element_to_box(element: Any, *args: Any, **kwargs: Any) -> list[Any]:
    """``build.element_to_box``, which puts the counters back before a part's first row and
    keeps them after its last one (see the module docstring)."""
    if isinstance(element, StandIn):
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


def last_running(root_box: Any, stop: Any) -> dict[str, ET.Element]:
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


def column_widths(context: Any, table: Any) -> Columns:
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
        _widths.columns = resolve(column_widths(context, table))
        return _original_preferred_widths(context, box, outer)
    finally:
        _widths.cache = _widths.columns = None


preferred.table_cell_min_max_content_width = _cell_widths
preferred.table_and_columns_preferred_widths = _preferred_widths
table_layout.table_and_columns_preferred_widths = _preferred_widths


@contextlib.contextmanager
def whole_table_columns(element: Any, resolve: Callable[[Columns], Columns]) -> Iterator[None]:
    _widths.element, _widths.resolve = element, resolve
    try:
        yield
    finally:
        _widths.element = _widths.resolve = None


def table_box(root_box: Any, element: Any) -> Any:
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
def continued_table(
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
    _continued.elements, _continued.page = elements, 2  # page-maker index 1 (see `lay_out`)
    _continued.row = first_row
    try:
        yield
    finally:
        _continued.elements = _continued.row = None


# -- the box tree of a part ---------------------------------------------------------------------


def build_boxes(
    prepared: PreparedDocument, first_row: Any, last_row: Any, start: PartStart | None
) -> tuple[Any, Any]:
    """``Document._render`` up to the box tree: the cascade and the formatting structure."""
    context, html = cascade(prepared)
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


def cascade(prepared: PreparedDocument) -> tuple[Any, Any]:
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


def marks_end() -> tuple[int, dict[str, list[int]], list[set[str]]]:
    end = getattr(_marks, "end", None)
    if end is None:
        raise PartMisaligned
    return end
