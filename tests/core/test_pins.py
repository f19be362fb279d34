"""Every third-party package the project's own Python imports is pinned with ``==``.

The imports are read with ``ast`` from every Python file of the project (the apps, bench/,
scripts/, tests/ and the top-level files), at any depth (inside functions and ``TYPE_CHECKING``
blocks too). The standard library and the project's own modules are dropped; each remaining
top-level name is mapped to the distribution that installs it (importlib.metadata), and that
distribution must be pinned, its name compared as PEP 503 normalises it:

- by runtime code in requirements.txt, or requirements-nodeps.txt (installed with it, without its
  declared dependencies, by scripts/bootstrap.sh for runs and tests alike);
- by tests/ and bench/ in those or in requirements-dev.txt.

A package that is only there as another's dependency can change version under us when that one
is upgraded; a direct import is a direct dependency.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROJECT_DIRS = (
    "accounts",
    "builders",
    "config",
    "core",
    "esign",
    "fill",
    "generate",
    "idempotency",
    "mcp_server",
    "templates_app",
    "webhooks",
    "workflows",
    "scripts",
    "bench",
    "tests",
)
# Code that runs only under the tests or the benchmarks: it may be pinned in requirements-dev.txt.
DEV_DIRS = ("tests", "bench")
RUNTIME_PINS = ("requirements.txt", "requirements-nodeps.txt")
DEV_PINS = (*RUNTIME_PINS, "requirements-dev.txt")
# Run by the published client's own interpreter (.venv-clients), whose packages are pinned by
# tests/contract/requirements-clients.txt, not by the project's requirements.
OTHER_INTERPRETER = {"tests/contract/py_client_runner.py"}
# typeshed's stdlib helper module: exists for type checkers only, imported under TYPE_CHECKING.
STDLIB_STUBS = {"_typeshed"}
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*==")


def normalise(name: str) -> str:
    """A distribution's name as PEP 503 compares it."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned(files: Iterable[str], root: Path = ROOT) -> set[str]:
    """The (normalised) names of the distributions pinned with == in ``files``."""
    names = set()
    for name in files:
        for line in (root / name).read_text().splitlines():
            match = PIN.match(line.strip())
            if match:
                names.add(normalise(match[1]))
    return names


def python_files(root: Path = ROOT) -> Iterator[Path]:
    yield from sorted(root.glob("*.py"))
    for directory in PROJECT_DIRS:
        yield from sorted((root / directory).rglob("*.py"))


def own_modules(root: Path = ROOT) -> set[str]:
    """The top-level names the project's own code is imported by."""
    return {*PROJECT_DIRS, *(path.stem for path in root.glob("*.py"))} | {
        path.parent.name for path in root.glob("*/__init__.py")
    }


def imported(path: Path) -> Iterator[str]:
    """The top-level names of the modules ``path`` imports absolutely."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.partition(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.partition(".")[0]


def is_sibling(path: Path, name: str) -> bool:
    """A script run by its path (bench/*.py: no __init__.py beside it) imports the modules in its
    own folder by their bare names (sys.path[0] is that folder)."""
    folder = path.parent
    return not (folder / "__init__.py").exists() and (
        (folder / f"{name}.py").exists() or (folder / name / "__init__.py").exists()
    )


def unpinned(root: Path = ROOT) -> list[str]:
    """One line for each third-party distribution imported but not pinned where it must be,
    naming the distribution and a file that imports it."""
    distributions = importlib.metadata.packages_distributions()
    own = own_modules(root)
    pins = {False: pinned(RUNTIME_PINS, root), True: pinned(DEV_PINS, root)}
    problems: dict[str, str] = {}  # by import name: the runtime file first (walked first)
    for path in python_files(root):
        relative = path.relative_to(root).as_posix()
        if relative in OTHER_INTERPRETER:
            continue
        dev = relative.partition("/")[0] in DEV_DIRS
        where = " or ".join(DEV_PINS if dev else RUNTIME_PINS)
        for name in imported(path):
            if name in sys.stdlib_module_names or name in STDLIB_STUBS or name in own:
                continue
            if is_sibling(path, name):
                continue
            providers = distributions.get(name)
            if not providers:
                problems.setdefault(
                    name,
                    f"{name!r} (imported by {relative}) is neither the standard library, the "
                    "project's own nor an installed distribution",
                )
            elif not {normalise(provider) for provider in providers} & pins[dev]:
                problems.setdefault(
                    name,
                    f"{' or '.join(providers)} (imported as {name!r} by {relative}) is not "
                    f"pinned with == in {where}",
                )
    return sorted(problems.values())


def test_every_imported_package_is_pinned() -> None:
    problems = unpinned()
    assert not problems, "\n".join(problems)


def test_the_imports_read_include_the_packages_the_project_is_built_on() -> None:
    """The walk sees the project's files and maps their imports: an empty walk would pass."""
    distributions = importlib.metadata.packages_distributions()
    names = {name for path in python_files() for name in imported(path)}
    assert {"django", "rest_framework", "pikepdf", "pytest"} <= names
    assert "Django" in distributions["django"]
    assert normalise("Django") in pinned(RUNTIME_PINS)
    assert normalise("pytest") in pinned(DEV_PINS) - pinned(RUNTIME_PINS)


def test_a_runtime_import_pinned_only_for_the_tests_is_named_with_its_file(
    tmp_path: Path,
) -> None:
    for name in DEV_PINS:
        (tmp_path / name).write_text("")
    (tmp_path / "requirements.txt").write_text("Django==5.2.19\n# pytest==1\n")
    (tmp_path / "requirements-dev.txt").write_text("-r requirements.txt\npytest==9.2.0\n")
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "__init__.py").write_text("import django\nfrom core import models\n")
    (tmp_path / "core" / "runner.py").write_text("def run():\n    import pytest\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("import pytest\nimport os.path\n")

    assert unpinned(tmp_path) == [
        "pytest (imported as 'pytest' by core/runner.py) is not pinned with == in "
        "requirements.txt or requirements-nodeps.txt"
    ]
