"""The scripts' module graph: the public pages (signing, webforms) share modules with the admin's
template editor only through static/common/, never by importing the editor's own modules, so the
editor can change without breaking a signer's page."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# import ... from "x", export ... from "x", import "x", import("x")
SPECIFIER = re.compile(r"""(?:\bfrom\s*|\bimport\s*\(?\s*)["']([./][^"']*)["']""")


def shipped_scripts() -> dict[str, Path]:
    """Every script by its name under /static/: the apps' static/ folders and the project's
    share one namespace, as collectstatic merges them."""
    roots = [ROOT / "static", *ROOT.glob("*/static")]
    return {
        script.relative_to(root).as_posix(): script
        for root in roots
        for script in root.glob("**/*.js")
        if script.relative_to(root).parts[0] != "vendor"
    }


def imports_of(name: str, script: Path) -> list[str]:
    """The names under /static/ of the modules ``script`` imports."""
    return [
        posixpath.normpath(posixpath.join(posixpath.dirname(name), specifier))
        for specifier in SPECIFIER.findall(script.read_text())
    ]


def test_only_the_editor_imports_the_editors_modules() -> None:
    scripts = shipped_scripts()
    crossing = {
        name: target
        for name, script in scripts.items()
        if not name.startswith("editor/")
        for target in imports_of(name, script)
        if target.startswith("editor/")
    }
    assert crossing == {}


def test_every_imported_module_exists() -> None:
    scripts = shipped_scripts()
    imported = {target for name, script in scripts.items() for target in imports_of(name, script)}
    assert {"common/dom.js", "common/page-box.js", "editor/state.js"} <= imported
    assert sorted(imported - set(scripts)) == []
