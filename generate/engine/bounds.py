"""How many HTML elements and table cells a document has, counted before it goes to a render
worker, and refused over the caller's limits.

Every element costs the renderer about a millisecond of CPU time and 10-16 KB of memory, held
until the PDF is written (WeasyPrint 70; a 50-column table: 0.95 ms and 16 KB a cell). Neither
the page cap nor the CPU-time cap sees a wide table coming: 2,000 rows of 50 cells are only 75
pages, whose CPU budget (a base plus an allowance a page) outlasts the 1.6 GB they need, so the
worker died of its memory limit after two and a half minutes. Counted here, in the text, such a
document is refused at once, before any worker parses it.

The count reads the text the way an HTML parser starts an element: ``<`` then a letter. What
cannot hold elements is left out first: comments, CDATA sections, and the text of the elements
whose content is never markup (``<script>``, ``<style>``, ``<textarea>``...). A tag written
inside an attribute value counts, so the count may be a little above the parser's, never below
it. A cell is a ``<td>`` or ``<th>`` start tag, in any table. The scan is linear: about 0.3 s for
10 MB of tags, and nothing at all for a document with fewer ``<`` than the lowest limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from generate.engine.errors import ElementLimitExceeded, TableCellLimitExceeded


@dataclass(frozen=True)
class ElementLimits:
    """The most table cells and elements one document may have; 0 for no limit."""

    table_cells: int = 0
    elements: int = 0


@dataclass(frozen=True)
class ElementCounts:
    elements: int
    table_cells: int


# Elements whose content is text, never markup, in an HTML parser (scripting off).
_RAW_TEXT = "script|style|textarea|title|xmp|iframe|noembed|noframes"
# What holds no elements; an element of _RAW_TEXT keeps its start tag (it is an element).
_NOT_MARKUP = re.compile(
    r"<!--.*?(?:-->|\Z)"
    r"|<!\[CDATA\[.*?(?:\]\]>|\Z)"
    rf"|(<({_RAW_TEXT})(?=[\s/>])[^>]*>).*?(?=</\2[\s/>]|\Z)",
    re.S | re.I,
)
_START_TAG = re.compile(r"<[a-zA-Z]")
_CELL = re.compile(r"<t[dh][\s/>]", re.I)


def count_elements(html: str) -> ElementCounts:
    """The elements and table cells ``html`` has (an upper bound: see the module docstring)."""
    markup = _NOT_MARKUP.sub(r"\1", html)
    # subn counts in C without keeping a match object or string per element.
    return ElementCounts(
        elements=_START_TAG.subn("", markup)[1], table_cells=_CELL.subn("", markup)[1]
    )


def check_element_limits(html: str, limits: ElementLimits) -> None:
    """Raise TableCellLimitExceeded or ElementLimitExceeded when ``html`` is over ``limits``."""
    active = [limit for limit in (limits.table_cells, limits.elements) if limit > 0]
    # No element starts without a "<": a document with fewer is within every limit.
    if not active or html.count("<") <= min(active):
        return
    counts = count_elements(html)
    if 0 < limits.table_cells < counts.table_cells:
        raise TableCellLimitExceeded(counts.table_cells, limits.table_cells)
    if 0 < limits.elements < counts.elements:
        raise ElementLimitExceeded(counts.elements, limits.elements)
