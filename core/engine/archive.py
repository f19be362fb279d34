"""Zips of PDFs for people to download: clean, unique file names and ordinary file modes.

Pure Python (no Django); the time written into the entries is the caller's.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterable
from datetime import datetime

# Anything but letters, digits, dot, underscore, space and hyphen: path separators, quotes
# (a name also goes into a double-quoted Content-Disposition), control characters.
_UNSAFE = re.compile(r"[^A-Za-z0-9._ -]+")
NAME_LIMIT = 120
# Read and write for the owner, read for everyone: what an unzipped download should be (a bare
# ZipFile.writestr gives 0600, which locks out the other people the file is shared with).
ENTRY_MODE = 0o644


def safe_filename(name: str, default: str) -> str:
    """``name`` fit for a file name in a zip or a Content-Disposition header."""
    return (_UNSAFE.sub("_", name).strip(" .") or default)[:NAME_LIMIT]


def clean_filename(name: str, default: str) -> str:
    """``name`` as people like to read a file name: what ``safe_filename`` would replace is
    dropped instead (``Demo: onboarding`` -> ``Demo onboarding``) and spaces collapsed."""
    return safe_filename(" ".join(_UNSAFE.sub(" ", name).split()), default)


class PdfZip:
    """A zip being built of PDFs; each name is made safe and unique (``name-2.pdf``...).

    ``reserved``: names kept for entries added later (the audit trail), so a document that
    happens to share one gets the numbered name instead.
    """

    def __init__(self, *, when: datetime, reserved: Iterable[str] = ()) -> None:
        self._buffer = io.BytesIO()
        self._zip = zipfile.ZipFile(self._buffer, "w", zipfile.ZIP_DEFLATED)
        self._date_time = when.timetuple()[:6]
        self._reserved = {name.lower() for name in reserved}
        self._taken: set[str] = set()

    def add(self, name: str, data: bytes, *, default: str = "document.pdf") -> str:
        """Add ``data`` as a PDF named after ``name``; returns the name it got."""
        name = safe_filename(name, default)
        if not name.lower().endswith(".pdf"):
            name += ".pdf"
        stem, number, candidate = name[:-4], 1, name
        while candidate.lower() in self._taken or candidate.lower() in self._reserved:
            number += 1
            candidate = f"{stem}-{number}.pdf"
        return self._write(candidate, data)

    def add_file(self, name: str, data: bytes, *, extension: str, folder: str) -> str:
        """Add ``data`` (any kind of file, not only a PDF) as ``<folder>/<name>``, the name made
        safe and unique and ending in ``extension`` (".jpg"); returns the entry's name."""
        stem = safe_filename(name, "file")
        if stem.lower().endswith(extension.lower()):
            stem = stem[: -len(extension)]
        stem = stem[: NAME_LIMIT - len(extension)].rstrip(" .") or "file"
        number, candidate = 1, f"{folder}/{stem}{extension}"
        while candidate.lower() in self._taken:
            number += 1
            candidate = f"{folder}/{stem}-{number}{extension}"
        return self._write(candidate, data)

    def add_reserved(self, name: str, data: bytes) -> str:
        """Add the entry a name was reserved for, under exactly that name."""
        self._reserved.discard(name.lower())
        return self._write(name, data)

    def _write(self, name: str, data: bytes) -> str:
        info = zipfile.ZipInfo(name, date_time=self._date_time)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = (0o100000 | ENTRY_MODE) << 16  # a regular file, rw-r--r--
        self._zip.writestr(info, data)
        self._taken.add(name.lower())
        return name

    def finish(self) -> bytes:
        self._zip.close()
        return self._buffer.getvalue()
