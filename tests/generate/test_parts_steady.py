"""Long documents go in parts in steady use, not only on a pool prepared for them: the render
workers are kept started (`PoolSettings.warm`), a worker replaced after a heavy document is
started again at once, and a document in parts waits briefly for a second worker that is
starting instead of going in one piece (`ProcessPool.lease`'s ``reserve``).

The workers here are replaced after every document (a recycle limit of one byte): the worst
case, where every render leaves both workers over the limit.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

from generate.engine import PoolSettings, RenderPool
from generate.engine.render import render_pdf
from tests.generate.conftest import page_texts
from tests.generate.test_parts import (  # noqa: F401 - fixtures: the parts each render planned, joined
    ONE_PASS,
    joined,
    long_table,
    part_counts,
)

DOCUMENT = long_table(200)


@pytest.fixture
def pool() -> Iterator[RenderPool]:
    render_pool = RenderPool(PoolSettings(workers=2, nice=0, warm=2, recycle_rss_bytes=1))
    yield render_pool
    render_pool.close()


def wait_for(condition, what: str) -> None:  # type: ignore[no-untyped-def]
    """Wait until ``condition()`` holds (a state of the pool, not a length of time)."""
    deadline = time.monotonic() + 120
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def idle_workers(pool: RenderPool) -> int:
    with pool._condition:
        return len(pool._idle)


def test_workers_are_started_when_the_pool_is_made() -> None:
    pool = RenderPool(PoolSettings(workers=2, nice=0, warm=2))
    try:
        # Nothing asked for a worker: the pool started both by itself.
        wait_for(lambda: idle_workers(pool) == 2, "the warm workers never started")
        assert pool.stats().workers == 2
    finally:
        pool.close()


def test_twenty_long_tables_in_a_row_each_go_in_parts(
    part_counts,  # noqa: F811 - the fixture imported above
    joined,  # noqa: F811
) -> None:
    # The service's recycle limit (400 MB): parts stay under it, so the workers are kept, and
    # the documents come back to back, each as soon as the one before is done.
    pool = RenderPool(PoolSettings(workers=2, nice=0, warm=2, recycle_rss_bytes=400 * 2**20))
    try:
        whole = page_texts(render_pdf(DOCUMENT).pdf)
        for _ in range(20):
            pdf = pool.render(DOCUMENT, timeout=300, queue_timeout=60, parts=ONE_PASS).pdf
            assert page_texts(pdf) == whole
        workers = {worker.process.pid for worker in pool._idle}
        pdf = pool.render(DOCUMENT, timeout=300, queue_timeout=60, parts=ONE_PASS).pdf
        assert {worker.process.pid for worker in pool._idle} == workers  # none replaced
    finally:
        pool.close()

    assert part_counts == [2] * 21
    assert joined == [2] * 21


def test_workers_replaced_after_every_document_are_started_again(
    pool,
    part_counts,  # noqa: F811 - the fixture imported above
    joined,  # noqa: F811
) -> None:
    for number in range(3):
        # Both workers were replaced after the document before (over the recycle limit); the
        # pool starts them again by itself.
        wait_for(lambda: idle_workers(pool) == 2, f"workers not started again before {number}")
        pool.render(DOCUMENT, timeout=300, queue_timeout=60, parts=ONE_PASS)

    assert part_counts == [2] * 3
    assert joined == [2] * 3


def test_after_a_one_piece_render_the_next_long_table_goes_in_parts(
    pool,
    part_counts,  # noqa: F811 - the fixture imported above
    joined,  # noqa: F811
) -> None:
    wait_for(lambda: idle_workers(pool) == 2, "the warm workers never started")
    # A footnote: in one piece, on one worker, which is then replaced (over the limit).
    footnoted = long_table(200, tail="<p>1<span style='float: footnote'>note</span></p>")
    pool.render(footnoted, timeout=300, queue_timeout=60, parts=ONE_PASS)
    assert part_counts == []
    # The next one comes at once, while the replacement still starts: it waits for it (as long
    # as it takes here: the bound is twice the last start's time, which a loaded machine may
    # exceed) rather than go in one piece.
    pool._start_seconds = pool.settings.start_timeout_seconds
    pdf = pool.render(DOCUMENT, timeout=300, queue_timeout=60, parts=ONE_PASS).pdf

    assert part_counts == [2]
    assert joined == [2]
    assert page_texts(pdf) == page_texts(render_pdf(DOCUMENT).pdf)


def test_a_request_waiting_for_a_worker_comes_before_a_reservation() -> None:
    pool = RenderPool(PoolSettings(workers=2, nice=0))
    try:
        with pool.lease(queue_timeout=60) as [held]:
            with pool._condition:
                pool._waiting += 1  # as a request waiting for a worker does
            with pool.lease(queue_timeout=60, extra=1, reserve=True) as leases:
                assert len(leases) == 1  # nothing reserved: the waiting request comes first
            with pool._condition:
                pool._waiting -= 1
            assert held.worker.is_alive()
    finally:
        pool.close()


def test_a_forked_childs_copy_of_the_pool_starts_no_workers() -> None:
    pool = RenderPool(PoolSettings(workers=2, nice=0, warm=2))
    try:
        wait_for(lambda: idle_workers(pool) == 2, "the warm workers never started")
        with pool._condition:
            idle, pool._idle = pool._idle, []  # as if both had stopped: the parent would
            pool._live = 0  # start two again
        child = os.fork()
        if child == 0:  # the child's copy: its workers are the parent's, it makes its own pool
            pool._keep_warm()
            os._exit(pool._warming)
        _, status = os.waitpid(child, 0)
        with pool._condition:
            pool._idle, pool._live = idle, len(idle)  # closed with the pool
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        pool.close()
