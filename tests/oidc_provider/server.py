"""Start the test OpenID provider (django-oauth-toolkit) in its own process on 127.0.0.1."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Provider:
    url: str  # the issuer: http://127.0.0.1:<port>/o

    @property
    def origin(self) -> str:
        return self.url.removesuffix("/o")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def oidc_provider(
    directory: Path,
    *,
    people: list[dict[str, Any]],
    clients: list[dict[str, str]],
    code_seconds: int = 60,
) -> Iterator[Provider]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    key_file = directory / "provider-key.pem"
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.oidc_provider.settings",
        "PYTHONPATH": str(ROOT),
        "OIDC_PROVIDER_DB": str(directory / "provider.sqlite3"),
        "OIDC_PROVIDER_KEY": str(key_file),
        "OIDC_PROVIDER_CODE_SECONDS": str(code_seconds),
    }
    environment.pop("DATABASE_URL", None)
    subprocess.run(
        [
            sys.executable,
            str(Path(__file__).with_name("setup.py")),
            json.dumps({"people": people, "clients": clients}),
        ],
        env=environment,
        cwd=ROOT,
        check=True,
        timeout=120,
    )
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "django", "runserver", f"127.0.0.1:{port}", "--noreload"],
        env=environment,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    provider = Provider(url=f"http://127.0.0.1:{port}/o")
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(  # noqa: S310 - our own process
                    f"{provider.url}/.well-known/openid-configuration", timeout=2
                ):
                    break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("the test OpenID provider did not start") from None
                time.sleep(0.1)
        yield provider
    finally:
        process.terminate()
        process.wait(10)
