"""Long documents rendered in parts, concurrently in the render pool, joined into one PDF.

WeasyPrint lays a document out on one core, and holds every page until it writes the PDF (a
1,000-page table needs 2.6 GB). A long report is nearly always one long table, or chapters that
each open a page, so that is what is cut: between rows, or at forced page breaks, where the whole
document breaks its page anyway, so that each part is exactly that stretch of the document
(`generate.engine.part_layout` lays a part out as such).

1. Which documents: at least ``min_bytes`` of HTML (`PartSettings`), with a top-level table or
   forced page breaks (`cuts_at_breaks`), and none of the features a part cannot reproduce
   (`one_piece_reason`): footnotes, ``target-counter()``/``target-text()``, links inside the
   document, ``position: fixed``, left/right/blank/nth pages that differ in more than their margin
   boxes, breaks to a left or right page, a reset of the ``page`` counter, viewport units, form
   fields, ``:has()`` selectors, running elements in a document whose selectors depend on siblings
   (a later part places them first in its body), linked or imported stylesheets (fetched as the
   document renders, so not read by these rules). Anything else is rendered in one piece, as
   before.
   Selectors that depend on siblings other than a table cell's (``tr:nth-child(even)``,
   ``h2 + table``, ``:last-child``) go in parts: the rows and elements outside a part stay in it as
   stand-ins that make no box (`keeps_siblings`), so they match as in one piece.
2. A document with forced page breaks and several workers is first cut at those
   (`BreakLayout`, `plan_breaks`): the first part reads them from the styles of the body's
   elements, cascaded without their content, and asks ``ASK_BREAKS``; if the breaks give parts
   near equal shares, each part renders its elements at once, laid out as pages after a forced
   break, and learns the pages before it only with its `Placement`, before its margin boxes.
   Otherwise (and with one worker) the table:
   a probe lays out what precedes the table and its first rows: where the table's pages start.
   If full pages hold the same number of rows, the later page starts are known; otherwise the
   document is rendered in one piece. With several workers the probe is the first part's
   opening (`PartOpening`): every worker parses the document at once, the first probes its
   copy (and puts it back as it was), the pool plans the parts, and each worker renders its
   part from the copy it parsed: the document is parsed once per worker, and the other parts
   parse while the first probes. With one worker (`TableProbe`), or when the parts do not go
   in one pass, the probe's layout plans the passes below.
3. The cuts are page starts, one part per ``part_pages`` pages and at least one per worker the
   document holds (one, counted for its tenant, plus any idle ones borrowed: `ProcessPool.lease`;
   a borrowed worker is taken back when another request would wait, and the document then
   renders in one piece on its own worker).
   Each part knows the pages before it, so ``counter(page)``, ``@page :first`` and left/right
   pages are right before anything is laid out. Each part but the last also lays out the next
   part's first row and checks that it opens a new page (`PartMisaligned` otherwise: the rows
   were not regular after all, and the document is rendered in one piece).
4. As many parts as workers, or fewer: one pass, all at once. Every part measures its rows'
   cells and asks for the widest of each column in any part (an automatic table layout sizes
   its columns from every row), lays out its pages, asks for the page count and the named
   strings of the parts before it once all are laid out, then draws its margin boxes and writes
   its PDF. A worker runs a part with few garbage collections (`generate.engine.worker`).
   More parts than workers (memory): the parts run a few at a time, three times: measured,
   then laid out and counted, then laid out again and written knowing everything; about twice
   the work of one piece, but no worker holds more than one part (`_in_passes`; parts cut at
   page breaks have no columns to measure: two passes). A document of at most twice
   ``part_pages`` pages that gets too few workers for one pass renders in one piece instead.
   If a document uses counters or running elements, each part also waits for the part before
   it to have built its box tree (not laid it out) to continue its counters and running
   elements (`PartStart`).
5. The parts' PDFs are joined (pypdf): pages, links, the first part's metadata with the job's
   title, and one outline built from every part's bookmarks in order (a later part's headings
   nest under an earlier part's, as in one piece: `join_pdfs`); each part carries the
   watermark already.

The page cap counts the whole document. The CPU-time cap counts all parts: each part is stopped
past the document's base budget plus the allowance for its own pages (every part reads the whole
document's HTML, which the base pays for), and the parts' sum (probe and every pass included)
must stay within the document's budget, base plus the allowance for all its pages.
"""

