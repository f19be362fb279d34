"""The pages of one part of a long document: ``layout_document``'s two halves, run by the part
itself (every page of its body first, then each page's margin boxes once the document's page
count and the earlier parts' strings are known). What this relies on in WeasyPrint, and why it is
enough, is in `weasyprint_seam`'s docstring."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

from generate.engine.errors import PageLimitExceeded
from generate.engine.part_job import PartMisaligned, Placement
from generate.engine.weasyprint_seam import (
    initialize_page_maker,
    layout_backgrounds,
    layout_fixed_boxes,
    make_margin_boxes,
    remake_page,
    set_page_type_computed_styles,
)

# -- layout ---------------------------------------------------------------------------------------


def lay_out(
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
    ``until``: see `lay_out`."""
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
        if until is not None and until[1] in opening_elements(page, until[0], every=True):
            del context.page_maker[index + 1 :]
            return pages
        if resume_at is None and not context.reported_footnotes:
            del context.page_maker[index + 1 :]
            context.broken_out_of_flow.clear()
            return pages


def collect_strings(context: Any, pages: list[Any], first: int) -> None:
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


def finish_pages(
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
    # A part cut at a page break was laid out as if one page came before it (`part_layout`).
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


def strings_set(context: Any, first: int, count: int) -> dict[str, str]:
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


def opening_elements(page: Any, container: Any, *, every: bool = False) -> list[Any]:
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


def first_row_on(page: Any, rows: dict[int, int]) -> int | None:
    """The index of the first table row laid out on ``page`` (rows: id(element) -> index)."""
    for box in page.descendants():
        index = rows.get(id(box.element))
        if index is not None and box.element_tag == "tr":
            return index
    return None
