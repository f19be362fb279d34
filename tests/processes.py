"""Fresh interpreters that tests start: the settings read under a given environment, the
production server (gunicorn as docs/configuration.md runs it) and background workers. Each start
is written once here so that what the tests vary (environment, command, files) stands out."""

from __future__ import annotations

import contextlib
import http.client
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_with_settings(
    tmp_path: Path,
    code: str,
    *,
    unset: Iterable[str] = ("SECRET_KEY", "DEBUG", "DATABASE_URL"),
    check: bool = True,
    **env: str,
) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a new interpreter whose settings come from this process's environment
    without ``unset`` (so that the settings' own defaults show), plus ``env``."""
    skipped = set(unset)
    environment = {k: v for k, v in os.environ.items() if k not in skipped}
    environment |= {"DATA_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "config.settings", **env}
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=check,
    )


def printed_setting(tmp_path: Path, expression: str, *, unset: Iterable[str], **env: str) -> str:
    """What ``print(expression)`` shows after ``django.setup()`` (``settings`` in scope)."""
    code = f"import django; django.setup(); from django.conf import settings; print({expression})"
    return run_with_settings(tmp_path, code, unset=unset, **env).stdout.strip()


# --- the production server ------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def production_environment(data: Path, **extra: str) -> dict[str, str]:
    """The environment docs/configuration.md gives a production server: DEBUG off, a secret key,
    a fresh SQLite database in ``data`` (nothing of this process's Django or database settings)."""
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))},
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "false",
        "SECRET_KEY": "s" * 50,
        "DATA_DIR": str(data),
        "DATABASE_URL": f"sqlite:///{data / 'db.sqlite3'}",
        "LOG_LEVEL": "WARNING",
        "RATE_LIMIT_PRODUCTION": "100000",
        **extra,
    }


def run_setup(script: str, *, cwd: Path, environment: dict[str, str], timeout: float) -> str:
    """Run a setup script (migrate, create keys) the way an operator would; its stdout."""
    setup = subprocess.run(
        [sys.executable, "-c", script],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert setup.returncode == 0, setup.stderr[-3000:]
    return setup.stdout


@contextlib.contextmanager
def gunicorn(
    *, cwd: Path, environment: dict[str, str], port: int, stdout: Path, stderr: Path | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """gunicorn with gunicorn.conf.py on loopback, once /healthz answers 200 (stderr goes with
    stdout unless named); terminated at the end."""
    with stdout.open("wb") as out, contextlib.ExitStack() as files:
        err = files.enter_context(stderr.open("wb")) if stderr else subprocess.STDOUT
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "-b", f"127.0.0.1:{port}"],
            cwd=cwd,
            env=environment,
            stdout=out,
            stderr=err,
        )
    try:
        deadline = time.monotonic() + 60
        while not _healthy(port):
            assert process.poll() is None, (stderr or stdout).read_text()
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.2)
        yield process
    finally:
        process.terminate()
        process.wait(timeout=60)


def _healthy(port: int) -> bool:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        connection.request("GET", "/healthz")
        return connection.getresponse().status == 200
    except OSError:
        return False
    finally:
        connection.close()


# --- background workers ---------------------------------------------------------------------------


def worker_environment(database_url: str, tmp_path: Path, **extra: str) -> dict[str, str]:
    """A worker on the test's database (``shared_database_url``) with the database task queue."""
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "DATA_DIR": str(tmp_path / "data"),
        "TASKS_BACKEND": "database",
        "LOG_FORMAT": "text",
        **extra,
    }


@contextlib.contextmanager
def started_processes() -> Iterator[Callable[[list[str], dict[str, str], Path], subprocess.Popen]]:
    """A ``start(arguments, environment, log)`` that runs ``manage.py <arguments>`` in the project
    (stdout and stderr in ``log``); whatever still runs at the end is killed."""
    processes: list[subprocess.Popen] = []

    def start(arguments: list[str], environment: dict[str, str], log: Path) -> subprocess.Popen:
        with log.open("w") as out:
            process = subprocess.Popen(
                [sys.executable, "manage.py", *arguments],
                cwd=ROOT,
                env=environment,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        processes.append(process)
        return process

    try:
        yield start
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)