from __future__ import annotations

import dataclasses
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from core.engine.process_pool import Lease, LeasePreempted
from generate.engine.errors import RenderTimeout
from generate.engine.job import RenderedPdf, RenderJob
from generate.engine.part_exchange import Aborted, Exchange
from generate.engine.part_job import (
    BreakLayout,
    BreakProbe,
    PartDone,
    PartJob,
    PartMisaligned,
    PartOpening,
    TableLayout,
    TableProbe,
    widest,
)
from generate.engine.part_join import joined_pdf
from generate.engine.part_plan import break_part_jobs, break_ranges, part_jobs, plan_table
from generate.engine.part_rules import (
    PartSettings,
    cuts_at_breaks,
    keeps_siblings,
    one_piece_reason,
)

__all__ = ["PartSettings", "one_piece_reason", "render_in_parts"]


# -- running the parts ----------------------------------------------------------------------------


def _run_all(
    leases: list[Lease[Any, Any]], parts: list[Any], timeout: float, exchange: Exchange
) -> list[Any]:
    """Run ``parts`` on ``leases``, in order, as many at a time as there are leases; their
    results, in order. The first part to fail stops the parts under way at once (`Lease.stop`):
    their results are lost anyway, and a part that lays out pages asks nothing for minutes, so
    it would hold its worker (and the tenant's share) that long. The caller gets the first
    failure, not what stopping the others made of theirs."""
    queue = list(reversed(list(enumerate(parts))))
    lock = threading.Lock()
    done: dict[int, Any] = {}
    running: set[int] = set()  # the leases with a part under way, by index
    failures: list[BaseException] = []  # in the order they happened

    def work(index: int, lease: Lease[Any, Any]) -> None:
        while True:
            with lock:
                if not queue or exchange.failed:
                    return
                position, part = queue.pop()
                running.add(index)
            try:
                done[position] = lease.run(part, timeout=timeout, answer=exchange.answer)
            except BaseException as error:
                with lock:
                    running.discard(index)
                    failures.append(error)
                    others = [leases[i] for i in running] if len(failures) == 1 else []
                exchange.abort()
                for other in others:
                    other.stop()
                raise
            with lock:
                running.discard(index)

    with ThreadPoolExecutor(max_workers=len(leases)) as executor:
        for index, lease in enumerate(leases):
            executor.submit(work, index, lease)
    if failures:
        if isinstance(failures[0], Aborted):
            # Nothing failed but the wait: a part waited for the others longer than the render
            # may take.
            raise RenderTimeout(timeout)
        raise failures[0]
    return [done[position] for position in range(len(parts))]


