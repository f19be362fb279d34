"""System checks of core (run by manage.py's commands: migrate, check, runserver, the worker):
a language of settings.LANGUAGES whose catalogue is missing or stale stops them with a clear
error, so a deployment never serves a signer a page that silently fell back to English."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core import checks
from django.utils.translation import to_locale

from core.catalogues import catalogue_problems


def shipped_locale_dirs() -> list[Path]:
    """The locale directories of the project's own apps (those that translate what people read),
    not of installed packages (which ship their .mo files, and may lack some languages)."""
    return [
        Path(config.path) / "locale"
        for config in apps.get_app_configs()
        if (Path(config.path) / "locale").is_dir()
        and Path(config.path).is_relative_to(settings.BASE_DIR)
        and "site-packages" not in Path(config.path).parts
    ]


def shipped_locales() -> list[str]:
    """Every language but the one the messages are written in, as locale directory names."""
    return [to_locale(code) for code, _name in settings.LANGUAGES if code != settings.LANGUAGE_CODE]


@checks.register()
def catalogues_check(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    return [
        checks.Error(
            problem,
            hint="Compile the catalogues and commit the .mo files: "
            "`python manage.py compilemessages --ignore '.venv*' --ignore node_modules`.",
            id="core.E001",
        )
        for problem in catalogue_problems(shipped_locale_dirs(), shipped_locales())
    ]
