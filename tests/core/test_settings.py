"""Production refuses to start without a real SECRET_KEY; development needs no server."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_settings(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {
        k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEBUG", "DATABASE_URL")
    }
    environment.update(
        {"DATA_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "config.settings", **env}
    )
    code = "import django; django.setup(); from django.conf import settings; print(settings.DATABASES['default']['ENGINE'])"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    "secret", [None, "short", "insecure-development-key-do-not-use-in-production"]
)
def test_production_refuses_to_start_without_a_real_secret_key(
    tmp_path: Path, secret: str | None
) -> None:
    env = {"DEBUG": "false"} | ({"SECRET_KEY": secret} if secret else {})
    result = load_settings(tmp_path, **env)

    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_production_starts_with_a_real_secret_key(tmp_path: Path) -> None:
    result = load_settings(tmp_path, DEBUG="false", SECRET_KEY="x" * 50)

    assert result.returncode == 0, result.stderr


def test_the_default_database_is_sqlite_in_the_data_directory(tmp_path: Path) -> None:
    result = load_settings(tmp_path)

    assert result.stdout.strip() == "django.db.backends.sqlite3"
