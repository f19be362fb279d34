"""Immutable files in storage, addressed by their SHA-256 (template PDFs, produced documents)."""

from __future__ import annotations

import hashlib
from functools import lru_cache

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage


def blob_save(*, prefix: str, data: bytes, suffix: str = ".pdf") -> tuple[str, str]:
    """Store ``data`` once under ``prefix``; return (storage path, sha256)."""
    sha = hashlib.sha256(data).hexdigest()
    path = f"{prefix}/{sha}{suffix}"
    if not default_storage.exists(path):
        path = default_storage.save(path, ContentFile(data))
    return path, sha


def blob_delete(path: str) -> None:
    default_storage.delete(path)


@lru_cache(maxsize=32)
def _read_cached(path: str, sha: str) -> bytes:
    with default_storage.open(path, "rb") as handle:
        data = handle.read()
    if hashlib.sha256(data).hexdigest() != sha:
        raise OSError(f"stored file {path} does not match its checksum")
    return data


def blob_read(path: str, sha: str) -> bytes:
    """The bytes of a stored blob; the content never changes, so reads are cached in memory."""
    return _read_cached(path, sha)
