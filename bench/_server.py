"""Shared benchmark plumbing: a throwaway data directory, Django set up on it, a real server.

Figures are printed, never asserted: machines are shared and noisy, so compare ratios taken in
one run rather than absolute numbers between runs.
"""

from __future__ import annotations

import base64
import http.client
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def prepare_environment(
    database_url: str | None = None, *, prefix: str = "bench-", **more: str
) -> Path:
    """Point settings at a fresh temporary data directory (and a SQLite database in it, unless
    ``database_url`` names another, empty one) and set Django up on it. ``more``: other
    settings of the bench's own (``TASKS_BACKEND="database"``), in this process's environment
    like the rest, so the servers and workers it starts have them too."""
    data_dir = Path(tempfile.mkdtemp(prefix=prefix))
    os.environ.update(
        {
            "DATA_DIR": str(data_dir),
            "DATABASE_URL": database_url or f"sqlite:///{data_dir / 'bench.sqlite3'}",
            "DEBUG": "false",
            "SECRET_KEY": secrets.token_urlsafe(40),
            "LOG_LEVEL": "WARNING",
            # Limits stay on (their cost is part of every request) but never throttle the bench.
            "RATE_LIMIT_DEVELOPMENT": "1000000",
            "RATE_LIMIT_PRODUCTION": "1000000",
            "DJANGO_SETTINGS_MODULE": "config.settings",
            **more,
        }
    )
    sys.path.insert(0, str(ROOT))
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    return data_dir


def pdf_api_headers() -> dict[str, str]:
    """Headers of a JSON request answered with a PDF, with the production key (no watermark) of
    a new organization; after :func:`prepare_environment`."""
    from accounts.models import ApiKey
    from accounts.services import api_key_create, organization_create

    organization = organization_create(slug="bench", name="Bench Inc.")
    _, raw_key = api_key_create(organization=organization, kind=ApiKey.Kind.PRODUCTION)
    credentials = base64.b64encode(f"{raw_key}:".encode()).decode()
    return {
        "Authorization": f"Basic {credentials}",
        "Content-Type": "application/json",
        "Accept": "application/pdf",
    }


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """gunicorn serving the project on loopback, as in production (gunicorn.conf.py, which
    gunicorn reads from the repository root, with one worker process)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "config.wsgi",
                "-b",
                f"127.0.0.1:{self.port}",
                "-w",
                "1",
                "--log-level",
                "warning",
            ],
            cwd=ROOT,
            env=os.environ.copy(),
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                status, _ = self.request("GET", "/healthz")
                if status == 200:
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start")

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def peak_rss_mb(self) -> float:
        """The worker's peak resident memory (the highest of gunicorn's processes)."""
        peaks = []
        for pid in [self.process.pid, *_children(self.process.pid)]:
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        peaks.append(int(line.split()[1]) / 1024)
            except OSError:
                continue
        return max(peaks or [0.0])

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def timings(function: Callable[[], object], repeat: int, warmup: int = 3) -> list[float]:
    for _ in range(warmup):
        function()
    out = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        out.append((time.perf_counter() - started) * 1000)
    return out


def round_robin(
    cases: dict[str, Callable[[], object]], repeat: int, warmup: int = 3
) -> dict[str, list[float]]:
    """Milliseconds of each case, the cases run in turn so that load from elsewhere on the
    machine hits them all alike (ratios between them taken in one run are then fair)."""
    for _ in range(warmup):
        for function in cases.values():
            function()
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(repeat):
        for name, function in cases.items():
            started = time.perf_counter()
            function()
            samples[name].append((time.perf_counter() - started) * 1000)
    return samples


def summary(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95
