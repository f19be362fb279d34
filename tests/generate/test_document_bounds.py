"""A document is bounded before it is laid out: its table cells (GENERATE_MAX_TABLE_CELLS) and
its elements (GENERATE_MAX_ELEMENTS) are counted in its HTML, the caller's or the one its
Markdown became, and one over either is a 422 naming the limit, before any render worker sees
it. While it renders, every job of it (in one piece or in parts) runs within the CPU budget.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from core.engine.process_pool import Lease
from generate.engine import (
    ElementLimitExceeded,
    ElementLimits,
    PoolSettings,
    RenderPool,
    TableCellLimitExceeded,
)
from generate.engine.bounds import ElementCounts, check_element_limits, count_elements
from generate.engine.part_job import PartOpening
from generate.models import GenerateJob
from tests.generate.conftest import URL, generate_pdf, page_texts, post
from tests.generate.test_engine import job_for
from tests.generate.test_jobs import post_async
from tests.generate.test_parts import ONE_PASS, long_table
from tests.generate.test_render_limits import warm

# The table of the incident: 2,000 rows of 50 cells, sent as Markdown.
WIDE_TABLE = [[f"r{row}c{column}" for column in range(50)] for row in range(2000)]


@pytest.mark.parametrize(
    ("html", "elements", "cells"),
    [
        ("<table><tr><td>a</td><TD>b</TD><th>h</th></tr></table>", 5, 3),
        ("<table><thead><tr><th>a</th></tr></thead><tbody><tr><td>1</tbody></table>", 7, 2),
        ("<p>a < b and c<d</p><br/><img src=x>", 4, 0),  # "<d" is a tag: an element, no cell
        ("<p>&lt;td&gt; is text</p>", 1, 0),
        ("<!-- <table><td>x</td></table> --><p>after</p>", 1, 0),
        ("<p>cut<!-- <td>", 1, 0),  # a comment left open runs to the end
        ("<script>'<td>'</script><style>td::before{content:'<td>'}</style>", 2, 0),
        ("<textarea><td></td></TEXTAREA ><title><th></title>", 2, 0),
        ("<svg><![CDATA[<td>]]></svg>", 1, 0),
        ("<td\n  class=x>1</td><th/>", 2, 2),
    ],
)
def test_elements_and_cells_are_counted_as_a_parser_starts_them(html, elements, cells) -> None:
    assert count_elements(html) == ElementCounts(elements=elements, table_cells=cells)


def test_a_document_at_a_limit_passes_and_one_over_is_refused() -> None:
    six_cells = "<table><tr><td>1<td>2<td>3</tr><tr><td>4<td>5<td>6</tr></table>"  # 9 elements

    check_element_limits(six_cells, ElementLimits(table_cells=6, elements=9))
    check_element_limits(six_cells, ElementLimits())  # 0: no limit
    with pytest.raises(TableCellLimitExceeded) as cells:
        check_element_limits(six_cells, ElementLimits(table_cells=5))
    with pytest.raises(ElementLimitExceeded) as elements:
        check_element_limits(six_cells, ElementLimits(elements=8))

    assert str(cells.value) == (
        "The document has 6 table cells; the limit is 5. Split a long table over several documents."
    )
    assert str(elements.value) == "The document has 9 HTML elements; the limit is 8."


def test_markdown_is_counted_once_converted() -> None:
    limits = ElementLimits(table_cells=3)
    # A GitHub table in an element's Markdown is four cells once converted...
    with pytest.raises(TableCellLimitExceeded, match="has 4 table cells"):
        job_for({"data": [{"content": "| a | b |\n|---|---|\n| 1 | 2 |"}]}, limits=limits)
    # ... and so is a table element; markup typed into text is text, no cell.
    with pytest.raises(TableCellLimitExceeded, match="has 4 table cells"):
        job_for({"data": [{"table": {"rows": [["a", "b"], ["1", "2"]]}}]}, limits=limits)
    typed = "<td>" * 50
    job_for({"data": [{"content": typed, "table": {"rows": [[typed, typed]]}}]}, limits=limits)


def test_html_mode_counts_the_callers_document() -> None:
    html = "<table>" + "<tr><td>1</td><td>2</td></tr>" * 3 + "</table>"
    body = {"type": "html", "data": {"html": html}}

    job_for(body, limits=ElementLimits(table_cells=6, elements=10))
    with pytest.raises(TableCellLimitExceeded, match="has 6 table cells; the limit is 5"):
        job_for(body, limits=ElementLimits(table_cells=5))
    with pytest.raises(ElementLimitExceeded, match="has 10 HTML elements; the limit is 9"):
        job_for(body, limits=ElementLimits(elements=9))


# -- through the endpoint -----------------------------------------------------------------------


@pytest.fixture
def no_render(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if a render worker is asked for: the document must be refused before."""

    def refuse() -> None:
        raise AssertionError("a render worker was asked for")

    monkeypatch.setattr("generate.services.render_pool", refuse)


