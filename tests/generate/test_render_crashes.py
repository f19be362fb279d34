"""A render worker that dies while it renders (a signal: SIGSEGV in the renderer's C libraries,
SIGKILL from the out-of-memory killer; or an exit) is a 422 with a message, for a request and
for an asynchronous job alike, never a 500; the pool frees its slot at once, so the next
document renders without waiting for anything. A worker that cannot start is a 503.

The workers here are tests/generate/crash_worker.py: a render worker that dies on cue.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from core.engine.process_pool import Lease
from generate.engine import PoolSettings, RenderCrashed, RenderPool, RenderUnavailable
from tests.generate import crash_worker
from tests.generate.conftest import generate_pdf, page_texts, post
from tests.generate.test_engine import job_for
from tests.generate.test_jobs import post_async, run_queued_jobs
from tests.generate.test_parts import ONE_PASS, long_table
from tests.generate.test_render_limits import quick_job, warm

CRASHED = {
    "name": "UnprocessableDocumentError",
    "message": "The document could not be rendered: the renderer stopped while rendering it, "
    "most likely out of memory. Very long tables and large images need the most.",
}
DEATHS = [
    (crash_worker.SEGFAULT, "killed by signal 11"),
    (crash_worker.SIGKILL, "killed by signal 9"),
    (crash_worker.EXIT, "exited with code 3"),
]


@pytest.fixture
def make_pool(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., RenderPool]]:
    """Render pools of crash workers (or of ``worker_module``), closed after the test."""
    # The workers import this repository's tests package, from where the tests run.
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2]))
    pools: list[RenderPool] = []

    def make(workers: int = 1, worker_module: str = crash_worker.CRASH_WORKER) -> RenderPool:
        pool = RenderPool(PoolSettings(workers=workers, max_per_tenant=1, nice=0))
        pool.worker_module = worker_module
        pools.append(pool)
        return pool

    yield make
    for pool in pools:
        pool.close()


@pytest.fixture
def served_by(monkeypatch: pytest.MonkeyPatch) -> Callable[[RenderPool], RenderPool]:
    """Make ``pool`` the one the endpoint renders with."""

    def serve(pool: RenderPool) -> RenderPool:
        monkeypatch.setattr("generate.services.render_pool", lambda: pool)
        return pool

    return serve


def assert_free(pool: RenderPool) -> None:
    """No worker is held or counted for anyone: the next document gets one at once."""
    stats = pool.stats()
    assert (stats.busy, stats.waiting) == (0, 0)
    assert pool._running == {}
    assert all(worker.is_alive() for worker in pool._idle)


@pytest.mark.parametrize(("mark", "death"), DEATHS)
def test_a_worker_that_dies_during_a_render_frees_its_slot_at_once(make_pool, mark, death):
    pool = make_pool()

    with pytest.raises(RenderCrashed) as failure:
        pool.run(job_for({"data": [{"content": mark}]}), timeout=60, queue_timeout=5, tenant="a")

    assert death in failure.value.detail
    assert_free(pool)
    assert pool.stats().workers == 0  # the dead one is gone, not counted
    # The same tenant's next document renders, on a new worker, without waiting for a slot.
    rendered = pool.run(quick_job("after"), timeout=60, queue_timeout=0.1, tenant="a")
    assert "after" in page_texts(rendered.pdf)[0]
    assert pool.stats().workers == 1


@pytest.mark.django_db
@pytest.mark.parametrize(("mark", "death"), DEATHS)
def test_a_request_whose_worker_dies_is_a_422_and_the_next_one_renders(
    production_client, make_pool, served_by, caplog, mark, death
):
    pool = served_by(make_pool())

    response = post(production_client, {"data": [{"content": f"Report {mark}"}]})

    assert response.status_code == 422
    assert response.json() == CRASHED
    assert death in caplog.text  # how it died, for the operator
    assert_free(pool)
    pdf = generate_pdf(production_client, {"data": [{"content": "The next report"}]})
    assert "The next report" in page_texts(pdf)[0]


@pytest.mark.django_db(transaction=True)
def test_an_async_job_whose_worker_dies_ends_failed_with_the_message(
    production_client, make_pool, served_by
):
    pool = served_by(make_pool())
    job = post_async(production_client, {"data": [{"content": crash_worker.SEGFAULT}]}).json()

    assert run_queued_jobs() == ["failed"]

    status = production_client.get(job["statusURL"])
    assert status.status_code == 200
    assert status.json()["status"] == "failed"
    assert status.json()["error"] == CRASHED
    assert_free(pool)


@pytest.mark.django_db
def test_a_worker_that_cannot_start_is_a_503_to_try_again(production_client, make_pool, served_by):
    served_by(make_pool(worker_module="tests.generate.no_such_worker"))

    response = post(production_client, {"data": [{"content": "Report"}]})

    assert response.status_code == 503
    assert response.json() == {
        "name": "ServiceBusyError",
        "message": "The PDF renderer could not be started; try again shortly.",
    }
    assert response["Retry-After"] == str(RenderUnavailable.retry_after_seconds)


def test_a_part_whose_worker_dies_stops_the_other_parts_at_once(make_pool, monkeypatch) -> None:
    # Two parts on two workers: the second dies at once; the first would lay out for ever,
    # asking nothing on the way. It is stopped then and there, not left to run to its deadline
    # holding its worker and the tenant's share: the caller gets the crash.
    pool = make_pool(workers=2)
    warm(pool, 2)  # parts borrow idle workers only
    job = long_table(330, tail=f"<p>{crash_worker.PART_SEGFAULT}</p>")
    ended: list[str] = []  # how each part's job ended
    run = Lease.run

    def spied(self: Lease, job: object, **kwargs: object) -> object:
        try:
            return run(self, job, **kwargs)  # type: ignore[arg-type]
        except BaseException as exc:
            ended.append(type(exc).__name__)
            raise

    monkeypatch.setattr(Lease, "run", spied)

    with pytest.raises(RenderCrashed) as failure:
        pool.render(job, timeout=30, queue_timeout=5, tenant="acme", parts=ONE_PASS)

    assert "killed by signal 11" in failure.value.detail
    assert ended == ["RenderCrashed", "RenderCrashed"]  # the first stopped, not timed out
    assert_free(pool)
    rendered = pool.run(quick_job("next"), timeout=60, queue_timeout=0.1, tenant="acme")
    assert "next" in page_texts(rendered.pdf)[0]
