"""The scripts' module graph: the public pages (signing, webforms) share modules with the admin's
template editor only through static/common/ (``#common/...``), never by importing the editor's own modules, so the
editor can change without breaking a signer's page."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# import ... from "x", export ... from "x", import "x", import("x"): relative, or a shared module
# by its import map name ("#common/dom.js", core.importmap)
SPECIFIER = re.compile(r"""(?:\bfrom\s*|\bimport\s*\(?\s*)["']([./#][^"']*)["']""")


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
        specifier[1:]
        if specifier.startswith("#")
        else posixpath.normpath(posixpath.join(posixpath.dirname(name), specifier))
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


def test_a_shared_module_is_named_through_the_import_map_never_by_a_relative_path() -> None:
    """A relative path out of an app's static folder resolves only once collectstatic has merged
    them; "#common/..." resolves in the source tree too (package.json's imports, for Node) and
    on the page (its import map)."""
    shared = ("common/", "embed/")
    crossing = {
        name: specifier
        for name, script in shipped_scripts().items()
        for specifier in SPECIFIER.findall(script.read_text())
        if specifier.startswith(".")
        and posixpath.normpath(posixpath.join(posixpath.dirname(name), specifier)).startswith(
            shared
        )
        and not name.startswith(shared)
    }
    assert crossing == {}
