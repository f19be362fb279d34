"""The element tree of one part of a long document: the stretch of the whole document's tree
that the part lays out (its table's rows, or a container's children between two forced page
breaks), cut in place and put back after (`restore`), with stand-ins where selectors need the
siblings cut away. Plain ElementTree: no WeasyPrint (see `weasyprint_seam` for what the part's
layout relies on)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from generate.engine.part_job import PartMisaligned

# -- the element tree of a part ------------------------------------------------------------------


def body_of(root: ET.Element) -> ET.Element:
    body = root.find("body")
    if body is None:
        raise PartMisaligned
    return body


def child_elements(parent: ET.Element) -> list[ET.Element]:
    return [child for child in parent if isinstance(child.tag, str)]


def table_rows(table: ET.Element) -> list[tuple[ET.Element, ET.Element]]:
    """(row group, row) for each body row of ``table``, in order (the HTML parser puts every row
    in a row group)."""
    return [
        (group, row)
        for group in child_elements(table)
        if group.tag == "tbody"
        for row in child_elements(group)
        if row.tag == "tr"
    ]


def longest_table(root: ET.Element) -> tuple[tuple[int, ...], ET.Element] | None:
    """The table with the most body rows among the body's elements and those of elements that
    wrap them (a ``<div>`` around the content, as in Markdown mode), not inside another
    table, and its path: its index among its parent's elements at each level below the body."""
    found: list[tuple[tuple[int, ...], ET.Element]] = []

    def look(parent: ET.Element, path: tuple[int, ...]) -> None:
        for index, element in enumerate(child_elements(parent)):
            if element.tag == "table":
                found.append(((*path, index), element))
            elif len(path) < _WRAPPER_DEPTH:
                look(element, (*path, index))

    look(body_of(root), ())
    if not found:
        return None
    return max(found, key=lambda item: len(table_rows(item[1])))


_WRAPPER_DEPTH = 3


# What `cut_tree` changed, to put back: (element, its children, its text, its tail) before.
Undo = list[tuple[ET.Element, list[ET.Element], str | None, str | None]]


def record_change(element: ET.Element, undo: Undo | None) -> None:
    if undo is not None:
        undo.append((element, list(element), element.text, element.tail))


def restore(undo: Undo) -> None:
    """Undo `cut_tree`'s changes to the element tree."""
    for element, children, text, tail in reversed(undo):
        element[:] = children
        element.text, element.tail = text, tail
    undo.clear()


class StandIn(ET.Element):
    """An element cut from a part that stays in its tree, so that the elements the part keeps
    have the same siblings as in the whole document (``:nth-child()``, ``:first-child``,
    ``+``, ``~``... match as in one piece): same tag and attributes (its ``id`` too: it makes no
    anchor, and stands where the element it replaces would be), no children. It makes no box
    (`part_boxes`), as ``display: none``: no counters, strings, running elements or
    bookmarks. A space of text if the element had content, so that ``:empty`` matches as for
    the element."""


def stand_in(element: ET.Element) -> ET.Element:
    made = StandIn(element.tag, dict(element.attrib))
    if len(element) or element.text:
        made.text = " "
    return made


def _keep_rows(
    table: ET.Element,
    first: int,
    end: int,
    undo: Undo | None = None,
    *,
    stand_ins: bool = False,
) -> list[ET.Element]:
    """Remove the table's body rows outside ``first`` .. ``end`` (inclusive), or replace them
    with stand-ins (`StandIn`) if ``stand_ins``; the kept rows."""
    kept: list[ET.Element] = []
    index = 0
    for group in [e for e in child_elements(table) if e.tag == "tbody"]:
        children = list(group)
        rows = [row for row in children if isinstance(row.tag, str) and row.tag == "tr"]
        keep = {id(row) for row in rows[max(0, first - index) : max(0, end + 1 - index)]}
        index += len(rows)
        record_change(group, undo)
        if stand_ins:
            group[:] = [
                child if child.tag != "tr" or id(child) in keep else stand_in(child)
                for child in children
            ]
        else:
            group[:] = [child for child in children if child.tag != "tr" or id(child) in keep]
        kept.extend(row for row in rows if id(row) in keep)
    return kept


