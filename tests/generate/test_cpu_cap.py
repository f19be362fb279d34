"""The render cap counts the render worker's CPU time, and grows with the document's pages.

On a busy host the render workers (at nice +10) get the CPUs last: a wall-clock cap refused long
documents whose rendering cost well under it. The budget is GENERATE_TIMEOUT_SECONDS of CPU time
plus GENERATE_TIMEOUT_SECONDS_PER_PAGE for each page laid out; GENERATE_WALL_TIMEOUT_SECONDS is
only a backstop.
"""

from __future__ import annotations

import os
import re
import signal
import threading
import time

from generate.services import render_pool
from tests.generate.conftest import generate_pdf, page_texts, post


def table(rows: int) -> dict:
    cells = "".join(f"<tr><td>{i}</td><td>row {i} of the report</td></tr>" for i in range(rows))
    return {"type": "html", "data": {"html": f"<table>{cells}</table>"}}


def busy_worker_pid() -> int:
    """The process id of the render worker that has a job, once one has."""
    deadline = time.monotonic() + 20
    while True:
        busy = list(render_pool()._busy)
        if busy:
            return busy[0]
        assert time.monotonic() < deadline, "no render started"
        time.sleep(0.01)


def test_a_worker_held_off_the_cpu_is_not_charged_for_the_time(production_client, settings):
    # The time a worker waits for the CPU (a busy host, nice +10) is not the document's: here
    # the worker is stopped outright for longer than the whole CPU budget.
    settings.GENERATE_TIMEOUT_SECONDS = 2
    settings.GENERATE_MAX_PAGES = 5000
    generate_pdf(production_client, {"data": [{"content": "warm"}]})  # a worker started

    def hold_the_worker_off() -> None:
        pid = busy_worker_pid()
        os.kill(pid, signal.SIGSTOP)
        try:
            time.sleep(3)  # the worker is stopped: a real pause, not a clock the code reads
        finally:
            os.kill(pid, signal.SIGCONT)

    holder = threading.Thread(target=hold_the_worker_off)
    holder.start()
    response = post(production_client, table(400))
    holder.join()

    assert response.status_code == 200, response.content[:300]
    texts = page_texts(response.content)
    assert len(texts) == 11
    assert "row 399 of the report" in texts[-1]


def report(paragraphs: int) -> dict:
    """Pages of text: cheap to parse, the CPU time goes into laying out and drawing pages."""
    text = " ".join(f"word{i} lorem ipsum dolor sit amet" for i in range(60))
    html = "".join(f"<p>{k} {text}</p>" for k in range(paragraphs))
    return {"type": "html", "data": {"html": html}}


CPU_CAP = re.compile(
    r"The document needed more than 0.5 seconds of processor time to render \((\d+) pages "
    r"laid out by then\) and was stopped\."
)


def test_a_render_past_its_cpu_budget_is_a_422(production_client, settings):
    settings.GENERATE_TIMEOUT_SECONDS = 0.5
    settings.GENERATE_TIMEOUT_SECONDS_PER_PAGE = 0
    settings.GENERATE_MAX_PAGES = 5000

    response = post(production_client, report(150))  # 86 pages, about 2.4 CPU-seconds

    assert response.status_code == 422
    body = response.json()
    assert body["name"] == "UnprocessableDocumentError"
    stopped = CPU_CAP.fullmatch(body["message"])
    assert stopped is not None, body
    assert int(stopped.group(1)) <= 86
    # The worker stopped its render and is still good for the next document.
    assert "next" in page_texts(generate_pdf(production_client, {"data": [{"content": "next"}]}))[0]


def test_the_cpu_budget_grows_with_the_pages_laid_out(production_client, settings):
    # The same document is refused under 0.5 s with no allowance a page (the test above). The
    # allowance here is a quarter of the shipped 1.0 s and still about nine times the 2.4
    # CPU-seconds the render costs on a quiet machine: CPU time is not a constant either (CI at
    # load 9 on two cores spent twice that, past a 0.05 s allowance, on the same pages).
    settings.GENERATE_TIMEOUT_SECONDS = 0.5
    settings.GENERATE_TIMEOUT_SECONDS_PER_PAGE = 0.25  # 22 CPU-seconds for 86 pages

    pdf = generate_pdf(production_client, report(150))

    assert len(page_texts(pdf)) == 86


def test_the_default_page_cap_allows_long_reports(production_client):
    # GENERATE_MAX_PAGES as shipped (2,000; it was 500): light pages, cheap to render.
    html = "".join(f'<p style="break-after: page">page {k}</p>' for k in range(501))

    pdf = generate_pdf(production_client, {"type": "html", "data": {"html": html}})

    texts = page_texts(pdf)
    assert len(texts) == 501
    assert texts[-1].strip() == "page 500"
