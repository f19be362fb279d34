"""The pages' import map: the folders of the project's ``static/`` that every app's scripts share
(``common/``, ``embed/``) are imported by a name, ``import { h } from "#common/dom.js"``, not by
a relative path that only resolves once collectstatic has merged the apps' static folders.

Each page that loads modules puts the map in its ``<head>`` (``{% import_map %}``, before any
module or ``modulepreload``), mapping each shared file to its URL (its hashed name in
production). The pages' Content-Security-Policy allows no inline script: the map is allowed by
its SHA-256 (``import_map_csp_source``, added by ``core.middleware``). Node, running the pure
modules' tests, resolves the same names through package.json's ``imports``.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json

from django.contrib.staticfiles import finders
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.templatetags.static import static

SHARED_FOLDERS = ("common", "embed")


def _shared_scripts() -> list[str]:
    """The shared folders' scripts by their names under /static/ (``common/dom.js``)."""
    names = set()
    for finder in finders.get_finders():
        for path, _storage in finder.list(ignore_patterns=[]):
            name = path.replace("\\", "/")
            if name.endswith(".js") and name.split("/", 1)[0] in SHARED_FOLDERS:
                names.add(name)
    return sorted(names)


@functools.cache
def import_map_text() -> str:
    """The ``<script type="importmap">`` element's text: made once a process (the static files
    and their hashed names do not change while it runs). ``</`` is escaped so that no name can
    end the element."""
    imports = {f"#{name}": static(name) for name in _shared_scripts()}
    return json.dumps({"imports": imports}, sort_keys=True).replace("</", "<\\/")


@functools.cache
def import_map_csp_source() -> str:
    """The CSP source that allows exactly the map's text: ``'sha256-...'``."""
    digest = hashlib.sha256(import_map_text().encode()).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


@receiver(setting_changed)
def _static_settings_changed(*, setting: str, **kwargs: object) -> None:
    """Tests that change where static files are, or their storage, get a map made anew."""
    if setting in {"STORAGES", "STATIC_URL", "STATICFILES_DIRS", "INSTALLED_APPS"}:
        import_map_text.cache_clear()
        import_map_csp_source.cache_clear()
