"""``manage.py mcp`` says what it needs: the API key in MCP_API_KEY and the service's own settings
(database, secrets, storage), read as the service reads them, .env included (issue 49, item 11)."""

from __future__ import annotations

import pytest
from django.core.management import call_command, load_command_class
from django.core.management.base import CommandError

NEEDED = ("MCP_API_KEY", "DATABASE_URL", "SECRET_KEY", "FIELD_ENCRYPTION_KEYS", "DATA_DIR", ".env")


def test_its_help_names_the_environment_it_needs() -> None:
    help_text = load_command_class("mcp_server", "mcp").help

    for name in NEEDED:
        assert name in help_text, name


@pytest.mark.django_db
@pytest.mark.parametrize("key", ["", "dev_not-a-key"])
def test_without_a_valid_key_it_says_what_to_set(monkeypatch, key: str) -> None:
    monkeypatch.setenv("MCP_API_KEY", key)

    with pytest.raises(CommandError) as refused:
        call_command("mcp")

    for name in ("MCP_API_KEY", ".env", "DATABASE_URL", "SECRET_KEY"):
        assert name in str(refused.value), name
