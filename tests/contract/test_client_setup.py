"""docs/clients.md gives integrators the lines that point each published client at this
service; the contract tests run both clients with exactly those lines (py_client_runner.py,
node/run.js), so what the page says is what is tested."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from django.test import Client

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "clients.md"
HERE = Path(__file__).parent
# The values an integrator fills in; the runners take them from their arguments instead.
VALUES = re.compile(r"^(BASE_URL|API_KEY) = |^const (BASE_URL|API_KEY) = ")


def doc_block(heading: str, language: str) -> list[str]:
    """The first ``language`` code block under ``## heading``, without the value lines."""
    section = DOC.read_text().split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    block = section.split(f"```{language}\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip() and not VALUES.match(line)]


def marked_lines(path: Path, name: str) -> list[str]:
    text = path.read_text()
    begin, end = f"docs/clients.md, {name}: begin", f"docs/clients.md, {name}: end"
    inner = text.split(begin, 1)[1].split(end, 1)[0].splitlines()[1:-1]
    return [line.strip() for line in inner]


def code_lines(path: Path) -> set[str]:
    return {line.strip() for line in path.read_text().splitlines()}


def test_python_anvil_runs_with_the_documented_lines() -> None:
    documented = doc_block("python-anvil", "python")
    imports = [line for line in documented if line.startswith(("from ", "import "))]
    setup = [line for line in documented if line not in imports]
    runner = HERE / "py_client_runner.py"

    assert setup == marked_lines(runner, "python-anvil")
    assert set(imports) <= code_lines(runner)
    assert len(setup) == 4  # two class attributes, the module's GraphQL address, the client


def test_anvilco_anvil_runs_with_the_documented_lines() -> None:
    documented = doc_block("@anvilco/anvil", "js")
    runner = HERE / "node" / "run.js"

    assert documented[1:] == marked_lines(runner, "@anvilco/anvil")
    assert documented[0] in code_lines(runner)  # the require


def test_the_readme_links_the_client_page() -> None:
    assert "(docs/clients.md)" in (ROOT / "README.md").read_text()


def test_the_start_page_shows_the_documented_lines_with_its_base_url(
    db: None, settings: Any
) -> None:
    settings.PUBLIC_BASE_URL = "https://pdf.example.com"
    page = html.unescape(Client().get("/", HTTP_ACCEPT="text/html").content.decode())

    for heading, language in (("python-anvil", "python"), ("@anvilco/anvil", "js")):
        for line in doc_block(heading, language):
            assert line in page, line
    assert 'BASE_URL = "https://pdf.example.com"' in page
    assert "const BASE_URL = 'https://pdf.example.com'" in page
    assert "docs/clients.md" in page
