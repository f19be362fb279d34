"""System checks of the seal (run by manage.py's commands: migrate, the task worker, runserver):
a seal key weaker than RSA 2048 or EC P-256 stops them with a clear error, before any document
is sealed with it; a root trusted for document signatures and timestamps alike is named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core import checks

from esign.engine.errors import SealKeyTooWeak, SealKeyUnavailable
from esign.engine.seal_credentials import load_credentials
from esign.sealing.config import DEV_KEY, seal_key, trust_roles


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


@checks.register(checks.Tags.security)
def trust_roles_check(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Names every configured root that vouches for document signers and timestamp authorities
    alike, and every root of SEAL_TRUST_ROOTS_FILE kept to timestamps because its certificates
    show it is a timestamp authority's (esign.engine.trust_roles)."""
    try:
        both, kept_to_timestamps = trust_roles()
    except (OSError, ValueError) as error:
        return [
            checks.Warning(
                f"The trusted roots cannot be read: {error}",
                hint="SEAL_TRUST_ROOTS_FILE and SEAL_TSA_TRUST_ROOTS_FILE name PEM files.",
                id="esign.W002",
            )
        ]
    messages: list[checks.CheckMessage] = [
        checks.Warning(
            f"The root {_name(root)} is trusted for document signatures and for timestamps "
            "alike (it is in SEAL_TRUST_ROOTS_FILE and SEAL_TSA_TRUST_ROOTS_FILE): any "
            "certificate it issues, a timestamp authority's included, can sign documents.",
            hint="List a timestamp authority's root in SEAL_TSA_TRUST_ROOTS_FILE only.",
            id="esign.W003",
        )
        for root in both
    ]
    messages += [
        checks.Info(
            f"The root {_name(root)} in SEAL_TRUST_ROOTS_FILE is a timestamp authority's (a "
            "certificate of the file under it is for time stamping): it vouches for timestamps "
            "only, not for document signers.",
            hint="To trust it for document signatures too, set SEAL_TSA_TRUST_ROOTS_FILE and "
            "list it in both files.",
            id="esign.I001",
        )
        for root in kept_to_timestamps
    ]
    return messages


def _name(certificate: Any) -> str:
    return f"{certificate.subject.human_friendly!r} (SHA-256 {certificate.sha256.hex()[:16]}...)"
