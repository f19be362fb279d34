"""Stored blobs: read back by hash, cached in memory within a byte budget."""

from __future__ import annotations

import pytest

from core import blobs
from core.blobs import ByteBoundedCache, blob_read, blob_save


def test_the_cache_keeps_at_most_its_byte_budget() -> None:
    cache = ByteBoundedCache(max_bytes=100)
    for key in "abcdef":
        cache.put(key, key.encode() * 30)

    assert cache.size == 90  # three of 30 bytes; the oldest were evicted
    assert [k for k in "abcdef" if cache.get(k) is not None] == ["d", "e", "f"]


def test_the_least_recently_used_goes_first() -> None:
    cache = ByteBoundedCache(max_bytes=60)
    cache.put("a", b"a" * 30)
    cache.put("b", b"b" * 30)
    assert cache.get("a") is not None  # a is now the most recent
    cache.put("c", b"c" * 30)

    assert cache.get("b") is None
    assert cache.get("a") == b"a" * 30


def test_a_value_over_the_budget_is_not_cached() -> None:
    cache = ByteBoundedCache(max_bytes=10)
    cache.put("big", b"x" * 11)

    assert cache.get("big") is None
    assert cache.size == 0


def test_blob_read_checks_the_hash_and_caches(db: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blobs, "_cache", ByteBoundedCache(max_bytes=1000))
    path, sha = blob_save(prefix="test", data=b"%PDF-1.7 content")

    assert blob_read(path, sha) == b"%PDF-1.7 content"
    assert blobs._cache.size == len(b"%PDF-1.7 content")
    with pytest.raises(OSError, match="does not match its checksum"):
        blob_read(path, "0" * 64)
