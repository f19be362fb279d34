"""A long table renders in parts on several render workers, and the joined PDF is the PDF the
document gives in one piece: page by page text (margin boxes included), page count and sizes.

These comparisons also guard `generate.engine.weasyprint_seam` (WeasyPrint's internals): an
upgrade that moves them makes a parted render differ from the one-piece render here.

This module: the comparison and its helpers (other modules import them), what carries across
parts (counters, strings, running elements, headers, bookmarks, the page cap) and which
documents go in parts at all. The workers' share is in test_parts_workers.py, how a part
starts (continuation pages, sibling selectors, the probe) in test_parts_continuation.py."""

from __future__ import annotations

from collections.abc import Iterator

import pypdfium2 as pdfium
import pytest

from generate.engine import (
    PageLimitExceeded,
    PartSettings,
    PoolSettings,
    RenderJob,
    RenderPool,
    parts,
)
from generate.engine.part_job import PartJob, TableLayout
from generate.engine.part_plan import plan_cuts
from generate.engine.part_rules import one_piece_reason
from generate.engine.render import render_pdf
from tests.generate.conftest import page_sizes, page_texts, reader
from tests.generate.test_engine import job_for
from tests.generate.test_render_limits import warm
from tests.pdfsound import assert_sound

# Two parts on two workers (one pass), or four parts on two workers (counted, then written).
ONE_PASS = PartSettings(min_bytes=1000, part_pages=100, probe_rows=60)
TWO_PASSES = PartSettings(min_bytes=1000, part_pages=3, probe_rows=60)

# Margin boxes with the page count, a named string, a running element, and first, left and right
# pages: what a part must get right from the parts before and after it.
PAGE_CSS = """
@page { size: A6; margin: 18mm 10mm;
  @bottom-center { content: "Page " counter(page) " of " counter(pages) }
  @top-left { content: "Section: " string(section) }
  @top-right { content: element(runner) } }
@page :first { @top-center { content: "COVER" } }
@page :left { @bottom-left { content: "LEFT" } }
@page :right { @bottom-right { content: "RIGHT" } }
"""

CSS = (
    PAGE_CSS
    + """
body { counter-reset: chapter; font-size: 9pt }
h2 { counter-increment: chapter; font-size: 10pt; margin: 2mm 0 }
h2::before { content: "Chapter " counter(chapter) ". " }
table { counter-reset: row; border-collapse: collapse }
tbody tr { counter-increment: row }
td.n::before { content: "#" counter(row) " " }
td { padding: 0; height: 5mm; white-space: nowrap }
tr.group td.name { string-set: section content() }
.runner { position: running(runner) }
"""
)


def long_table(
    rows: int, *, css: str = CSS, tail: str = "", head: bool = True, frame: str = ""
) -> RenderJob:
    """A document with a table of ``rows`` body rows (a header row unless not ``head``), inside
    a ``<div class="{frame}">`` if ``frame``."""
    body = "".join(
        f'<tr class="group"><td class="n"></td><td class="name">Group {i // 40}</td>'
        f'<td><span class="runner">Runner {i // 40}</span>{i}</td></tr>'
        if i % 40 == 0
        else f'<tr><td class="n"></td><td class="name">Item {i}</td><td>{i}</td></tr>'
        for i in range(rows)
    )
    thead = "<thead><tr><th>No</th><th>Name</th><th>Value</th></tr></thead>" if head else ""
    table = f"<table><caption>Figures</caption>{thead}<tbody>{body}</tbody></table>"
    if frame:
        table = f'<div class="{frame}">{table}</div>'
    html = (
        "<title>The report</title><h2>Introduction</h2><ol><li>first</li><li>second</li></ol>"
        + table
        + '<h2>Conclusion</h2><ol start="3"><li>third</li><li>fourth</li></ol>'
        + tail
    )
    return job_for({"type": "html", "data": {"html": html, "css": css}}, max_pages=1000)


@pytest.fixture(scope="module")
def pool() -> Iterator[RenderPool]:
    render_pool = RenderPool(PoolSettings(workers=2, nice=0))
    warm(render_pool, 2)  # parts borrow idle workers only
    yield render_pool
    render_pool.close()


def parted(pool: RenderPool, job: RenderJob, settings: PartSettings) -> bytes:
    # Parts borrow idle workers only, never waiting for one: both are started and idle first
    # (a test before may have stopped one with its parts, and it would still be starting).
    warm(pool, 2)
    return pool.render(job, timeout=300, queue_timeout=60, parts=settings).pdf


