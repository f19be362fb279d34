"""Fixtures for fill tests: a way to call the endpoint (``demo_template`` is in tests/conftest.py),
and the fill engine's context without a database or catalog fonts."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from django.test import Client

from core.engine.fonts import FontLibrary
from fill.engine import FillContext
from templates_app.models import PdfTemplate


@pytest.fixture
def fill(api_client: Client) -> Callable[..., object]:
    """POST a JSON body to the fill endpoint of a template; returns the response."""

    def call(
        template: PdfTemplate | str, body: object, query: str = "", client: Client | None = None
    ):
        eid = template if isinstance(template, str) else template.eid
        return (client or api_client).post(
            f"/api/v1/fill/{eid}.pdf{query}", data=json.dumps(body), content_type="application/json"
        )

    return call


def spec_field(template: PdfTemplate, field_id: str) -> dict:
    version = template.versions.filter(number__isnull=False).order_by("-number").first()
    return next(f for f in version.spec["fields"] if f["id"] == field_id)


# The fetcher tests' local HTTP server (real sockets on 127.0.0.1), for imageFile URLs.
from tests.core.engine.conftest import fetch_http_server  # noqa: E402, F401


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory) -> FillContext:
    def no_download(url: str) -> bytes:
        raise OSError("no catalog fonts in these tests")

    fonts = FontLibrary(cache_dir=Path(tmp_path_factory.mktemp("fonts")), download=no_download)
    return FillContext(fonts=fonts, load_image=lambda url: None)
