"""One part of a long document, laid out by WeasyPrint as that stretch of the whole document
would be (`generate.engine.parts` plans the parts and joins them; these are its entry points in a
render worker). A part cuts the document's element tree (`part_tree`), builds its box tree
(`part_boxes`), lays out its pages (`part_pages`) and writes them; what that relies on in
WeasyPrint, and why each is enough, is in `weasyprint_seam`."""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

from generate.engine.job import RenderJob
from generate.engine.part_boxes import (
    build_boxes,
    cascade,
    column_widths,
    continued_table,
    last_running,
    marks_end,
    table_box,
    whole_table_columns,
)
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
    TableLayout,
    TableProbe,
)
from generate.engine.part_pages import (
    collect_strings,
    finish_pages,
    first_row_on,
    lay_out,
    opening_elements,
    strings_set,
)
from generate.engine.part_tree import (
    SHEETS,
    Undo,
    ancestors_of,
    body_of,
    break_container,
    child_elements,
    cut_tree,
    element_weight,
    in_flow_block,
    longest_table,
    plain_block,
    record_change,
    restore,
    stand_in,
    table_rows,
)
from generate.engine.pdf_finish import Finisher
from generate.engine.render import PreparedDocument
from generate.engine.weasyprint_seam import Document, DocumentMetadata, Page, get_html_metadata

Ask = Callable[[Any], Any]


# -- entry points (called in a render worker) ----------------------------------------------------


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
    elements = child_elements(container)
    if len(elements) < 2:
        return None
    weights = tuple(element_weight(element) for element in elements)
    undo: Undo = []
    try:
        record_change(container, undo)
        container[:] = [e if e.tag in SHEETS else stand_in(e) for e in elements]
        context, _ = cascade(prepared)
        styles = [context.style_for(child) for child in container]
        chain = [*ancestors_of(root, path), container]
        if not all(plain_block(context.style_for(element)) for element in chain):
            return None
    finally:
        restore(undo)
    in_flow = [in_flow_block(style) for style in styles]
    breaks = tuple(
        index
        for index in range(1, len(styles))
        if in_flow[index - 1]
        and in_flow[index]
        and (styles[index]["break_before"] == "page" or styles[index - 1]["break_after"] == "page")
    )
    return BreakLayout(container=path, weights=weights, breaks=breaks)


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
        _, kept = cut_tree(
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
        context, root_box = build_boxes(prepared, None, None, None)
        pages, _first = lay_out(html, root_box, context, offset=0, limit=limit, on_page=on_page)
    finally:
        restore(undo)
    starts = []
    first_page = None
    for number, page in enumerate(pages):
        row = first_row_on(page, index_of)
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
    table, kept = cut_tree(
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
        # A part cut at a page break resumes inside its container (`part_pages.lay_out`): the
        # running elements carried go first in it, where that page's layout meets them.
        host = table if part.breaks else body_of(root)
        for position, element in enumerate(start.running.values()):
            clone = copy.deepcopy(element)
            clone.tail = None
            host.insert(position, clone)
            carried.add(id(clone))
    first_row = own_rows[0] if own_rows else None
    last_row = own_rows[-1] if own_rows and not part.last else None
    context, root_box = build_boxes(prepared, first_row, last_row, start)
    end: PartStart | None = None
    if not part.last:
        quote_depth, counters, scopes = marks_end()
        end = PartStart(
            counters=counters,
            scopes=scopes,
            quote_depth=quote_depth,
            running=last_running(root_box, probe_row),
        )
        if part.chain and part.start is None:
            ask((TELL_END, part.index, end))
    if part.breaks:
        pages, first = _break_pages(part, html, root_box, context, table, probe_row, on_page)
        return _finish_part(part, prepared, ask, context, (pages, first), end, carried)
    if part.widths_only:
        columns = column_widths(context, table_box(root_box, table))
        layout = PartLayout(index=part.index, pages=0, strings={})
        return PartDone(layout=layout, pdf=None, end=end, cpu_seconds=0.0, columns=columns)
    given = part.columns

    def resolve(own: Columns) -> Columns:
        return given if given is not None else ask((ASK_COLUMNS, part.index, own))

    with (
        whole_table_columns(table, resolve),
        continued_table(root, table, part.offset, own_rows[0] if own_rows else None),
    ):
        pages, first = lay_out(
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
            row = first_row_on(page, index_of)
            if row is not None and row != part.first_row + number * part.step:
                raise PartMisaligned
    if probe_row is not None:
        # The next part's first row must open this part's last page, and that page only.
        index_of = {id(probe_row): 0}
        if (
            part.pages is None
            or len(pages) != part.pages + 1
            or first_row_on(pages[-1], index_of) != 0
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
    before it are known only once every part is laid out (`finish_pages` moves its page
    counter on). A part that is not the last lays out the next part's first element up to its
    first page, which that element must open (the break is where the whole document breaks
    its page); that page is dropped."""
    pages, first = lay_out(
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
        if len(pages) < 2 or opening_elements(pages[-1], container) != [probe]:
            raise PartMisaligned
        if probe in opening_elements(pages[-2], container, every=True):
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
    collect_strings(context, pages, first)
    layout = PartLayout(
        index=part.index, pages=len(pages), strings=strings_set(context, first, len(pages))
    )
    if part.count_only:
        return PartDone(layout=layout, pdf=None, end=end, cpu_seconds=0.0)
    placement = part.placement or ask((ASK_PLACEMENT, layout))
    unplaced = part.breaks and part.index > 0
    finished = list(
        finish_pages(context, pages, first, placement, carried, html=html, unplaced=unplaced)
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
