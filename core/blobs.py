"""Immutable files in storage, addressed by their SHA-256 (template PDFs, produced documents)."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

from django.conf import settings
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


class ByteBoundedCache:
    """Least-recently-used bytes by key, holding at most ``max_bytes`` in all.

    Counting bytes, not entries, bounds a worker's memory whatever the files' sizes (32 entries
    of 50 MB templates would be 1.6 GB). A value larger than the whole budget is not kept.
    Safe across threads.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        self._items: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> bytes | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: str, value: bytes) -> None:
        if len(value) > self.max_bytes:
            return
        with self._lock:
            previous = self._items.pop(key, None)
            if previous is not None:
                self.size -= len(previous)
            self._items[key] = value
            self.size += len(value)
            while self.size > self.max_bytes:
                _, evicted = self._items.popitem(last=False)
                self.size -= len(evicted)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.size = 0


_cache = ByteBoundedCache(max_bytes=settings.BLOB_CACHE_MB * 1024 * 1024)


def blob_read(path: str, sha: str) -> bytes:
    """The bytes of a stored blob. Their content never changes, so reads are cached in memory,
    by content hash, up to ``BLOB_CACHE_MB`` per process."""
    data = _cache.get(sha)
    if data is None:
        with default_storage.open(path, "rb") as handle:
            data = handle.read()
        if hashlib.sha256(data).hexdigest() != sha:
            raise OSError(f"stored file {path} does not match its checksum")
        _cache.put(sha, data)
    return data
