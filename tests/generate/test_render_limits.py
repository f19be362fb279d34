"""The render pool shares its workers fairly and keeps their memory in check.

One organization (a pool's "tenant") never holds every render worker; requests wait for a
worker only in a bounded queue, beyond which they are refused at once; a worker left large by a
heavy document is replaced; workers run at a lower CPU priority than the server's threads.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from generate.engine import PoolSettings, RenderBusy, RenderJob, RenderPool, RenderTimeout
from tests.generate.conftest import SLOW_HTML, page_texts
from tests.generate.test_engine import job_for


def slow_job(rows: int = 6000) -> RenderJob:
    cells = "".join(f"<tr><td>{i}</td><td>slow row {i}</td></tr>" for i in range(rows))
    return job_for({"type": "html", "data": {"html": f"<table>{cells}</table>"}}, max_pages=1000)


def quick_job(text: str = "quick") -> RenderJob:
    return job_for({"data": [{"content": text}]})


@pytest.fixture
def make_pool() -> Iterator:
    pools: list[RenderPool] = []

    def make(**settings: object) -> RenderPool:
        pool = RenderPool(PoolSettings(**settings))  # type: ignore[arg-type]
        pools.append(pool)
        return pool

    yield make
    for pool in pools:
        pool.close()


def in_background(
    pool: RenderPool, job: RenderJob, timeout: float = 60, **kwargs: object
) -> tuple[threading.Thread, list]:
    """Run ``job`` in a thread; a slow job is stopped at ``timeout`` (RenderTimeout)."""
    outcome: list = []

    def run() -> None:
        try:
            outcome.append(pool.run(job, timeout=timeout, queue_timeout=60, **kwargs))  # type: ignore[arg-type]
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def wait_until_running(pool: RenderPool, tenant: str) -> None:
    deadline = time.monotonic() + 10
    while pool._running.get(tenant, 0) == 0:
        assert time.monotonic() < deadline, "the job never started"
        time.sleep(0.02)
    time.sleep(0.2)  # and has been sent to its worker


def warm(pool: RenderPool, workers: int) -> None:
    """Leave ``workers`` workers started and idle, each past its first job, so that timing
    does not include start-up. They are held all at once: jobs merely run side by side may run
    one after the other on a single worker when the machine is busy, and then only one is left
    idle (a parted render, borrowing idle workers only, would go in one piece)."""
    with ExitStack() as held:
        # Never more than the pool has: it would wait for one of those held here.
        count = min(workers, pool.settings.workers)
        leases = [held.enter_context(pool.lease(queue_timeout=60))[0] for _ in range(count)]
        for lease in leases:
            lease.run(quick_job(), timeout=60)


def test_one_tenant_never_holds_every_worker(make_pool) -> None:
    pool = make_pool(workers=2, max_per_tenant=1)
    warm(pool, 2)
    thread, outcome = in_background(pool, slow_job(), timeout=4, tenant="acme")
    wait_until_running(pool, "acme")

    started = time.monotonic()
    with pytest.raises(RenderBusy):
        pool.run(quick_job(), timeout=60, queue_timeout=0.5, tenant="acme")
    refused_after = time.monotonic() - started
    other = pool.run(quick_job("globex"), timeout=60, queue_timeout=0.5, tenant="globex")

    thread.join()
    assert refused_after < 2
    assert "globex" in page_texts(other.pdf)[0]
    assert [type(o) for o in outcome] == [RenderTimeout]


def test_a_tenant_over_its_share_waits_for_its_own_job_to_end(make_pool) -> None:
    pool = make_pool(workers=2, max_per_tenant=1)
    warm(pool, 2)
    first, first_outcome = in_background(pool, slow_job(), timeout=2, tenant="acme")
    wait_until_running(pool, "acme")

    started = time.monotonic()
    second = pool.run(quick_job("second"), timeout=60, queue_timeout=60, tenant="acme")
    waited = time.monotonic() - started

    first.join()
    # A worker was free all along; the second job waited for the first to be stopped at 2 s.
    assert waited > 1.5, waited
    assert [type(o) for o in first_outcome] == [RenderTimeout]
    assert "second" in page_texts(second.pdf)[0]


def test_the_queue_is_bounded_and_a_full_queue_refuses_at_once(make_pool) -> None:
    pool = make_pool(workers=1, max_waiting=1)
    warm(pool, 1)
    running, running_outcome = in_background(pool, slow_job(), timeout=3, tenant="a")
    wait_until_running(pool, "a")
    waiting, waiting_outcome = in_background(pool, quick_job(), tenant="b")
    deadline = time.monotonic() + 10
    while pool._waiting == 0:
        assert time.monotonic() < deadline
        time.sleep(0.02)

    # Not timed: a job that waited would be rendered once a worker is free (the running one
    # stops at 3 s, well inside the 60 s it may wait), so RenderBusy is the refusal itself.
    with pytest.raises(RenderBusy) as refusal:
        pool.run(quick_job(), timeout=60, queue_timeout=60, tenant="c")

    assert refusal.value.retry_after_seconds >= 1
    running.join()
    waiting.join()
    assert [type(o) for o in running_outcome] == [RenderTimeout]
    assert "quick" in page_texts(waiting_outcome[0].pdf)[0]


def test_a_worker_left_large_by_a_job_is_replaced(make_pool) -> None:
    pool = make_pool(workers=1, recycle_rss_bytes=1)  # every worker is "large" after any job
    pool.run(quick_job(), timeout=60, queue_timeout=60)
    assert pool._idle == []  # stopped, not kept

    pool.run(quick_job(), timeout=60, queue_timeout=60)
    assert pool._idle == []


def test_a_worker_under_the_threshold_is_kept(make_pool) -> None:
    pool = make_pool(workers=1, recycle_rss_bytes=4 * 2**30)
    pool.run(quick_job(), timeout=60, queue_timeout=60)
    [worker] = pool._idle

    pool.run(quick_job(), timeout=60, queue_timeout=60)

    assert pool._idle == [worker]


def test_workers_run_at_a_lower_cpu_priority(make_pool) -> None:
    pool = make_pool(workers=1, nice=7)
    pool.run(quick_job(), timeout=60, queue_timeout=60)
    [worker] = pool._idle

    ours = os.getpriority(os.PRIO_PROCESS, 0)
    assert os.getpriority(os.PRIO_PROCESS, worker.process.pid) == min(19, ours + 7)


# -- through the endpoint -----------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_an_organization_over_its_share_gets_a_503_with_retry_after(
    settings, organization, production_key: str, other_api_key: str
) -> None:
    from django.test import Client

    from tests.conftest import basic_auth
    from tests.generate.conftest import URL, post

    settings.GENERATE_WORKERS = 2
    settings.GENERATE_MAX_JOBS_PER_ORGANIZATION = 1
    settings.GENERATE_QUEUE_TIMEOUT_SECONDS = 0.5
    settings.GENERATE_WALL_TIMEOUT_SECONDS = 4
    settings.GENERATE_MAX_PAGES = 5000
    acme = Client(HTTP_AUTHORIZATION=basic_auth(production_key))
    globex = Client(HTTP_AUTHORIZATION=basic_auth(other_api_key))
    for client in (acme, globex):  # both workers started and warm
        assert post(client, {"data": [{"content": "warm"}]}).status_code == 200
    slow: list = []
    thread = threading.Thread(target=lambda: slow.append(post(acme, SLOW_HTML)))
    thread.start()
    # Until acme's slow render holds its share (under load, reading and checking the document
    # before it asks for a worker may take longer than any fixed pause).
    from generate.services import render_pool

    wait_until_running(render_pool(), organization.eid)

    refused = post(acme, {"data": [{"content": "second of acme"}]})
    other = post(globex, {"data": [{"content": "globex"}]})
    thread.join()

    assert refused.status_code == 503
    assert refused.json() == {
        "name": "ServiceBusyError",
        "message": "Every PDF renderer is busy; try again shortly.",
    }
    assert refused["Retry-After"] == "1"
    assert other.status_code == 200
    assert slow[0].status_code == 422  # stopped at the time cap, in the wire shape
    assert URL == "/api/v1/generate-pdf"
