"""What the seal's key (esign.sealing.config, ``SEAL_*``) and the signer CA's
(esign.sealing.signer_ca, ``SIGNER_CA_*``) share in being read from the settings: an HSM key
named by ``<prefix>_PKCS11_*``, an optional PEM file, and a development key's directory made
once for every process.

Which key is opened first stays the callers' business (esign.sealing.signer_signatures opens
the signer CA's before the seal's): nothing here opens a session.
"""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path

from django.conf import settings

from esign.engine.seal_credentials import Pkcs11Key


def pkcs11_key_from_settings(prefix: str, chain_pem: bytes) -> Pkcs11Key | None:
    """The HSM key that ``<prefix>_PKCS11_MODULE``, ``_TOKEN_LABEL``, ``_KEY_LABEL``,
    ``_CERT_LABEL`` and ``_PIN`` name, with its issuers' ``chain_pem``; None when no module is
    set (the key is not in an HSM)."""
    module = getattr(settings, f"{prefix}_PKCS11_MODULE")
    if not module:
        return None
    return Pkcs11Key(
        module=module,
        token_label=getattr(settings, f"{prefix}_PKCS11_TOKEN_LABEL"),
        key_label=getattr(settings, f"{prefix}_PKCS11_KEY_LABEL"),
        cert_label=getattr(settings, f"{prefix}_PKCS11_CERT_LABEL"),
        pin=getattr(settings, f"{prefix}_PKCS11_PIN"),
        chain_pem=chain_pem,
    )


def read_optional(path: str) -> bytes:
    """The file a setting names; empty when the setting is."""
    return Path(path).read_bytes() if path else b""


def make_directory_once(directory: Path, files: dict[str, bytes]) -> None:
    """``directory`` holding ``files`` (name: content, readable by this user only), built in a
    directory of its own and renamed into place: of processes starting together (a server and a
    worker), the first to rename wins and the others use its files."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    building = directory.parent / f".{directory.name}-{secrets.token_hex(4)}"
    building.mkdir(mode=0o700)
    for name, data in files.items():
        descriptor = os.open(building / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
    try:
        building.rename(directory)
    except OSError:  # another process was first: use its files
        shutil.rmtree(building, ignore_errors=True)
