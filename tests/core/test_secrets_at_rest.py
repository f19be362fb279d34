"""Secrets in logs and at rest: printed emails hide their links' tokens when DEBUG is off,
webhook secrets and tokens are encrypted in the database, and the data directory and the SQLite
database are their owner's alone."""

from __future__ import annotations

import io
import stat
from pathlib import Path

import pytest
from django.core import mail
from django.core.management import call_command
from django.db import connection

from accounts.models import Organization
from core.mail import RedactedConsoleEmailBackend
from tests.processes import printed_setting
from webhooks.models import WebhookEndpoint, WebhookSecret
from webhooks.services import endpoint_get, secrets_current

SECRET_KEY = "k" * 40


def _settings_value(tmp_path: Path, expression: str, **env: str) -> str:
    unset = ("SECRET_KEY", "DEBUG", "DATABASE_URL")
    return printed_setting(tmp_path, expression, unset=unset, **env)


def test_with_debug_off_printed_emails_hide_their_links(tmp_path: Path) -> None:
    backend = _settings_value(
        tmp_path, "settings.EMAIL_BACKEND", DEBUG="false", SECRET_KEY=SECRET_KEY
    )
    assert backend == "core.mail.RedactedConsoleEmailBackend"
    # With DEBUG on, emails are kept in the database and read in the admin, not printed.
    debug_backend = _settings_value(tmp_path, "settings.EMAIL_BACKEND", DEBUG="true")
    assert debug_backend == "core.mail.DatabaseEmailBackend"

    stream = io.StringIO()
    link = "https://sign.example.com/api/etch/verify/AbC123?token=live-token-VALUE_42"
    message = mail.EmailMessage(
        "Please sign: Agreement", f"Ada,\n\nOpen this link:\n\n{link}\n", to=["ada@example.com"]
    )
    RedactedConsoleEmailBackend(stream=stream).send_messages([message])

    printed = stream.getvalue()
    assert "live-token-VALUE_42" not in printed
    assert "https://sign.example.com/api/etch/verify/AbC123?[link hidden" in printed
    assert "Please sign: Agreement" in printed
    assert "ada@example.com" in printed


def _raw(table: str, column: str, pk: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {column} FROM {table} WHERE id = %s", [pk])  # noqa: S608
        return cursor.fetchone()[0]


def test_webhook_secrets_and_tokens_are_encrypted_in_the_database(
    organization: Organization,
) -> None:
    endpoint = endpoint_get(organization=organization)
    secret = secrets_current(organization=organization)[0]

    raw_token = _raw("webhooks_webhookendpoint", "token", endpoint.pk)
    raw_secret = _raw("webhooks_webhooksecret", "secret", secret.pk)
    assert raw_token.startswith("fernet:")
    assert endpoint.token not in raw_token
    assert raw_secret.startswith("fernet:")
    assert secret.secret not in raw_secret
    assert secret.secret.startswith("whsec_")
    assert WebhookEndpoint.objects.get(pk=endpoint.pk).token == endpoint.token
    assert WebhookSecret.objects.get(pk=secret.pk).secret == secret.secret


def test_plain_rows_and_old_keys_are_encrypted_again(organization: Organization, settings) -> None:
    endpoint = endpoint_get(organization=organization)
    token = endpoint.token
    with connection.cursor() as cursor:  # a row written before the field was encrypted
        cursor.execute(
            "UPDATE webhooks_webhookendpoint SET token = %s WHERE id = %s", [token, endpoint.pk]
        )
    assert WebhookEndpoint.objects.get(pk=endpoint.pk).token == token

    old_keys = list(settings.FIELD_ENCRYPTION_KEYS)
    settings.FIELD_ENCRYPTION_KEYS = ["a-new-key-" + "n" * 30, *old_keys]
    call_command("reencrypt_fields", stdout=io.StringIO())
    assert _raw("webhooks_webhookendpoint", "token", endpoint.pk).startswith("fernet:")

    settings.FIELD_ENCRYPTION_KEYS = ["a-new-key-" + "n" * 30]  # the old key dropped
    assert WebhookEndpoint.objects.get(pk=endpoint.pk).token == token
    settings.FIELD_ENCRYPTION_KEYS = old_keys  # a value the old key cannot open is an error
    with pytest.raises(Exception, match="FIELD_ENCRYPTION_KEYS"):
        WebhookEndpoint.objects.get(pk=endpoint.pk)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_data_directory_and_the_database_are_the_owners_alone(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh"
    _settings_value(fresh, "1", DATABASE_URL=f"sqlite:///{fresh / 'db.sqlite3'}")
    assert _mode(fresh) == 0o700
    assert _mode(fresh / "db.sqlite3") == 0o600

    # An existing directory and database made readable by everyone are tightened at start.
    fresh.chmod(0o755)
    (fresh / "db.sqlite3").chmod(0o644)
    _settings_value(fresh, "1", DATABASE_URL=f"sqlite:///{fresh / 'db.sqlite3'}")
    assert _mode(fresh) == 0o700
    assert _mode(fresh / "db.sqlite3") == 0o600
    assert _settings_value(fresh, "oct(settings.FILE_UPLOAD_PERMISSIONS)") == "0o600"
