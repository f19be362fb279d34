"""The worker pools in /metrics (config.metrics.POOLS): the upload-check pool (bulk-send
spreadsheets, signers' attachments) beside the render pool, each read from this process's pool
(core.pools.pool_stats) at a scrape."""

from __future__ import annotations

import pytest
from django.test import Client

from esign.upload_checks import upload_pool
from tests.core.prometheus_text import parse_exposition

TOKEN = "pool-metrics-token"  # noqa: S105


@pytest.fixture
def metrics_on(settings) -> None:
    settings.METRICS_TOKEN = TOKEN


def pool_samples(prefix: str) -> dict[str, float]:
    response = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    families = parse_exposition(response.content.decode())
    return {
        name: family.samples[0].value
        for name, family in families.items()
        if name.startswith(prefix)
    }


def test_the_upload_check_pool_is_in_metrics_while_a_worker_is_held(
    db: None, metrics_on: None
) -> None:
    with upload_pool().lease(queue_timeout=30) as leases:
        held = pool_samples("docautomation_upload_pool_")
        worker_pid = leases[0].worker.process.pid

    assert worker_pid > 0
    assert held["docautomation_upload_pool_workers"] == 1
    assert held["docautomation_upload_pool_busy"] == 1
    assert held["docautomation_upload_pool_waiting"] == 0
    assert held["docautomation_upload_pool_resident_bytes"] > 1_000_000  # a live Python process

    released = pool_samples("docautomation_upload_pool_")
    assert released["docautomation_upload_pool_workers"] == 1
    assert released["docautomation_upload_pool_busy"] == 0


def test_both_pools_are_described(db: None, metrics_on: None) -> None:
    response = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    families = parse_exposition(response.content.decode())
    for pool in ("render", "upload"):
        for figure in ("workers", "busy", "waiting", "resident_bytes"):
            family = families[f"docautomation_{pool}_pool_{figure}"]
            assert family.type == "gauge"
