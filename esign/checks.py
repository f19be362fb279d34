"""System checks of the seal (run by manage.py's commands: migrate, the task worker, runserver):
a seal key weaker than RSA 2048 or EC P-256 stops them with a clear error, before any document
is sealed with it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core import checks

from esign.engine.errors import SealKeyTooWeak, SealKeyUnavailable
from esign.engine.seal_credentials import load_credentials
from esign.sealing.config import DEV_KEY, seal_key


@checks.register(checks.Tags.security)
def seal_key_check(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    if not settings.SEAL_PKCS11_MODULE and not (Path(settings.SEAL_DEV_DIR) / DEV_KEY).exists():
        return []  # the development key is made on first use, RSA 2048
    try:
        load_credentials(seal_key())
    except SealKeyTooWeak as error:
        return [checks.Error(str(error), id="esign.E001")]
    except SealKeyUnavailable as error:
        return [
            checks.Warning(
                f"{error} Packets are sealed once it can be used.",
                hint=error.log_detail,
                id="esign.W001",
            )
        ]
    return []
