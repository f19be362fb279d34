"""A real ``manage.py db_worker`` process seals a packet completed in this process: the task
enqueued on commit is found, run, and the download that follows is sealed."""

from __future__ import annotations

import io
import signal
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from esign.models import Packet
from esign.sealing.config import trust_roots
from tests.core.test_tasks import (  # noqa: F401 - fixtures shared with the task tests
    shared_database_url,
    start_worker,
    wait_until,
)
from tests.esign.test_seal_packets import validate, zip_url


@pytest.mark.slow
def test_a_worker_process_seals_the_completed_packet(
    shared_database_url: str,  # noqa: F811 - the fixture imported above
    start_worker: Callable[[str], subprocess.Popen],  # noqa: F811
    complete,  # noqa: F811
    api_client: Client,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    # The worker reads the files this process stored and seals with the same development key.
    monkeypatch.setenv("MEDIA_ROOT", str(settings.MEDIA_ROOT))
    monkeypatch.setenv("SEAL_DEV_DIR", str(settings.SEAL_DEV_DIR))
    created, packet = complete()
    assert api_client.get(zip_url(created)).status_code == 503

    worker = start_worker(shared_database_url)
    wait_until(
        lambda: Packet.objects.get(pk=packet.pk).seal_status == "sealed",
        worker=worker,
        log=tmp_path / "worker.log",
    )
    worker.send_signal(signal.SIGTERM)
    # A graceful stop ends the task in hand first; the wait guards against a hang (at load
    # 15 a stop took longer than 10 s), it measures nothing.
    assert worker.wait(timeout=120) == 0

    response = api_client.get(zip_url(created))
    assert response.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert archive.namelist() == ["agreement.pdf", "audit-trail.pdf"]
    for name in archive.namelist():
        status = validate(archive.read(name), trust_roots())
        assert (status.intact, status.trusted) == (True, True), name
