"""Three things of python-anvil 5.1.2 that its setup lines do not change, as docs/clients.md
says them, each with the documented lines that work: its command line ignores the lines (a file
that sets them first runs it here), ``environment="prod"`` still paces at 2 calls a second (the
documented replacement paces at 40), and ``request_fully_qualified()`` cannot work against any
host (``anvil.client.request`` fetches a full URL). The client runs from .venv-clients."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from accounts.models import User
from tests.contract.conftest import CLIENT_PYTHON
from tests.contract.test_client_setup import DOC, HERE, marked_lines

pytestmark = pytest.mark.django_db(transaction=True)


def python_blocks() -> list[str]:
    """The python code blocks of docs/clients.md's python-anvil section, in order."""
    section = DOC.read_text().split("\n## python-anvil\n", 1)[1].split("\n## ", 1)[0]
    return [part.split("```", 1)[0] for part in section.split("```python\n")[1:]]


def documented(block: str) -> list[str]:
    return [line.strip() for line in block.splitlines() if line.strip()]


def test_the_command_line_runs_here_through_the_documented_file(
    live_server: Any, api_key: str, owner: User, tmp_path: Path
) -> None:
    [script] = [block for block in python_blocks() if "from python_anvil.cli import cli" in block]
    assert 'BASE_URL = "http://127.0.0.1:8000"\n' in script
    file = tmp_path / "anvil_here.py"
    file.write_text(script.replace("http://127.0.0.1:8000", live_server.url))

    completed = subprocess.run(
        [str(CLIENT_PYTHON), str(file), "current-user"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "ANVIL_API_KEY": api_key},
    )

    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.startswith("User data:")
    assert f"'eid': '{owner.eid}'" in completed.stdout


def test_prod_paces_at_two_calls_a_second_and_the_documented_replacement_at_forty(
    python_anvil,
) -> None:
    [block] = [block for block in python_blocks() if "limits(calls=40" in block]
    code = [line for line in documented(block) if not line.startswith(("import ", "from "))]
    assert code == marked_lines(HERE / "py_client_runner.py", "pacing")

    report = python_anvil("pacing", environment="prod")

    assert report["result"] == {
        "as_installed": {"calls": 2, "period": 1},
        "replaced": {"calls": 40, "period": 1},
    }


def test_request_fully_qualified_fails_and_the_client_request_fetches_the_url(
    python_anvil, live_server: Any
) -> None:
    [block] = [block for block in python_blocks() if "anvil.client.request" in block]
    assert documented(block) == marked_lines(HERE / "py_client_runner.py", "full URL")
    url = f"{live_server.url}/api/openapi.json"

    refused = python_anvil("request_fully_qualified", url=url)
    fetched = python_anvil("client_request", url=url)

    assert refused["type"] == "InvalidSchema"
    assert f"'/{url}'" in refused["error"]
    assert fetched["result"]["status"] == 200
    assert fetched["result"]["type"].startswith("application/json")
    assert fetched["result"]["bytes"] > 1000
