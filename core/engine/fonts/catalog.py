"""The shipped list of web font catalog (Google Fonts) families and their TrueType files.

data/google-fonts.json.gz is made by scripts/build_font_catalog.py from the npm package
google-font-metadata (see data/README.md). Its shape:

    {"meta": {"source", "generated", "base_url", ...},
     "families": {"Fira Sans": {"dir": "s/firasans/v18/",
                                "regular": [["latin", "va9E4k..."], ["latin-ext", ...], ...],
                                "bold": [...], "italic": [...], "bold_italic": [...]}}}

A slot is present only when the family has a real face for it; each slot lists one file per
unicode subset (Google serves every subset as its own file), Latin first. A file's URL is
base_url + dir + token + ".ttf".
"""

from __future__ import annotations

import functools
import gzip
import json
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

DEFAULT_CATALOG_PATH = Path(__file__).resolve().parent / "data" / "google-fonts.json.gz"
SLOTS = ("regular", "bold", "italic", "bold_italic")


def slot_name(*, bold: bool, italic: bool) -> str:
    return SLOTS[bold + 2 * italic]


# Nearest available slot when a family lacks the one asked for. Style goes before weight, as in
# CSS font matching: bold italic without a bold italic face is the italic, not the upright bold.
SLOT_FALLBACKS = {
    "regular": ("regular", "bold", "italic", "bold_italic"),
    "bold": ("bold", "regular", "bold_italic", "italic"),
    "italic": ("italic", "bold_italic", "regular", "bold"),
    "bold_italic": ("bold_italic", "italic", "bold", "regular"),
}


@dataclass(frozen=True)
class CatalogFamily:
    name: str
    slots: dict[str, tuple[str, ...]]  # slot -> file paths relative to the base URL, Latin first

    def nearest_slot(self, *, bold: bool, italic: bool) -> str:
        wanted = slot_name(bold=bold, italic=italic)
        return next(slot for slot in SLOT_FALLBACKS[wanted] if slot in self.slots)


class Catalog:
    """Family lookup over the parsed data file; records are turned into objects on demand."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.meta: dict[str, Any] = data["meta"]
        self._families: dict[str, dict[str, Any]] = data["families"]

    def __contains__(self, name: object) -> bool:
        return name in self._families

    def __len__(self) -> int:
        return len(self._families)

    def names(self) -> list[str]:
        return list(self._families)

    def family(self, name: str) -> CatalogFamily | None:
        record = self._families.get(name)
        if record is None:
            return None
        folder = record["dir"]
        slots = {
            slot: tuple(_relative_path(folder + token + ".ttf") for _, token in record[slot])
            for slot in SLOTS
            if slot in record
        }
        return CatalogFamily(name=name, slots=slots)


def _relative_path(path: str) -> str:
    # The path becomes both a URL suffix and a path under the cache directory, so refuse anything
    # that could climb out of either, even though the data file is our own.
    parts = PurePosixPath(path).parts
    if path.startswith("/") or not parts or any(part in ("..", ".") for part in parts):
        raise ValueError(f"unsafe catalog path {path!r}")
    return path


@functools.cache
def load_catalog(path: Path = DEFAULT_CATALOG_PATH) -> Catalog:
    """Read and parse the data file once per process (about 20 ms, on first use only)."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return Catalog(json.load(handle))