@pytest.fixture
def part_counts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many parts each parted render planned (none: it went in one piece)."""
    counts: list[int] = []
    original = parts.part_jobs

    def spy(*args: object) -> list[PartJob]:
        jobs = original(*args)  # type: ignore[arg-type]
        counts.append(len(jobs))
        return jobs

    monkeypatch.setattr(parts, "part_jobs", spy)
    return counts


@pytest.fixture
def joined(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many parts each parted render joined (none: it rendered in one piece after all)."""
    counts: list[int] = []
    original = parts.joined_pdf

    def spy(job: RenderJob, done: list, spent: float) -> object:
        counts.append(len(done))
        return original(job, done, spent)

    monkeypatch.setattr(parts, "joined_pdf", spy)
    return counts


@pytest.fixture(scope="module")
def document() -> RenderJob:
    return long_table(330)


@pytest.fixture(scope="module")
def one_piece(document: RenderJob) -> bytes:
    return render_pdf(document).pdf


@pytest.mark.parametrize("part_settings", [ONE_PASS, TWO_PASSES], ids=["one-pass", "two-passes"])
def test_a_parted_render_is_the_one_piece_render(
    pool, document, one_piece, part_settings, part_counts
) -> None:
    pdf = parted(pool, document, part_settings)

    assert part_counts == [2] if part_settings is ONE_PASS else part_counts[0] > 2
    expected = page_texts(one_piece)
    assert len(expected) > 8
    assert page_texts(pdf) == expected
    assert page_sizes(pdf) == page_sizes(one_piece)
    assert outline(pdf) == outline(one_piece)
    assert_sound(pdf)  # the join is a well-formed PDF: qpdf --check, every reader's page count


def test_page_counters_first_and_left_right_pages_run_across_parts(
    pool, document, one_piece
) -> None:
    texts = page_texts(parted(pool, document, TWO_PASSES))
    total = len(texts)

    for number, text in enumerate(texts, 1):
        assert f"Page {number} of {total}" in text
        assert ("COVER" in text) == (number == 1)
        assert ("RIGHT" in text) == (number % 2 == 1)  # page 1 is a right page
        assert ("LEFT" in text) == (number % 2 == 0)


def test_strings_running_elements_and_counters_carry_into_later_parts(pool, document) -> None:
    texts = page_texts(parted(pool, document, TWO_PASSES))

    # Every page past the first group shows the group of the last group row before or on it,
    # and that group's running element: through the parts' first pages too.
    for text in texts[2:-1]:
        assert "Section: Group" in text
        assert "Runner" in text
    # Rows number on across the parts (#1 is row 0), and chapters after the table go on.
    joined = "\n".join(texts)
    for row in (1, 100, 200, 330):
        assert f"#{row} " in joined
    assert "Chapter 1. Introduction" in texts[0]
    assert "Chapter 2. Conclusion" in joined
    assert "third" in joined


def test_the_table_header_repeats_on_every_page(pool, document) -> None:
    texts = page_texts(parted(pool, document, ONE_PASS))

    for text in texts[:-1]:
        assert "No Name Value" in " ".join(text.split())
    assert sum("Figures" in text for text in texts) == 1  # the caption, once


def test_the_joined_pdf_keeps_title_bookmarks_and_watermark(pool) -> None:
    job = long_table(330)
    marked = RenderJob(**{**job.__dict__, "title": "Quarterly", "watermark": "DRAFT"})

    pdf = parted(pool, marked, ONE_PASS)

    document = reader(pdf)
    assert document.metadata is not None
    assert document.metadata.title == "Quarterly"
    # The headings' bookmarks (part one has the first, the last part the second).
    assert [item.title for item in document.outline] == ["Introduction", "Conclusion"]
    assert all("DRAFT" in text for text in page_texts(pdf))


def test_the_page_cap_counts_the_whole_document(pool) -> None:
    job = long_table(330)
    capped = RenderJob(**{**job.__dict__, "max_pages": 7})

    with pytest.raises(PageLimitExceeded) as raised:
        parted(pool, capped, TWO_PASSES)

    assert raised.value.limit == 7


def test_rows_that_stop_being_regular_render_in_one_piece(pool, part_counts) -> None:
    # The first rows are regular; a tall row later moves every page break after it: the cut
    # planned from the first pages is not a page break, and the document renders whole.
    job = long_table(330)
    tall = RenderJob(
        **{**job.__dict__, "html": job.html.replace(">250</td>", ' style="height: 30mm">250</td>')}
    )
    pdf = parted(pool, tall, ONE_PASS)

    assert part_counts == [2]  # it tried
    assert page_texts(pdf) == page_texts(render_pdf(tall).pdf)


