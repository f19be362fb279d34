"""Several processes of the service, as several machines run them: gunicorn web processes and
``manage.py worker`` processes, each with its own DATA_DIR, sharing PostgreSQL, an S3 bucket
and a Redis server (the rate limiter's counters). Used by the multi-process test and
bench/several_processes.py."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, log: Path, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if process.poll() is not None:
                raise RuntimeError(f"{log.name} ended:\n{log.read_text()[-3000:]}") from None
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"{log.name} did not start:\n{log.read_text()[-3000:]}"
                ) from None
            time.sleep(0.2)


@dataclass
class Cluster:
    """The processes started; ``environment`` is what every one of them shares."""

    directory: Path
    environment: dict[str, str]
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)
    ports: dict[str, int] = field(default_factory=dict)

    def _start(self, name: str, command: list[str], extra: dict[str, str]) -> subprocess.Popen:
        data = self.directory / name
        data.mkdir(parents=True, exist_ok=True)
        log = self.directory / f"{name}.log"
        env = {**self.environment, "DATA_DIR": str(data), **extra}
        with log.open("wb") as out:
            process = subprocess.Popen(  # noqa: S603 - this interpreter, the project's commands
                command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
            )
        self.processes[name] = process
        return process

    def start_redis(self) -> int:
        port = free_port()
        process = self._start(
            "redis",
            ["redis-server", "--port", str(port), "--save", "", "--appendonly", "no"],
            {},
        )
        wait_for_port(port, process, self.directory / "redis.log")
        self.environment["RATE_LIMIT_CACHE_URL"] = f"redis://127.0.0.1:{port}/0"
        return port

    def start_web(self, name: str) -> str:
        port = free_port()
        command = [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py"]
        process = self._start(name, [*command, "-b", f"127.0.0.1:{port}"], {})
        wait_for_port(port, process, self.directory / f"{name}.log")
        self.ports[name] = port
        return f"http://127.0.0.1:{port}"

    def start_worker(self, name: str) -> subprocess.Popen:
        command = [sys.executable, "manage.py", "worker", "--no-reload", "--no-startup-delay"]
        return self._start(name, [*command, "--queue-name", "*", "--worker-id", name], {})

    def kill(self, name: str) -> None:
        process = self.processes[name]
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()

    def logs(self) -> str:
        return "\n".join(
            f"--- {log.name}\n{log.read_text()[-2000:]}" for log in self.directory.glob("*.log")
        )


def call(
    base: str,
    method: str,
    path: str,
    *,
    key: str = "",
    body: Any = None,
    headers: dict[str, str] | None = None,
    timeout: float = 60,
) -> tuple[int, bytes]:
    """One HTTP request; (status, body). Connection errors raise OSError."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if key:
        import base64

        request.add_header(
            "Authorization", "Basic " + base64.b64encode(f"{key}:".encode()).decode()
        )
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def graphql(base: str, key: str, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    status, body = call(
        base, "POST", "/graphql", key=key, body={"query": query, "variables": variables}
    )
    answer = json.loads(body)
    if status != 200 or answer.get("errors"):
        raise AssertionError(f"{status}: {answer}")
    return answer["data"]


def shared_environment(database_url: str, s3: dict[str, str], **extra: str) -> dict[str, str]:
    """What every process of the cluster is started with: production settings, one database,
    one bucket."""
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    return {
        **keep,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "false",
        "DATABASE_URL": database_url,
        "LOG_LEVEL": "WARNING",
        "LOG_FORMAT": "text",
        "TASKS_BACKEND": "database",
        "RATE_LIMIT_PRODUCTION": "100000",
        **s3,
        **extra,
    }
