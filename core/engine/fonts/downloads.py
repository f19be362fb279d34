"""Catalog font files: downloaded once into a cache directory, then read from there.

The download itself is an injected callable (the project passes its safe fetcher), so this module
does no networking of its own. Files are validated with fontTools before they are cached and are
written atomically (temporary file + rename in the same directory), so several processes sharing
the cache never see a partial file; at worst two of them download the same file once each.
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from core.engine.fonts.coverage import NotTrueType, check_truetype
from core.engine.fonts.errors import FontUnavailable

Download = Callable[[str], bytes]

# One lock per target file: threads of one process wait for each other's download of the same
# file instead of fetching it twice, while different files download in parallel.
_locks: dict[Path, threading.Lock] = {}
_locks_guard = threading.Lock()


def _lock_for(path: Path) -> threading.Lock:
    with _locks_guard:
        return _locks.setdefault(path, threading.Lock())


def cached_font_file(
    *, family: str, relative_path: str, base_url: str, cache_dir: Path, download: Download
) -> Path:
    """The cached file for a catalog path, downloading and validating it on first use.

    Raises FontUnavailable (naming ``family``) when the download fails or the bytes are not a
    usable TrueType font; nothing is written to the cache then.
    """
    target = cache_dir / relative_path
    if target.is_file():
        return target
    with _lock_for(target):
        if target.is_file():  # another thread finished it while we waited
            return target
        url = base_url.rstrip("/") + "/" + relative_path
        try:
            data = download(url)
        except Exception as exc:  # the fetcher's own errors vary; all mean "not fetched"
            raise FontUnavailable(
                family, f"download of {url} failed: {type(exc).__name__}: {exc}"
            ) from exc
        try:
            check_truetype(data)
        except NotTrueType as exc:
            raise FontUnavailable(family, f"{url} is not a usable TrueType font: {exc}") from exc
        _write_atomically(target, data)
    return target


def _write_atomically(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed below, renamed on success
        dir=target.parent, prefix=f".{target.name}.", suffix=".part", delete=False
    )
    try:
        with handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        Path(handle.name).replace(target)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