def render_in_parts(
    leases: list[Lease[Any, Any]],
    job: RenderJob,
    settings: PartSettings,
    *,
    timeout: float,
) -> RenderedPdf:
    """Render ``job`` on the held workers ``leases``: in parts when its page breaks or its
    table allow it (see the module docstring), otherwise in one piece on the first."""
    whole = leases[0]
    spent = 0.0
    siblings = keeps_siblings(job)
    breaks = cuts_at_breaks(job)
    try:
        found: BreakLayout | TableLayout | None = None
        if len(leases) > 1:
            # Every worker parses the document while the first probes it; the first part goes
            # on with the document it parsed, the others with theirs once the plan is known.
            def one_pass(layout: TableLayout | None) -> list[PartJob] | None:
                plan = plan_table(layout, settings, len(leases))
                jobs = part_jobs(job, layout, plan) if layout is not None and plan else None
                return jobs if jobs is not None and len(jobs) <= len(leases) else None

            def by_breaks(layout: BreakLayout | None) -> list[PartJob] | None:
                ranges = break_ranges(layout, settings, len(leases))
                return break_part_jobs(job, layout, ranges) if layout and ranges else None

            openings = [
                PartOpening(
                    job=job,
                    index=index,
                    probe_rows=settings.probe_rows,
                    keep_siblings=siblings,
                    breaks=breaks,
                )
                for index in range(len(leases))
            ]
            exchange = Exchange(len(leases), timeout, plan=one_pass, breaks=by_breaks)
            opened = _run_all(leases, openings, timeout, exchange)
            spent = sum(result.cpu_seconds for result in opened if result is not None)
            if isinstance(opened[0], PartDone):
                done = [result for result in opened if isinstance(result, PartDone)]
                return joined_pdf(job, done, spent)
            found = opened[0]
        else:
            if breaks:
                at_breaks: BreakLayout | None = whole.run(BreakProbe(job=job), timeout=timeout)
                spent = at_breaks.cpu_seconds if at_breaks is not None else 0.0
                if break_ranges(at_breaks, settings, 1) is not None:
                    found = at_breaks
            if found is None:
                probe = TableProbe(job=job, rows=settings.probe_rows, keep_siblings=siblings)
                found = whole.run(probe, timeout=timeout)
                spent += found.cpu_seconds if found is not None else 0.0
        if isinstance(found, BreakLayout):
            ranges = break_ranges(found, settings, len(leases))
            assert ranges is not None  # the exchange answered IN_PASSES for these
            parts = break_part_jobs(job, found, ranges)
        else:
            plan = plan_table(found, settings, len(leases))
            if found is None or plan is None:
                return whole.run(job, timeout=timeout)
            parts = part_jobs(job, found, plan)
            if len(parts) <= len(leases) or plan.pages <= 2 * settings.part_pages:
                # One pass would have been taken above; too few workers free for one pass,
                # and short enough to fit one worker's memory: three passes would cost more
                # than one piece.
                return whole.run(job, timeout=timeout)
        done, passes = _in_passes(leases, parts, timeout)
        spent += passes
    except (PartMisaligned, LeasePreempted):
        # Not cut where the document breaks its pages, or a borrowed worker was taken back for
        # another request: the document in one piece, on its own worker.
        return whole.run(job, timeout=timeout)
    return joined_pdf(job, done, spent)


def _in_passes(
    leases: list[Lease[Any, Any]], parts: list[PartJob], timeout: float
) -> tuple[list[PartDone], float]:
    """More parts than workers: the parts run a few at a time, laid out and counted, then laid
    out again and written knowing the pages and strings before each (a table's parts are
    measured first, for its columns). Their results, and the CPU-seconds all passes took."""
    measured: list[PartDone] = []
    if not parts[0].breaks:
        measured = _run_all(
            leases,
            [dataclasses.replace(p, widths_only=True) for p in parts],
            timeout,
            Exchange(len(parts), timeout),
        )
        columns = widest([d.columns or [] for d in measured])
        parts = [dataclasses.replace(p, columns=columns) for p in parts]
    counted = _run_all(
        leases,
        [dataclasses.replace(p, count_only=True) for p in parts],
        timeout,
        Exchange(len(parts), timeout),
    )
    exchange = Exchange(len(parts), timeout)
    exchange.layouts = {d.layout.index: d.layout for d in counted}
    known = [
        dataclasses.replace(
            part,
            start=counted[part.index - 1].end if part.index else None,
            placement=exchange.placement(part.index),
        )
        for part in parts
    ]
    done = _run_all(leases, known, timeout, exchange)
    return done, sum(d.cpu_seconds for d in [*measured, *counted, *done])