def cut_tree(
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
    replaced with stand-ins (`StandIn`) if ``stand_ins``. Returns (table, kept rows).
    ``cut_children``: the element at ``path`` is a container cut at page breaks (`break_layout`),
    and its element children ``first``..``end`` are kept instead of a table's rows.
    Stylesheets (``<style>``, ``<link>``) are always kept. What it changes is recorded in
    ``undo`` when given (`restore`). ``previous``: row ``first - 1`` is kept too, first of the
    kept rows (a later part's, never laid out: see `part_boxes`)."""
    parent = body_of(root)
    for level in path:
        elements = child_elements(parent)
        target = elements[level]
        record_change(parent, undo)
        record_change(target, undo)
        if not before:
            parent.text = None
        keep: list[ET.Element] = []
        for position, element in enumerate(elements):
            if (
                position == level
                or (position < level and before)
                or (position > level and after)
                or element.tag in SHEETS
            ):
                keep.append(element)
            elif stand_ins:
                keep.append(stand_in(element))
        if keep != elements:
            parent[:] = keep
        if not after:
            target.tail = None
        parent = target
    if cut_children:
        return parent, _keep_children(parent, first, end, undo, stand_ins=stand_ins)
    table = parent
    if first > 0:
        record_change(table, undo)
        # The caption is drawn once, above the table's first row.
        children = list(table)
        if stand_ins:
            table[:] = [stand_in(c) if c.tag == "caption" else c for c in children]
        else:
            table[:] = [c for c in children if c.tag != "caption"]
    start = first - 1 if previous and first > 0 else first
    return table, _keep_rows(table, start, end, undo, stand_ins=stand_ins)


SHEETS = ("style", "link")


def _keep_children(
    container: ET.Element, first: int, end: int, undo: Undo | None, *, stand_ins: bool
) -> list[ET.Element]:
    """Keep ``container``'s element children ``first`` .. ``end`` (inclusive) and its
    stylesheets; the others are removed, or replaced with stand-ins if ``stand_ins``. The
    kept children."""
    elements = child_elements(container)
    kept = elements[first : end + 1]
    keep = {id(element) for element in kept}
    record_change(container, undo)
    if first > 0:
        container.text = None  # the text before the first element is the first part's
    container[:] = [
        element if id(element) in keep or element.tag in SHEETS else stand_in(element)
        for element in elements
        if id(element) in keep or element.tag in SHEETS or stand_ins
    ]
    return kept


# -- where the document breaks its pages for certain ---------------------------------------------

_NO_BOX = ("style", "link", "script", "meta", "title", "template")


def break_container(root: ET.Element) -> tuple[tuple[int, ...], ET.Element]:
    """The element whose children the document is cut between at page breaks, and its path
    (as `longest_table`'s): the body, or the element that holds all of its content (a
    ``<div>`` around it, as in Markdown mode)."""
    path: tuple[int, ...] = ()
    container = body_of(root)
    while len(path) < _WRAPPER_DEPTH and not (container.text or "").strip():
        elements = child_elements(container)
        boxed = [e for e in elements if e.tag not in _NO_BOX]
        if len(boxed) != 1 or (boxed[0].tail or "").strip():
            break
        path = (*path, elements.index(boxed[0]))
        container = boxed[0]
    return path, container


def ancestors_of(root: ET.Element, path: tuple[int, ...]) -> list[ET.Element]:
    found = [root, body_of(root)]
    for level in path[:-1]:
        found.append(child_elements(found[-1])[level])
    return found


def element_weight(element: ET.Element) -> int:
    """A rough measure of how much ``element`` lays out: its text, and its elements."""
    return sum(len(e.text or "") + len(e.tail or "") + 40 for e in element.iter())


def plain_block(style: Any) -> bool:
    """A block that lays its children out one after another, in one column."""
    return (
        tuple(style["display"][:2]) == ("block", "flow")
        and style["column_count"] == "auto"
        and style["column_width"] == "auto"
    )


def in_flow_block(style: Any) -> bool:
    return (
        style["display"][0] == "block"
        and style["float"] == "none"
        and style["position"] in ("static", "relative")
    )
