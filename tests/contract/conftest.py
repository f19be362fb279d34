"""Contract tests: the published clients, unchanged but their base URL, against a live server."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLIENT_PYTHON = ROOT / ".venv-clients" / "bin" / "python"
RUNNER = Path(__file__).with_name("py_client_runner.py")
NODE_RUNNER = Path(__file__).with_name("node") / "run.js"


@pytest.fixture
def python_anvil(live_server: Any, api_key: str) -> Callable[..., dict[str, Any]]:
    """Call python-anvil: ``python_anvil("current_user")`` returns its parsed JSON report."""
    assert CLIENT_PYTHON.exists(), "run `bash scripts/bootstrap.sh test` to install python-anvil"

    def run(command: str, key: str | None = None, **args: Any) -> dict[str, Any]:
        completed = subprocess.run(
            [
                str(CLIENT_PYTHON),
                str(RUNNER),
                live_server.url,
                key or api_key,
                command,
                json.dumps(args),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert completed.returncode == 0, completed.stderr
        return json.loads(completed.stdout.strip().splitlines()[-1])

    return run


@pytest.fixture
def node_anvil(live_server: Any, api_key: str) -> Callable[..., dict[str, Any]]:
    """Call @anvilco/anvil: ``node_anvil("fillPDF", templateId=..., payload=..., out=...)``."""
    assert (NODE_RUNNER.parent / "node_modules" / "@anvilco" / "anvil").exists(), (
        "run `bash scripts/bootstrap.sh test` to install @anvilco/anvil"
    )

    def run(command: str, key: str | None = None, **args: Any) -> dict[str, Any]:
        completed = subprocess.run(
            ["node", str(NODE_RUNNER), live_server.url, key or api_key, command, json.dumps(args)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert completed.returncode == 0, completed.stderr
        report = json.loads(completed.stdout.strip().splitlines()[-1])
        assert "crash" not in report, report["crash"]
        return report

    return run
