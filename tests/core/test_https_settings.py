"""Served over https, the settings mark cookies secure, send HSTS and trust the proxy's scheme."""

from __future__ import annotations

import json
from pathlib import Path

from django.test import Client

from tests.processes import run_with_settings

NAMES = [
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "SECURE_HSTS_SECONDS",
    "SECURE_PROXY_SSL_HEADER",
]


def settings_for(tmp_path: Path, **env: str) -> dict[str, object]:
    code = (
        "import json, django; django.setup(); from django.conf import settings; "
        f"print(json.dumps({{n: getattr(settings, n) for n in {NAMES!r}}}))"
    )
    result = run_with_settings(
        tmp_path, code, unset=("SECRET_KEY", "DEBUG", "PUBLIC_BASE_URL"), **env
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_an_https_base_url_makes_cookies_secure_and_sends_hsts(tmp_path: Path) -> None:
    values = settings_for(
        tmp_path, DEBUG="false", SECRET_KEY="s" * 50, PUBLIC_BASE_URL="https://pdf.example.com"
    )

    assert values == {
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "SECURE_HSTS_SECONDS": 31_536_000,
        "SECURE_PROXY_SSL_HEADER": ["HTTP_X_FORWARDED_PROTO", "https"],
    }


def test_an_http_base_url_keeps_development_defaults(tmp_path: Path) -> None:
    values = settings_for(tmp_path, PUBLIC_BASE_URL="http://127.0.0.1:8000")

    assert values == {
        "SESSION_COOKIE_SECURE": False,
        "CSRF_COOKIE_SECURE": False,
        "SECURE_HSTS_SECONDS": 0,
        "SECURE_PROXY_SSL_HEADER": None,
    }


def test_a_request_the_proxy_marks_https_gets_hsts(db, settings) -> None:
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_HSTS_SECONDS = 31_536_000

    response = Client().get("/healthz", HTTP_X_FORWARDED_PROTO="https")

    assert response["Strict-Transport-Security"] == "max-age=31536000"
