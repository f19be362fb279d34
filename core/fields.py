"""Model fields shared by every app."""

import base64
import hashlib
from collections.abc import Iterable
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import models

from core.eids import EID_LENGTH, new_eid


class EidField(models.CharField):
    """The public id of a row: 20 random base62 characters, set once."""

    def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        kwargs.setdefault("max_length", EID_LENGTH)
        kwargs.setdefault("unique", True)
        kwargs.setdefault("editable", False)
        kwargs.setdefault("default", new_eid)
        super().__init__(*args, **kwargs)


# A stored value that starts with this is ciphertext; anything else is a row written before the
# field was encrypted, read as it is until it is saved again (the migration re-saves them all).
ENCRYPTED_PREFIX = "fernet:"


def _fernet() -> MultiFernet:
    """One Fernet key per FIELD_ENCRYPTION_KEYS entry: the first encrypts, every one decrypts
    (so a key can be rotated by putting the new one first)."""
    keys = [key for key in settings.FIELD_ENCRYPTION_KEYS if key]
    return MultiFernet(
        [
            Fernet(base64.urlsafe_b64encode(hashlib.sha256(b"field:" + key.encode()).digest()))
            for key in keys
        ]
    )


class EncryptedTextField(models.TextField):
    """Text that is encrypted in the database (Fernet: AES-128-CBC with an HMAC) and plain in
    Python. For shared secrets the service must read back to use (webhook signing secrets and
    tokens); a value the service only compares is hashed instead (API keys, signing tokens).
    It cannot be searched or filtered on."""

    def from_db_value(self, value: str | None, expression: Any, connection: Any) -> str | None:
        if value is None or not value.startswith(ENCRYPTED_PREFIX):
            return value
        try:
            return _fernet().decrypt(value[len(ENCRYPTED_PREFIX) :].encode()).decode()
        except InvalidToken:
            raise ImproperlyConfigured(
                f"A value of {self.model.__name__}.{self.name} does not open with any key of"
                " FIELD_ENCRYPTION_KEYS (was the key changed?)."
            ) from None

    def get_prep_value(self, value: Any) -> Any:
        value = super().get_prep_value(value)
        if value is None:
            return value
        return ENCRYPTED_PREFIX + _fernet().encrypt(value.encode()).decode()


# The bytes form of ENCRYPTED_PREFIX, for binary fields.
ENCRYPTED_BYTES_PREFIX = ENCRYPTED_PREFIX.encode()


class EncryptedBinaryField(models.BinaryField):
    """Bytes encrypted in the database as EncryptedTextField's text is (the same keys), and
    plain in Python: for kept answers that may carry secrets (an idempotent request's answer
    holds a signing link and its token, which are otherwise stored only hashed)."""

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> bytes | None:
        if value is None:
            return None
        value = bytes(value)
        if not value.startswith(ENCRYPTED_BYTES_PREFIX):
            return value  # written before the field was encrypted
        try:
            return _fernet().decrypt(value[len(ENCRYPTED_BYTES_PREFIX) :])
        except InvalidToken:
            raise ImproperlyConfigured(
                f"A value of {self.model.__name__}.{self.name} does not open with any key of"
                " FIELD_ENCRYPTION_KEYS (was the key changed?)."
            ) from None

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        if value is not None and not prepared:
            value = ENCRYPTED_BYTES_PREFIX + _fernet().encrypt(bytes(value))
        return super().get_db_prep_value(value, connection, prepared)


def encrypted_fields_resave(models_to_check: Iterable[type[models.Model]]) -> int:
    """Write every encrypted field of these models again: rows stored in plain text before
    (or with an older key of FIELD_ENCRYPTION_KEYS) are encrypted with the first key.
    Returns the number of rows written."""
    written = 0
    for model in models_to_check:
        names = [
            f.name
            for f in model._meta.concrete_fields
            if isinstance(f, EncryptedTextField | EncryptedBinaryField)
        ]
        if not names:
            continue
        for row in model._base_manager.all().iterator():
            model._base_manager.filter(pk=row.pk).update(
                **{name: getattr(row, name) for name in names}
            )
            written += 1
    return written
