"""Production refuses to start without a real SECRET_KEY; development needs no server."""

import subprocess
from pathlib import Path

import pytest

from tests.processes import run_with_settings


def load_settings(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    code = (
        "import django; django.setup(); from django.conf import settings; "
        "print(settings.DATABASES['default']['ENGINE'])"
    )
    return run_with_settings(tmp_path, code, check=False, **env)


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
