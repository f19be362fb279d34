"""The static files as the run command serves them: collectstatic with the hashed storage
(core.staticstorage), then WhiteNoise, compressed and cached for good."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.template.loader import render_to_string
from django.test import Client

pytestmark = pytest.mark.slow

HASHED = {"BACKEND": "core.staticstorage.HashedStaticFilesStorage"}


@pytest.fixture
def collected(settings: Any, tmp_path: Path) -> Path:
    settings.STATIC_ROOT = tmp_path / "static"
    settings.STORAGES = {**settings.STORAGES, "staticfiles": HASHED}
    settings.DEBUG = True  # as the run command: the hashed names are used all the same
    call_command("collectstatic", "--noinput", verbosity=0)
    return settings.STATIC_ROOT


def test_every_static_file_is_collected_under_a_hashed_name(collected: Path) -> None:
    paths = json.loads((collected / "staticfiles.json").read_text())["paths"]
    assert re.fullmatch(r"esign/sign\.[0-9a-f]{12}\.js", paths["esign/sign.js"])
    signing = (collected / paths["esign/sign.js"]).read_text()
    # The module graph is cached as a whole: imports name the hashed files too.
    assert f'from "./{paths["esign/documents.js"].split("/")[1]}"' in signing
    # A shared module is named through the page's import map, which names its hashed file.
    assert 'from "#common/dom.js"' in signing
    assert (collected / (paths["esign/sign.js"] + ".gz")).exists()
    # A vendored file's reference to a map that is not shipped does not stop collectstatic.
    assert "vendor/graphiql/graphiql.min.css" in paths


def test_pages_name_the_hashed_files_and_the_server_caches_them_for_good(
    collected: Path, db: Any
) -> None:
    html = render_to_string("esign/error.html", {"event": {"errorType": "tokenInvalid"}})
    [script] = re.findall(r'src="(/static/esign/error\.[0-9a-f]{12}\.js)"', html)
    [import_map] = re.findall(r'<script type="importmap">(.*?)</script>', html)
    paths = json.loads((collected / "staticfiles.json").read_text())["paths"]
    assert (
        json.loads(import_map)["imports"]["#common/dom.js"] == f"/static/{paths['common/dom.js']}"
    )
    client = Client()  # a new handler: WhiteNoise reads the collected files now
    response = client.get(script, HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 200
    assert response["Cache-Control"] == "max-age=315360000, public, immutable"
    assert response["Content-Encoding"] == "gzip"
    assert response["Content-Type"].startswith("text/javascript")
    plain = client.get("/static/esign/error.js")
    assert plain.status_code == 200
    assert "immutable" not in plain["Cache-Control"]
