"""Runs the pages' pure modules' unit tests (tests/js/*.test.js) with Node's own test runner,
giving them the server's field types and webform catalogue as they are today, so that a change
on either side that the other does not follow fails here. The modules import the shared ones by
their import map names (``#common/...``), which Node resolves through package.json's imports."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from core.engine.field_types import field_types_json
from workflows.builder.catalogue import catalogue_json

ROOT = Path(__file__).resolve().parents[2]


def test_the_pure_modules_pass_their_node_tests(tmp_path: Path) -> None:
    types = tmp_path / "field_types.json"
    types.write_text(json.dumps(field_types_json()))
    catalogue = tmp_path / "catalogue.json"
    catalogue.write_text(json.dumps(catalogue_json()))
    tests = sorted(str(path) for path in (ROOT / "tests" / "js").glob("*.test.js"))
    assert len(tests) >= 2

    run = subprocess.run(
        ["node", "--test", *tests],
        cwd=ROOT,
        env={
            "PATH": os.environ["PATH"],
            "FIELD_TYPES_JSON": str(types),
            "BUILDER_CATALOGUE_JSON": str(catalogue),
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert "# fail 0" in run.stdout
    assert "# pass 12" in run.stdout  # every test ran (a module that fails to load runs none)
