"""A document in parts on the render workers: it takes one share and borrows only idle workers, a
failing part stops the others, a borrowed worker is taken back for another request, and a part
renders with few garbage collections."""

from __future__ import annotations

import gc
import threading
import time
import weakref

import pytest

from generate.engine import (
    PageLimitExceeded,
    PoolSettings,
    RenderJob,
    RenderPool,
    RenderTimeout,
    worker,
)
from generate.engine.render import render_pdf
from tests.generate.conftest import page_texts
from tests.generate.test_parts import ONE_PASS, long_table, parted
from tests.generate.test_parts import pool as pool  # noqa: F401 - the fixture
from tests.generate.test_render_limits import (
    in_background,
    quick_job,
    slow_job,
    wait_until_running,
    warm,
)


def test_a_document_in_parts_takes_one_share_and_borrows_only_idle_workers() -> None:
    pool = RenderPool(PoolSettings(workers=2, max_per_tenant=1))
    try:
        warm(pool, 2)

        with pool.lease(queue_timeout=5, tenant="acme", extra=1) as leases:
            assert len(leases) == 2  # both idle: the second is borrowed
            assert pool._running == {"acme": 1, None: 1}  # counted once for acme
        thread, outcome = in_background(pool, slow_job(), timeout=4, tenant="other")
        wait_until_running(pool, "other")
        with pool.lease(queue_timeout=5, tenant="acme", extra=1) as leases:
            assert len(leases) == 1  # the busy worker is not waited for
        thread.join()
        assert isinstance(outcome[0], RenderTimeout)
    finally:
        pool.close()


def test_a_part_that_fails_stops_the_others_and_the_error_is_the_callers(pool) -> None:
    # The first part passes the page cap while the second waits for it; the second is stopped,
    # the caller gets the first one's error, and the pool renders the next document.
    job = long_table(330)
    capped = RenderJob(**{**job.__dict__, "max_pages": 5})

    with pytest.raises(PageLimitExceeded):
        parted(pool, capped, ONE_PASS)

    assert page_texts(parted(pool, long_table(330), ONE_PASS))[0].startswith("Chapter 1.")


def test_a_borrowed_worker_is_taken_back_for_another_request() -> None:
    pool = RenderPool(PoolSettings(workers=2, max_per_tenant=1))
    try:
        warm(pool, 2)
        document = long_table(1500)
        outcome: list = []
        thread = threading.Thread(
            target=lambda: outcome.append(
                pool.render(document, timeout=300, queue_timeout=60, tenant="acme", parts=ONE_PASS)
            )
        )
        thread.start()
        deadline = time.monotonic() + 30
        while not pool._borrowed:  # the document's second part is under way
            assert time.monotonic() < deadline, "no worker was borrowed"
            time.sleep(0.02)

        other = pool.run(quick_job("globex"), timeout=60, queue_timeout=5, tenant="globex")
        thread.join()

        assert "globex" in page_texts(other.pdf)[0]
        # The document finished in one piece on its own worker.
        assert page_texts(outcome[0].pdf) == page_texts(render_pdf(document).pdf)
    finally:
        pool.close()


class Garbage:
    """An object only a reference cycle keeps: only the garbage collector frees it."""

    def __init__(self) -> None:
        self.itself = self


def test_a_part_renders_with_few_garbage_collections_and_collects_after() -> None:
    threshold = gc.get_threshold()
    gc.disable()  # no collection but the worker's own
    try:
        with worker._few_collections():
            assert gc.get_threshold()[0] == worker.PART_GC_THRESHOLD
            garbage = weakref.ref(Garbage())
        assert gc.get_threshold() == threshold
        assert garbage() is not None
        worker._collect()  # what the worker does once the part's result is sent
    finally:
        gc.enable()

    assert garbage() is None