@pytest.mark.parametrize(
    ("extra", "reason"),
    [
        ("<p>1<span style='float: footnote'>note</span></p>", "footnotes"),
        ("<a href='#top'>top</a>", "links inside the document"),
        ("<p style='position: fixed'>x</p>", "position: fixed"),
        ("<style>@page :left { margin-left: 3cm }</style>", "left/right, blank or nth pages"),
        ("<p style='break-before: right'>x</p>", "a break to a left or right page"),
        (
            "<style>tbody tr:nth-child(even) td { background: #ddd }</style>",
            "running elements and selectors that depend on an element's siblings",
        ),
        ("<style>tbody:has(tr.total) td { color: red }</style>", "selectors with :has()"),
        # Rules fetched as the document renders: the rules above cannot read them first.
        (
            "<link rel='stylesheet' href='data:text/css,td%20%7B%20color:%20red%20%7D'>",
            "linked or imported stylesheets",
        ),
        (
            "<style>@import url('data:text/css,td%20%7B%20color:%20red%20%7D');</style>",
            "linked or imported stylesheets",
        ),
    ],
)
def test_what_parts_cannot_reproduce_renders_in_one_piece(pool, extra, reason, part_counts) -> None:
    # Long enough to go in parts but for ``extra``; short enough that matching a selector that
    # looks at every row from every cell (:has()) takes seconds, not tens.
    assert one_piece_reason(long_table(120), ONE_PASS) is None
    job = long_table(120, tail=extra)

    assert (one_piece_reason(job, ONE_PASS) or "").startswith(reason)
    pdf = parted(pool, job, ONE_PASS)

    assert part_counts == []
    assert len(reader(pdf).pages) == len(reader(render_pdf(job).pdf).pages)


def test_short_documents_and_margin_box_only_sides_may_go_in_parts(document) -> None:
    assert one_piece_reason(document, ONE_PASS) is None  # :left/:right set margin boxes only
    assert one_piece_reason(document, PartSettings(min_bytes=10**7)) == "short"


def test_irregular_first_pages_are_not_cut() -> None:
    regular = TableLayout(table=(1,), rows=500, first_page=0, page_starts=((0, 0), (1, 30), (2, 70), (3, 110), (4, 150)))  # fmt: skip
    irregular = TableLayout(table=(1,), rows=500, first_page=0, page_starts=((0, 0), (1, 30), (2, 70), (3, 105), (4, 150)))  # fmt: skip

    plan = plan_cuts(regular, parts_wanted=2, part_pages=100)
    assert plan is not None
    assert [(cut.page, cut.row) for cut in plan.cuts] == [(6, 230)]
    assert plan.step == 40
    assert plan_cuts(irregular, parts_wanted=2, part_pages=100) is None


def assert_parted_as_one_piece(
    pdf: bytes, whole: bytes, part_settings: PartSettings, part_counts: list[int], joined: list[int]
) -> None:
    """``pdf`` was rendered in the parts planned (two in one pass, more in passes), not in one
    piece after all, and is ``whole``, text and pixels."""
    assert part_counts == [2] if part_settings is ONE_PASS else part_counts[0] > 2
    assert joined == part_counts[-1:]
    assert page_texts(pdf) == page_texts(whole)
    assert len(page_texts(whole)) > 8
    assert_same_pixels(pdf, whole)


def assert_same_pixels(pdf: bytes, whole: bytes) -> None:
    """Every page of ``pdf`` is pixel for pixel ``whole``'s."""
    expected = page_pixels(whole)
    pixels = page_pixels(pdf)
    assert len(pixels) == len(expected)
    differ = [n for n, (a, b) in enumerate(zip(pixels, expected, strict=True), 1) if a != b]
    assert differ == []


def outline(pdf: bytes) -> list[tuple[int, str, int, float]]:
    """(depth, title, page index, top) of each outline item, in order."""
    document = reader(pdf)
    found: list[tuple[int, str, int, float]] = []

    def walk(items: list, depth: int) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item, depth + 1)
            else:
                page = document.get_destination_page_number(item)
                found.append((depth, item.title, page, round(float(item.top), 1)))

    walk(document.outline, 0)
    return found


def page_pixels(pdf: bytes) -> list[bytes]:
    document = pdfium.PdfDocument(pdf)
    try:
        return [page.render(scale=1).to_pil().tobytes() for page in document]
    finally:
        document.close()
