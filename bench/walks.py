"""Issue 37's walks, printed whole: how many files a reader enters following a signer's finish
(``signer_complete``) and a webform save (``webform_save``, through forgeSubmit and through a
page that starts a signing step), how often they return to a file already left, and how often
they climb to a higher layer. tests/walks.py says how a walk is counted; the tests that run the
calls (tests/esign/test_walks.py, tests/workflows/test_walks.py) hold the budgets.

    python bench/walks.py [--path]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ["tests/esign/test_walks.py", "tests/workflows/test_walks.py"]


def main() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "0", "-q", "-s", "-p", "no:cacheprovider", *TESTS],
        cwd=ROOT,
        env={**os.environ, "WALKS_PRINT": "1"},
        capture_output=True,
        text=True,
    )
    for line in run.stdout.splitlines():
        if "WALK {" not in line:
            continue
        try:  # a failing test's traceback quotes the line that writes the walk
            walk = json.loads(line[line.index("WALK {") + 5 :])
        except json.JSONDecodeError:
            continue
        print(
            f"{walk['entry']:<16} stays {walk['stays']:>3}  files {walk['files']:>3}  "
            f"returns {walk['returns']:>3}  climbs {walk['climbs']:>2}"
        )
        if "--path" in sys.argv:
            doors = walk["doors"]  # the function each stay starts in
            print("    " + " > ".join(f"{p}:{d}" for p, d in zip(walk["path"], doors, strict=True)))
    print("tests:", run.stdout.strip().splitlines()[-1] if run.stdout.strip() else run.stderr)


if __name__ == "__main__":
    main()
