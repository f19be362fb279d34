"""A real S3-protocol server for the tests: moto's standalone server, as a separate process on a
free port. The service only knows it talks S3 to an endpoint (S3_ENDPOINT_URL); any S3-compatible
server (AWS, MinIO, moto) would do.

``s3_server`` (one per test session and xdist worker) starts it; ``s3_storage`` points the
service's storage at a fresh bucket of it for one test, exactly as ``S3_BUCKET`` does in
config/settings.py, and returns a client to look inside the bucket.
"""

from __future__ import annotations

import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest

ACCESS_KEY = "test-access-key"
SECRET_KEY = "test-secret-key"  # noqa: S105 - the test server's, accepted whatever it is
REGION = "us-east-1"


@dataclass(frozen=True)
class S3Server:
    endpoint: str
    process: subprocess.Popen

    def client(self) -> Any:
        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            region_name=REGION,
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
        )

    def environment(self, bucket: str) -> dict[str, str]:
        """The variables that put a service process's storage in ``bucket``."""
        return {
            "S3_BUCKET": bucket,
            "S3_ENDPOINT_URL": self.endpoint,
            "S3_REGION": REGION,
            "AWS_ACCESS_KEY_ID": ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
        }

    def new_bucket(self) -> str:
        bucket = f"docs-{secrets.token_hex(6)}"
        self.client().create_bucket(Bucket=bucket)
        return bucket


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_s3_server(log: Path) -> S3Server:
    port = free_port()
    with log.open("wb") as out:
        process = subprocess.Popen(  # noqa: S603 - this interpreter, moto's server module
            [sys.executable, "-m", "moto.server", "--host", "127.0.0.1", "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"the S3 server did not start: {log.read_text()}") from None
            time.sleep(0.1)
    return S3Server(endpoint=f"http://127.0.0.1:{port}", process=process)


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    server = start_s3_server(tmp_path_factory.mktemp("s3") / "server.log")
    try:
        yield server
    finally:
        server.process.terminate()
        server.process.wait(timeout=10)


@dataclass(frozen=True)
class S3Storage:
    server: S3Server
    bucket: str

    def names(self) -> list[str]:
        listing = self.server.client().list_objects_v2(Bucket=self.bucket)
        return sorted(item["Key"] for item in listing.get("Contents", []))

    def read(self, key: str) -> bytes:
        return self.server.client().get_object(Bucket=self.bucket, Key=key)["Body"].read()


@pytest.fixture
def s3_storage(s3_server: S3Server, settings: Any, monkeypatch: pytest.MonkeyPatch) -> S3Storage:
    """The service's stored files in a new bucket of the S3 server, for this test; stored
    blobs read before are forgotten (the in-memory cache is per process)."""
    from core import blobs

    bucket = s3_server.new_bucket()
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                "bucket_name": bucket,
                "endpoint_url": s3_server.endpoint,
                "region_name": REGION,
                "access_key": ACCESS_KEY,
                "secret_key": SECRET_KEY,
                "file_overwrite": False,
                "default_acl": None,
            },
        },
    }
    monkeypatch.setattr(blobs, "_cache", blobs.ByteBoundedCache(max_bytes=1 << 20))
    return S3Storage(server=s3_server, bucket=bucket)
