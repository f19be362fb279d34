"""Fixtures for fill tests: a way to call the endpoint (``demo_template`` is in tests/conftest.py)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from django.test import Client

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
