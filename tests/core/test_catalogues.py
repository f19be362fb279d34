"""The translation catalogues ship compiled (issue 35, item 1): each app's .mo is committed beside
its .po and holds exactly what the .po says, and a missing or stale one stops manage.py's
commands (migrate, check, runserver) with a clear error instead of serving English."""

from __future__ import annotations

import gettext
import shutil
import subprocess
from pathlib import Path

import pytest
from django.core import checks

from core import checks as core_checks
from core.catalogues import catalogue_problems, mo_messages, po_messages

ROOT = Path(__file__).resolve().parents[2]


def test_every_shipped_catalogue_is_committed_and_compiled_from_its_po() -> None:
    locale_dirs = core_checks.shipped_locale_dirs()
    assert sorted(d.relative_to(ROOT).as_posix() for d in locale_dirs) == [
        "builders/locale",
        "esign/locale",
        "workflows/locale",
    ]
    assert catalogue_problems(locale_dirs, core_checks.shipped_locales()) == []
    tracked = subprocess.run(
        ["git", "ls-files", "*/locale/*/LC_MESSAGES/django.mo"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    expected = [
        f"{d.relative_to(ROOT).as_posix()}/{locale}/LC_MESSAGES/django.mo"
        for d in locale_dirs
        for locale in core_checks.shipped_locales()
    ]
    assert sorted(expected) == sorted(tracked)


def test_the_mo_reader_agrees_with_gettext_and_msgfmt(tmp_path: Path) -> None:
    po = ROOT / "esign/locale/es/LC_MESSAGES/django.po"
    compiled = tmp_path / "django.mo"
    subprocess.run(["msgfmt", "-o", str(compiled), str(po)], check=True)

    messages = mo_messages(compiled.read_bytes())
    assert messages == po_messages(po.read_text("utf-8"))
    with compiled.open("rb") as file:
        read = gettext.GNUTranslations(file)
    assert messages["Packet created"] == read.gettext("Packet created") == "Paquete creado"
    assert messages["{count} document\x00{count} documents"].split("\x00")[1] == read.ngettext(
        "{count} document", "{count} documents", 2
    )


def copy_catalogue(tmp_path: Path) -> Path:
    locale_dir = tmp_path / "locale"
    shutil.copytree(ROOT / "esign/locale/es", locale_dir / "es")
    return locale_dir


def test_a_po_edited_without_recompiling_is_a_stale_catalogue(tmp_path: Path) -> None:
    locale_dir = copy_catalogue(tmp_path)
    po = locale_dir / "es/LC_MESSAGES/django.po"
    po.write_text(po.read_text("utf-8").replace('"Paquete creado"', '"Paquete hecho"'), "utf-8")

    [problem] = catalogue_problems([locale_dir], ["es"])

    assert problem == (
        f"{po.with_suffix('.mo')} is stale: 1 message(s) differ from django.po, "
        "e.g. 'Packet created'."
    )


def test_a_missing_mo_or_po_is_named(tmp_path: Path) -> None:
    locale_dir = copy_catalogue(tmp_path)
    (locale_dir / "es/LC_MESSAGES/django.mo").unlink()

    assert catalogue_problems([locale_dir], ["es", "fr"]) == [
        f"{locale_dir}/es/LC_MESSAGES/django.mo is missing: django.po was never compiled.",
        f"{locale_dir}/fr/LC_MESSAGES/django.po is missing: fr has no catalogue here.",
    ]


def test_a_stale_catalogue_stops_the_commands_with_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locale_dir = copy_catalogue(tmp_path)
    (locale_dir / "es/LC_MESSAGES/django.mo").unlink()
    monkeypatch.setattr(core_checks, "shipped_locale_dirs", lambda: [locale_dir])
    monkeypatch.setattr(core_checks, "shipped_locales", lambda: ["es"])

    [error] = [m for m in checks.run_checks() if m.id == "core.E001"]

    assert error.level == checks.ERROR
    assert "django.mo is missing" in error.msg
    assert "compilemessages" in error.hint
