"""Imports between the modules of one app are made at the top of the importing module.

An import inside a function is how a cycle gets hidden: Python no longer fails on it, and the
reader no longer sees it. import-linter's contract "No import cycles inside an app"
(pyproject.toml) sees imports inside functions too and refuses any cycle; this test keeps the
late imports themselves to ``AppConfig.ready()`` (Django's place for imports that need the apps
loaded) and the ones with a reason, listed below (none now: a service enqueues its task by name,
core.tasks_registry, so no task module has to name its service late). The source is read with
``ast``: nothing is imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = (
    "config",
    "core",
    "accounts",
    "templates_app",
    "fill",
    "generate",
    "esign",
    "workflows",
    "webhooks",
)

# (importing file, imported module) -> why it is imported inside a function.
LATE_IMPORTS: dict[tuple[str, str], str] = {}


def _late_imports(path: Path, package: str) -> list[tuple[str, str]]:
    """(imported module, enclosing function) of each import inside a function of ``path``
    that names a module of ``package``."""
    found: list[tuple[str, str]] = []

    def visit(node: ast.AST, function: str | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(child, child.name)
                continue
            if function is not None and isinstance(child, ast.Import | ast.ImportFrom):
                # Relative imports are refused by ruff (TID252): every module is named whole.
                names = (
                    [alias.name for alias in child.names]
                    if isinstance(child, ast.Import)
                    else [child.module or ""]
                )
                found.extend((n, function) for n in names if n.split(".")[0] == package)
            visit(child, function)

    visit(ast.parse(path.read_text(), filename=str(path)), None)
    return found


def test_modules_of_one_app_import_each_other_at_the_top() -> None:
    late = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            name = path.relative_to(ROOT).as_posix()
            for module, function in _late_imports(path, package):
                if name.endswith("/apps.py") and function == "ready":
                    continue
                late[(name, module)] = function

    unexplained = sorted(key for key in late if key not in LATE_IMPORTS)
    assert unexplained == [], (
        f"import these at the top of the module, or explain them: {unexplained}"
    )
    stale = sorted(key for key in LATE_IMPORTS if key not in late)
    assert stale == [], f"no longer imported late: {stale}"


def test_the_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    module = tmp_path / "sealing.py"
    module.write_text(
        "from esign.models import Packet\n"
        "def f() -> None:\n"
        "    if True:\n"
        "        from esign.tasks import packet_seal_task\n"
        "        from core.blobs import blob_save\n"
        "class C:\n"
        "    def g(self) -> None:\n"
        "        import esign.emails\n"
    )

    assert _late_imports(module, "esign") == [("esign.tasks", "f"), ("esign.emails", "g")]
