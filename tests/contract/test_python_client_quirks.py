"""Five things of python-anvil 5.1.2 that its setup lines do not change, as docs/clients.md
says them, each with the documented lines that work: its command line ignores the lines (a file
that sets them first runs it here), ``environment="prod"`` still paces at 2 calls a second (the
documented replacement paces at 40), ``request_fully_qualified()`` cannot work against any
host (``anvil.client.request`` fetches a full URL), ``forge_submit`` with ``webhook_url`` raises
``TypeError`` (the documented mutation sends it), and the command line's ``generate-etch-url``
prints None (its ``gql-query`` prints the link). The client runs from .venv-clients."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from accounts.models import Organization, User
from esign.models import Signer
from templates_app.models import PdfTemplate
from tests.contract.conftest import CLIENT_PYTHON
from tests.contract.test_client_setup import DOC, HERE, marked_lines
from tests.contract.test_python_client_esign import payload as packet_payload
from workflows.demo import demo_workflow_create
from workflows.models import Submission

pytestmark = pytest.mark.django_db(transaction=True)


def python_blocks() -> list[str]:
    """The python code blocks of docs/clients.md's python-anvil section, in order."""
    section = DOC.read_text().split("\n## python-anvil\n", 1)[1].split("\n## ", 1)[0]
    return [part.split("```", 1)[0] for part in section.split("```python\n")[1:]]


def documented(block: str) -> list[str]:
    return [line.strip() for line in block.splitlines() if line.strip()]


def run_client(args: list[str], api_key: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CLIENT_PYTHON), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "ANVIL_API_KEY": api_key},
    )


def documented_file(tmp_path: Path, name: str, marker: str, base_url: str, api_key: str) -> Path:
    """The python block of the section holding ``marker``, runnable here: the setup block's
    lines first for a block that uses ``anvil``, the values of this server in place of the
    page's."""
    blocks = python_blocks()
    [block] = [b for b in blocks if marker in b]
    code = block if "from python_anvil.cli import cli" in block else blocks[0] + "\n" + block
    code = code.replace("http://127.0.0.1:8000", base_url).replace("your API key", api_key)
    file = tmp_path / name
    file.write_text(code)
    return file


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


def test_forge_submit_with_a_webhook_url_raises_and_the_documented_mutation_sends_it(
    python_anvil,
    live_server: Any,
    api_key: str,
    organization: Organization,
    demo_template: PdfTemplate,
    tmp_path: Path,
) -> None:
    workflow = demo_workflow_create(organization=organization, template=demo_template)
    forge = workflow.webforms.get(slug="about-you").eid
    hook = "https://example.com/hooks/forms"

    raised = python_anvil(
        "forge_submit",
        payload={"forge_eid": forge, "payload": {"email": "ada@example.com"}, "webhook_url": hook},
    )
    assert raised["type"] == "TypeError"
    assert "HttpUrl is not JSON serializable" in raised["error"]
    assert not Submission.objects.exists()  # raised before anything was sent

    file = documented_file(tmp_path, "forge.py", "ForgeSubmitPayload(", live_server.url, api_key)
    code = file.read_text().replace("FORGE_EID", repr(forge), 1)
    file.write_text(code + "\nimport json\nprint(json.dumps(result))\n")
    completed = run_client([str(file)], api_key)

    assert completed.returncode == 0, completed.stderr
    answer = json.loads(completed.stdout.strip().splitlines()[-1])
    weld_data = answer["forgeSubmit"]["weldData"]["eid"]
    assert Submission.objects.get(eid=weld_data).webhook_url == hook


def test_the_command_lines_generate_etch_url_prints_none_and_gql_query_prints_the_link(
    python_anvil,
    live_server: Any,
    api_key: str,
    demo_template: PdfTemplate,
    tmp_path: Path,
) -> None:
    created = python_anvil("create_etch_packet", payload=packet_payload(demo_template.eid))
    signer_eid = created["result"]["createEtchPacket"]["documentGroup"]["signers"][0]["eid"]
    signer = Signer.objects.get(eid=signer_eid)
    here = documented_file(tmp_path, "anvil_here.py", "from python_anvil.cli", live_server.url, "")

    printed = run_client(
        [str(here), "generate-etch-url", "-c", "user-1", "-s", signer_eid], api_key
    )
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout.strip().splitlines()[-1] == "Signing URL is: None"
    assert signer.tokens.count() == 1  # a link was made, and lost

    section = DOC.read_text().split("\n## python-anvil\n", 1)[1].split("\n## ", 1)[0]
    [command] = [b for b in section.split("```sh\n")[1:] if "gql-query" in b]
    query = re.search(r"-q '([^']+)'", command)[1]  # type: ignore[index]
    asked = run_client(
        [str(here), "gql-query", "-q", query.replace("<signer eid>", signer_eid)], api_key
    )

    assert asked.returncode == 0, asked.stderr
    link = re.search(r"'generateEtchSignURL': '([^']+)'", asked.stdout)[1]  # type: ignore[index]
    assert f"/api/etch/verify/{signer_eid}?token=" in link
    assert signer.tokens.count() == 2
