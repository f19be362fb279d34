"""How a part of a long table starts, so that it renders as the one-piece render: a Markdown
table, the body's top padding on the first page only, a part that would not start as a
continuation page, the probe leaving the document as it found it, selectors that depend on
siblings, and a table continued with its borders, frame and generated content."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from generate.engine.part_job import ASK_PLAN, PartOpening, TableLayout
from generate.engine.part_layout import open_part
from generate.engine.part_rules import _sibling_selectors, one_piece_reason
from generate.engine.render import prepare_document, render_pdf
from tests.generate.conftest import page_texts
from tests.generate.test_engine import job_for
from tests.generate.test_parts import (
    CSS,
    ONE_PASS,
    TWO_PASSES,
    assert_parted_as_one_piece,
    long_table,
    page_pixels,
    parted,
)
from tests.generate.test_parts import document as document  # noqa: F401 - the fixture
from tests.generate.test_parts import joined as joined  # noqa: F401 - the fixture
from tests.generate.test_parts import part_counts as part_counts  # noqa: F401 - the fixture
from tests.generate.test_parts import pool as pool  # noqa: F401 - the fixture


def test_a_long_markdown_table_renders_in_parts_as_in_one_piece(pool, part_counts) -> None:
    # Markdown mode wraps the content in a <div>: the table is cut inside it.
    rows = [[str(i), f"item {i}", f"{i * 3.5:.2f}"] for i in range(700)]
    job = job_for(
        {
            "data": [
                {"label": "Report"},
                {"table": {"headers": ["No", "Item", "Value"], "rows": rows}},
            ]
        },
        max_pages=1000,
    )

    pdf = parted(pool, job, ONE_PASS)

    assert part_counts == [2]
    assert page_texts(pdf) == page_texts(render_pdf(job).pdf)


def test_the_bodys_top_padding_is_on_the_first_page_only(pool, part_counts, joined) -> None:
    # In one piece the body's top padding is on its first page only: a later part lays its
    # first page out as a page the body goes on to, without it.
    job = long_table(330, css=CSS + "body { padding-top: 15mm }")

    pdf = parted(pool, job, ONE_PASS)

    assert part_counts == [2]
    assert joined == [2]
    assert page_pixels(pdf) == page_pixels(render_pdf(job).pdf)


def test_a_part_that_would_not_start_as_a_continuation_renders_in_one_piece(
    pool, part_counts, joined
) -> None:
    # The body's inline ::before text shares an anonymous block with what follows it: a later
    # part cannot tell it apart, draws it, and holds fewer rows on its first page than the
    # plan says. Its check sends the document back to one piece.
    job = long_table(330, css=CSS + "body::before { content: 'Read me' }")

    pdf = parted(pool, job, ONE_PASS)

    assert part_counts == [2]
    assert joined == []
    assert page_texts(pdf) == page_texts(render_pdf(job).pdf)


@pytest.mark.parametrize("keep_siblings", [False, True], ids=["removed", "stand-ins"])
def test_the_probe_leaves_the_parsed_document_as_it_found_it(document, keep_siblings) -> None:
    # The first part probes the document it parsed, then renders its own rows from it: the
    # probe's cut (the rows after its first ones, what follows the table) must be put back.
    prepared = prepare_document(document)
    before = ET.tostring(prepared.html.etree_element)
    asked: list[object] = []

    def ask(question: tuple[object, ...]) -> None:  # no plan: the probe's layout comes back
        asked.append(question[0])

    opening = PartOpening(job=document, index=0, probe_rows=60, keep_siblings=keep_siblings)
    layout = open_part(opening, lambda job: prepared, ask)

    assert isinstance(layout, TableLayout)
    assert layout.rows == 330
    assert len(layout.page_starts) > 2
    assert asked == [ASK_PLAN]
    assert ET.tostring(prepared.html.etree_element) == before


@pytest.mark.parametrize(
    ("css", "siblings"),
    [
        ("tbody tr:nth-child(even) td { background: #eee }", True),
        ("tr:not(:first-child) td { border-top: 1px solid }", True),
        ("h2 + table { margin-top: 0 }", True),
        ("tr ~ tr { color: red }", True),
        ("@media print { tr:last-child td { border: 0 } }", True),
        ("p, li:first-child { margin: 0 }", True),
        ("td:first-child, th:last-child { font-weight: bold }", False),
        ("td + td { border-left: 1px solid }", False),
        ("table.docgen-table.cols tr > * + * { border-left: 1px solid }", False),
        ("tr > .x:first-child, td + * ~ .y { color: red }", False),
        ("table > * + * { color: red }", True),
        ("td:nth-child(2n+1) { color: red }", False),
        ("a[title~=x] { color: red }", False),
        ("h2::before { content: 'a + b ~ c' }", False),
    ],
)
def test_selectors_that_depend_on_siblings_are_found(css, siblings) -> None:
    assert _sibling_selectors(css) is siblings


# Rows striped, the table after the list (``+``), the table's position among its siblings
# (``:last-child``): a part that removed the rows and elements outside it would match them
# differently. No running element (those send such a document to one piece).
SIBLINGS = """
tbody tr:nth-child(even) td { background: #999 }
ol + table td.name { color: #c00 }
table:last-child td { text-decoration: underline }
li:last-child { color: #0a0 }
"""
SIBLINGS_CSS = CSS.replace(".runner { position: running(runner) }", "") + SIBLINGS


@pytest.mark.parametrize("part_settings", [ONE_PASS, TWO_PASSES], ids=["one-pass", "two-passes"])
def test_selectors_that_depend_on_siblings_match_in_parts_as_in_one_piece(
    pool, part_settings, part_counts, joined
) -> None:
    # The rows and elements outside a part stay in it as empty stand-ins that make no boxes:
    # every kept element has the siblings it has in one piece.
    job = long_table(331, css=SIBLINGS_CSS)

    assert one_piece_reason(job, part_settings) is None
    pdf = parted(pool, job, part_settings)
    whole = render_pdf(job).pdf

    assert_parted_as_one_piece(pdf, whole, part_settings, part_counts, joined)


# Separated borders (the default border-spacing, 2px), a table border and padding, cell borders.
SEPARATE_CSS = (
    CSS.replace("border-collapse: collapse", "border: 1px solid #000; padding: 2px")
    + "td { border: 1px solid #000 }"
)
# A frame around the table with padding and a border: sliced at page breaks (the default
# box-decoration-break), so a continuation page has no top padding or border.
FRAME_CSS = SEPARATE_CSS + ".frame { padding: 3mm 2mm; border: 1px solid #000 }"
# Collapsed borders, the table's thicker than its cells': on a page that starts mid-table with no
# header, the table's top edge is the collapsed border between the page's first row and the row
# before it (WeasyPrint's border grid), not the table's own top border.
COLLAPSED_CSS = (
    CSS.replace("border-collapse: collapse", "border-collapse: collapse; border: 3px solid #000")
    + "td { border: 1px solid #888 }"
)
# Generated content before the table, in the body and the frame: on the first page only.
BEFORE_CSS = FRAME_CSS + (
    "body::before, .frame::before { content: 'Read me first'; display: block; height: 1mm }"
)


@pytest.mark.parametrize("part_settings", [ONE_PASS, TWO_PASSES], ids=["one-pass", "two-passes"])
@pytest.mark.parametrize(
    ("css", "head", "frame"),
    [
        (SEPARATE_CSS, True, ""),
        (SEPARATE_CSS, False, ""),
        (FRAME_CSS, True, "frame"),
        (FRAME_CSS, False, "frame"),
        (BEFORE_CSS, True, "frame"),
        (COLLAPSED_CSS, True, ""),
        (COLLAPSED_CSS, False, ""),
    ],
    ids=[
        "separate",
        "separate-no-header",
        "framed",
        "framed-no-header",
        "framed-before",
        "collapsed",
        "collapsed-no-header",
    ],
)
def test_a_later_part_starts_its_table_as_a_continuation_page_does(
    pool, part_settings, css, head, frame, part_counts, joined
) -> None:
    # On a page that starts mid-table, one piece draws no top border-spacing, and no top border
    # or padding of the table (unless it repeats a header) or of the elements around it: a later
    # part's first page must not either, or its table sits lower than in one piece. With
    # collapsed borders, its top edge is the border it shares with the row before it.
    job = long_table(330, css=css, head=head, frame=frame)

    pdf = parted(pool, job, part_settings)
    whole = render_pdf(job).pdf

    assert_parted_as_one_piece(pdf, whole, part_settings, part_counts, joined)