@pytest.mark.django_db
def test_the_2000_by_50_markdown_table_is_refused_before_any_render(
    production_client, no_render
) -> None:
    # Over 1 MiB of JSON: sent as multipart, as a client sends a large body.
    data = json.dumps([{"table": {"rows": WIDE_TABLE}}])

    response = production_client.post(URL, data={"data": data})

    assert response.status_code == 422
    assert response.json() == {
        "name": "UnprocessableDocumentError",
        "message": "The document has 100000 table cells; the limit is 50000. Split a long "
        "table over several documents.",
    }


@pytest.mark.django_db(transaction=True)
def test_an_async_document_over_a_limit_is_refused_at_once_and_nothing_is_stored(
    production_client, settings, no_render
) -> None:
    settings.GENERATE_MAX_TABLE_CELLS = 10

    response = post_async(production_client, {"data": [{"table": {"rows": WIDE_TABLE[:3]}}]})

    assert response.status_code == 422
    assert response.json()["message"].startswith("The document has 150 table cells;")
    assert GenerateJob.objects.count() == 0


@pytest.mark.django_db
def test_the_limits_are_settings(production_client, settings) -> None:
    settings.GENERATE_MAX_TABLE_CELLS = 6
    settings.GENERATE_MAX_ELEMENTS = 50
    two_rows = {"data": [{"table": {"rows": [["a", "b", "c"], ["1", "2", "3"]]}}]}
    three_rows = {
        "data": [{"table": {"rows": [["a", "b", "c"], ["1", "2", "3"], ["4", "5", "6"]]}}]
    }
    paragraphs = {"type": "html", "data": {"html": "<p>x</p>" * 51}}

    assert "a b c" in page_texts(generate_pdf(production_client, two_rows))[0]
    refused = post(production_client, three_rows)
    too_many = post(production_client, paragraphs)
    settings.GENERATE_MAX_ELEMENTS = 0  # no limit
    unbounded = post(production_client, paragraphs)

    assert refused.status_code == 422
    assert refused.json()["message"].startswith("The document has 9 table cells; the limit is 6.")
    assert too_many.status_code == 422
    assert too_many.json() == {
        "name": "UnprocessableDocumentError",
        "message": "The document has 51 HTML elements; the limit is 50.",
    }
    assert unbounded.status_code == 200


def test_the_defaults_let_long_reports_through(settings) -> None:
    # A 6,650-row report of three columns (bench/long_reports.py, 181 pages) and a 1,000-row
    # one of fifty: 20,000 and 50,000 cells, within the shipped limits.
    limits = ElementLimits(
        table_cells=settings.GENERATE_MAX_TABLE_CELLS, elements=settings.GENERATE_MAX_ELEMENTS
    )
    report = "<table>" + "<tr><td>1</td><td>Item</td><td>3.50</td></tr>" * 6650 + "</table>"
    check_element_limits(report, limits)
    check_element_limits(job_for({"data": [{"table": {"rows": WIDE_TABLE[:1000]}}]}).html, limits)
    with pytest.raises(TableCellLimitExceeded):
        check_element_limits(job_for({"data": [{"table": {"rows": WIDE_TABLE}}]}).html, limits)


# -- while it renders ---------------------------------------------------------------------------


def test_every_job_of_a_document_in_parts_carries_its_cpu_budget(monkeypatch) -> None:
    # The worker enforces the budget of the job it is handed (generate.engine.cpu_budget): each
    # probe and part of a document in parts is handed the document's, as a one-piece render is.
    sent: list[tuple[float, float]] = []
    run = Lease.run

    def spied(self: Lease, work: PartOpening, **kwargs: object) -> object:
        sent.append((work.job.cpu_seconds, work.job.cpu_seconds_per_page))
        return run(self, work, **kwargs)  # type: ignore[arg-type]

    pool = RenderPool(PoolSettings(workers=2, nice=0))
    try:
        warm(pool, 2)  # parts borrow idle workers only (its quick jobs are not spied on)
        monkeypatch.setattr(Lease, "run", spied)
        job = dataclasses.replace(long_table(330), cpu_seconds=300, cpu_seconds_per_page=2)
        pool.render(job, timeout=120, queue_timeout=5, parts=ONE_PASS)
    finally:
        pool.close()

    assert sent == [(300, 2), (300, 2)]  # two parts, each with the document's budget
