"""A long document with no long table renders in parts cut at its forced page breaks, and the
joined PDF is the one-piece PDF: page by page text (margin boxes included), sizes and pixels.

A part after the first does not know the pages before it until every part is laid out: its
page counter is moved on before its margin boxes are drawn. Its first page goes on inside the
elements around it (no top margin, border or padding of theirs), as in one piece.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from generate.engine import PartSettings, PoolSettings, RenderJob, RenderPool, parts
from generate.engine.part_job import BreakLayout, PartJob
from generate.engine.part_layout import break_layout
from generate.engine.part_plan import plan_breaks
from generate.engine.part_rules import cuts_at_breaks, one_piece_reason
from generate.engine.render import prepare_document, render_pdf
from tests.fixtures import HTML
from tests.generate.conftest import page_sizes, page_texts
from tests.generate.test_engine import job_for
from tests.generate.test_parts import (
    ONE_PASS,
    PAGE_CSS,
    assert_same_pixels,
    outline,
    parted,
)
from tests.generate.test_parts import pool as pool  # noqa: F401 - the fixture
from tests.generate.test_render_limits import warm
from tests.pdfsound import assert_sound

CSS = (
    PAGE_CSS
    + """
body { counter-reset: chapter para; font-size: 9pt }
section { break-before: page; padding: 3mm; border: 1px solid #000; margin: 1mm 0 }
.report { padding: 2mm 3mm; border: 1px solid #444 }
.report::before { content: "Confidential"; display: block }
h2 { counter-increment: chapter; font-size: 10pt; margin: 2mm 0; string-set: section content() }
h2::before { content: "Chapter " counter(chapter) ". " }
p { counter-increment: para; margin: 1mm 0 }
p::before { content: counter(para) ". " }
q { quotes: "<<" ">>" "<" ">" }
.runner { position: running(runner) }
"""
)


# Enough chapters for 37 A6 pages: long enough for many parts of three pages, short enough that
# each test renders the document twice in seconds.
CHAPTERS = 12


def sections(count: int, *, css: str = CSS, wrap: bool = False, flat: bool = False) -> RenderJob:
    """``count`` chapters of uneven length (1 to 4 pages), each opening a page; a chapter's
    runner element is only in every third chapter, so later parts carry one from before.
    ``flat``: no ``<section>`` around a chapter, its heading opens the page."""
    if flat:
        css = css.replace("section { break-before: page;", "h2 { break-before: page; } x {")
    chapters = "".join(
        ("" if flat else "<section>")
        + f"<h2>Part {i}</h2>"
        + (f'<div class="runner">Runner {i}</div>' if i % 3 == 0 else "")
        + "".join(
            f"<p>Paragraph {i}.{j}: <q>lorem <q>ipsum</q></q> dolor sit amet, consectetur"
            " adipiscing elit, sed do eiusmod tempor incididunt.</p>"
            for j in range(8 + (i * 7) % 25)
        )
        + ("" if flat else "</section>")
        for i in range(count)
    )
    content = f"<h1>Report</h1><p>Introduction.</p>{chapters}<p>The end.</p>"
    if wrap:
        content = f'<div class="report">{content}</div>'
    html = f"<title>The report</title>{content}"
    return job_for({"type": "html", "data": {"html": html, "css": css}}, max_pages=1000)


@pytest.fixture
def break_parts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many parts each render cut at page breaks planned, and how many it joined."""
    counts: list[int] = []
    planned, joined = parts.break_part_jobs, parts.joined_pdf

    def plan_spy(*args: object) -> list[PartJob]:
        jobs = planned(*args)  # type: ignore[arg-type]
        counts.append(len(jobs))
        return jobs

    def join_spy(job: RenderJob, done: list, spent: float) -> object:
        counts.append(len(done))
        return joined(job, done, spent)

    monkeypatch.setattr(parts, "break_part_jobs", plan_spy)
    monkeypatch.setattr(parts, "joined_pdf", join_spy)
    return counts


def assert_same_pages(pdf: bytes, whole: bytes) -> None:
    expected = page_texts(whole)
    assert len(expected) > 20
    assert page_texts(pdf) == expected
    assert page_sizes(pdf) == page_sizes(whole)
    # The outline: the chapters' headings under the report's, on their pages, at their places.
    bookmarks = outline(whole)
    assert bookmarks[0][:2] == (0, "Report")
    assert any(depth == 1 and title == f"Part {CHAPTERS - 1}" for depth, title, _, _ in bookmarks)
    assert outline(pdf) == bookmarks
    assert_same_pixels(pdf, whole)


@pytest.mark.parametrize(
    ("wrap", "flat"),
    [(False, False), (True, False), (False, True)],
    ids=["in-body", "in-a-wrapper", "headings-open-pages"],
)
def test_a_document_cut_at_its_page_breaks_is_the_one_piece_render(
    pool,
    break_parts,
    wrap,
    flat,
) -> None:
    job = sections(CHAPTERS, wrap=wrap, flat=flat)

    assert one_piece_reason(job, ONE_PASS) is None
    pdf = parted(pool, job, ONE_PASS)
    whole = render_pdf(job).pdf

    assert break_parts == [2, 2]  # planned in two parts, and rendered in them
    assert_same_pages(pdf, whole)
    assert "Page 1 of" in page_texts(pdf)[0]
    assert "COVER" in page_texts(pdf)[0]
    assert_sound(pdf)


def test_a_runner_carried_past_an_inline_before_of_the_wrapper_renders_in_one_piece(
    pool, break_parts
) -> None:
    # The wrapper's inline ::before and the running element the later part carries share one
    # anonymous line, which a continued page skips with the ::before: the part cannot keep the
    # runner, and the document renders in one piece, as it is.
    css = CSS.replace('content: "Confidential"; display: block', 'content: "Confidential"')
    job = sections(CHAPTERS, css=css, wrap=True)

    pdf = parted(pool, job, ONE_PASS)

    assert break_parts == [2]  # planned in two parts, then rendered in one piece
    whole = render_pdf(job).pdf
    assert page_texts(pdf) == page_texts(whole)
    assert any("Runner 6" in text for text in page_texts(pdf)[20:23])


# Parts of about three pages: more parts than workers.
IN_PASSES = PartSettings(min_bytes=1000, part_pages=3, probe_rows=60)


@pytest.mark.parametrize("workers", [2, 1])
def test_a_long_document_in_more_parts_than_workers_renders_in_passes(break_parts, workers) -> None:
    # Counted first, then written knowing the pages, strings and counters before each part:
    # no worker holds more than one part, with two workers or with one.
    job = sections(CHAPTERS)
    render_pool = RenderPool(PoolSettings(workers=workers, nice=0))
    try:
        warm(render_pool, workers)
        pdf = parted(render_pool, job, IN_PASSES)
    finally:
        render_pool.close()

    assert break_parts[0] > 2 * workers
    assert break_parts[-1] == break_parts[0]  # rendered in those parts
    assert_same_pages(pdf, render_pdf(job).pdf)


def test_legacy_page_break_properties_cut_too(pool, break_parts) -> None:
    css = CSS.replace("section { break-before: page;", "section { page-break-before: always;")
    job = sections(CHAPTERS, css=css)

    pdf = parted(pool, job, ONE_PASS)

    assert break_parts == [2, 2]
    assert page_texts(pdf) == page_texts(render_pdf(job).pdf)


def test_where_the_document_breaks_for_certain() -> None:
    css = """
    .a { break-before: page } .b { break-after: page } .float { float: left }
    .deep span { break-before: page }
    """
    html = (
        "<p>0</p><p class='a'>1 opens a page</p><p class='b'>2</p><p>3 opens a page</p>"
        "<p class='a float'>4 floats</p><div class='deep'><p class='a'>5 inside</p></div>"
        "<p class='a' style='position: absolute'>6 out of flow</p><p>7</p>"
    )
    job = job_for({"type": "html", "data": {"html": html, "css": css}})

    prepared = prepare_document(job)
    before = ET.tostring(prepared.html.etree_element)

    layout = break_layout(prepared)

    assert layout is not None
    assert layout.container == ()
    assert layout.breaks == (1, 3)  # not the float, a deeper element's, or an absolute one's
    assert len(layout.weights) == 8
    # The parsed document is as it was: its children stood in for themselves while cascaded.
    assert ET.tostring(prepared.html.etree_element) == before


def test_a_container_laid_out_otherwise_than_in_a_column_is_not_cut() -> None:
    html = "<div style='columns: 2'><p>1</p><p style='break-before: page'>2</p></div>"
    job = job_for({"type": "html", "data": {"html": html}})

    assert break_layout(prepare_document(job)) is None


def test_the_plan_cuts_at_breaks_near_equal_shares() -> None:
    layout = BreakLayout(container=(), weights=(10, 100, 100, 100, 100, 10), breaks=(1, 2, 3, 4))

    assert plan_breaks(layout, parts_wanted=2, part_pages=100) == [(0, 3), (3, 6)]
    assert plan_breaks(layout, parts_wanted=3, part_pages=100) == [(0, 2), (2, 4), (4, 6)]
    # A cover page before one long chapter: no cut gives parts near their share.
    cover = BreakLayout(container=(), weights=(50, 5000), breaks=(1,))
    assert plan_breaks(cover, parts_wanted=2, part_pages=100) is None
    # Longer than the workers' parts hold (about part_pages pages each: 3,000 a page): more
    # parts, none longer than twice part_pages.
    chapters = BreakLayout(container=(), weights=(3000,) * 10, breaks=tuple(range(1, 10)))
    assert plan_breaks(chapters, parts_wanted=2, part_pages=2) == [
        (0, 2),
        (2, 4),
        (4, 6),
        (6, 8),
        (8, 10),
    ]
    one_long = BreakLayout(container=(), weights=(3000, 3000, 20000, 3000), breaks=(1, 2, 3))
    assert plan_breaks(one_long, parts_wanted=2, part_pages=2) is None
    # No break at all.
    assert plan_breaks(BreakLayout((), (10, 10), ()), parts_wanted=2, part_pages=100) is None


@pytest.mark.parametrize(
    ("css", "cuts"),
    [
        ("section { break-before: page }", True),
        ("h1 { page-break-after: always }", True),
        ("p { margin: 0 }", False),  # no forced break
        ("section { break-before: page } @page :left { @bottom-left { content: 'L' } }", True),
        ("section { break-before: page; page: chapter }", False),  # named pages
    ],
)
def test_which_documents_may_be_cut_at_their_breaks(css, cuts) -> None:
    job = job_for({"type": "html", "data": {"html": "<section>x</section>", "css": css}})

    assert cuts_at_breaks(job) is cuts


def test_a_long_document_without_table_or_break_renders_in_one_piece() -> None:
    job = sections(30, css=CSS.replace("break-before: page;", ""))
    job = job_for(
        {"type": "html", "data": {"html": job.html.replace("<table", ""), "css": ""}},
        max_pages=1000,
    )

    assert one_piece_reason(job, PartSettings(min_bytes=1000)) == "no table or page break"


# -- real-world documents -------------------------------------------------------------------------

# Every HTML sample of ../shared/fixtures (with its stylesheet, when it links one), allowed to
# go in parts at any length and two pages a part: whether it goes in parts, and cut where, or
# renders in one piece, its PDF must be the one-piece PDF.
ANY_LENGTH = PartSettings(min_bytes=0, part_pages=2, probe_rows=60)
SAMPLES = sorted(HTML.glob("*/*.html"))


@pytest.mark.parametrize("path", SAMPLES, ids=[path.name for path in SAMPLES])
def test_real_world_documents_render_as_in_one_piece(pool, path) -> None:
    html = path.read_text()
    css = "\n".join(
        sheet.read_text() for sheet in path.parent.glob("*.css") if "pre-nesting" not in sheet.name
    )
    job = job_for({"type": "html", "data": {"html": html, "css": css}}, max_pages=1000)

    pdf = parted(pool, job, ANY_LENGTH)
    whole = render_pdf(job).pdf

    assert page_texts(pdf) == page_texts(whole)
    assert page_sizes(pdf) == page_sizes(whole)
    assert_same_pixels(pdf, whole)
