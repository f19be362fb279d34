"""The seam between long documents in parts and WeasyPrint: every WeasyPrint internal that
laying out one part of a document relies on is imported here, and only here, and what it is
relied on for is below. The part's modules take them from this one: `part_tree` cuts the
element tree, `part_boxes` builds its box tree (its hooks are the patches below), `part_pages`
lays out its pages and `part_layout` runs a part. Pinned to WeasyPrint 70 (requirements.txt),
and tests/generate/test_parts.py compares parted renders with one-piece renders page by page, so
an upgrade that moves what this relies on fails there.

What a part relies on, and why each is enough:

- ``Document._build_layout_context``, ``build_formatting_structure``, ``remake_page`` and
  ``make_margin_boxes`` are the steps of ``Document._render`` / ``layout_document``: a part runs
  them itself (`part_boxes.build_boxes`, `part_pages.lay_out`, `part_pages.finish_pages`) on its cut
  of the element tree.
- Pages first, margin boxes after. ``layout_document`` lays out every page, then draws each page's
  margin boxes from the page's saved state (``context.page_maker``: the ``page`` and ``pages``
  counters) and from the named strings and running elements stored by page number. A part lays out
  its body knowing the pages before it (planned: the table's pages break regularly, checked after
  layout), then asks for the document's page count and the strings the earlier parts set before it
  draws the margin boxes. In one pass nothing is laid out twice.
- A part after the first starts at page-maker index 1, as page 2 of a document whose "page 1" is the
  earlier parts: WeasyPrint's continuation rules hold (no ``@page :first``, margins truncated at an
  unforced break), the ``page`` counter starts at the pages before it, the first page is a right or
  left page by its real number, and the strings and running elements of earlier parts are stored
  under that virtual page 1, where "the last value set on an earlier page" is looked up.
- A part cut at a forced page break (`PartJob.breaks`) starts its first page-maker item with
  ``next_page["break"] = "page"`` (``remake_page`` sets ``context.forced_break`` from it, so margins
  at the top of the page are kept, as after the break in one piece) and with a ``resume_at`` skip
  stack that goes on inside its container at child 0 (`part_pages`): ``block_container_layout`` then
  removes the top decoration of every box on the way, as for a page that starts inside them in one
  piece. Child 0 is the part's first element or a running element carried before it: nothing is
  skipped. Its page counter is moved on once the pages before it are known: margin boxes read it
  from ``context.page_maker``'s saved states.
- A page that starts mid-table is laid out with a skip stack: ``block_container_layout`` and
  ``table_layout`` then remove the continued boxes' top decoration (border, padding, margin: the
  default ``box-decoration-break: slice``; a table keeps its own when it repeats a header), and
  ``table_layout`` adds no top border-spacing. A part after the first lays out its first page from
  the start of its own (cut) tree, with no skip stack: on that page only, the table, its wrapper and
  its ancestors are laid out as continued (`part_boxes.continued_table`), through the module names
  ``block.py`` calls them by (``block_container_layout``, ``table_layout``). The skip stack given
  says "continued" and skips nothing else the part lays out: the ancestors resume at their first
  child but their own block-level ``::before`` (drawn before the table, so on an earlier page in one
  piece; what else precedes the table is cut or makes no box, and the running elements carried from
  earlier parts, first in the body, are laid out), the table at the part's first row, as one piece
  resumes it: mid-group after the rows before it in its group, or at its group if it is the group's
  first.
- A part after the first keeps the row before its first (`part_tree.cut_tree`'s ``previous``) as a
  real row in its box tree, skipped by that skip stack, so never laid out. WeasyPrint computes
  collapsed borders on the table's grid when it builds the boxes (``build.wrap_table``,
  ``collapse_table_borders``), and on a page that resumes a table with no header ``table_layout``
  takes the top edge from the grid line above the first row laid out (its skipped rows): the border
  that row shares with the row before it, not the table's own top border, as in one piece. Not laid
  out, that row sets no string, running element, bookmark or anchor; its counters are overwritten at
  the part's first row (below); its cells, the earlier part's, are no wider than the table's columns
  (`part_boxes`).
- Body counters and the quote depth are a state carried through ``build.element_to_box`` in document
  order. The part before hands over that state after its last row (`PartStart`), and this part puts
  it back before its first row: its rows number on as in one piece.
- Stand-ins (`part_tree.StandIn`, for documents whose selectors depend on siblings): ``build`` makes
  every element's boxes through its module name ``element_to_box``, which this module wraps; a
  stand-in gets none, as an element with ``display: none`` (which ``element_to_box`` drops before
  its counters), while the selector matcher still counts it among its siblings.
- An automatic table layout sizes the columns from every cell
  (``table_and_columns_preferred_widths``, ``table_cell_min_max_content_width``): while the part's
  table is sized, each of its cells reports at least the widest of its column in any part, so
  WeasyPrint's own algorithm gives the whole table's widths.
"""

from __future__ import annotations

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

__all__ = [
    "DEFAULT_OPTIONS",
    "CounterStyle",
    "Document",
    "DocumentMetadata",
    "Page",
    "block_layout",
    "build",
    "cssselect2",
    "get_html_metadata",
    "initialize_page_maker",
    "layout_backgrounds",
    "layout_fixed_boxes",
    "make_margin_boxes",
    "preferred",
    "remake_page",
    "set_page_type_computed_styles",
    "table_layout",
]
