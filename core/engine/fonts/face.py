"""FontFace: one drawable face, either a base-14 PDF font or one TrueType file."""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path

from core.engine.fonts.coverage import WIN_ANSI, file_codepoints


@dataclass(frozen=True)
class FontFace:
    """A face the fill engine can draw with and the resolver can hand out.

    Exactly one of ``path`` (a TrueType-outline file) and ``standard_name`` (a PDF base-14 font
    such as "Helvetica-Bold") is set. ``family``, ``bold`` and ``italic`` describe the face
    itself, which may differ from what was asked for when a family lacks a style.
    """

    family: str
    bold: bool
    italic: bool
    path: Path | None = None
    standard_name: str | None = None

    def __post_init__(self) -> None:
        if (self.path is None) == (self.standard_name is None):
            raise ValueError("a FontFace has either a path or a standard_name")

    @functools.cached_property
    def key(self) -> str:
        """A unique, stable name to register the face under (reportlab font name).

        Base-14 fonts keep their standard name, which reportlab knows without registration.
        TrueType faces are named after family and style plus a hash of the file's full path, so
        the files of one face (Google serves a file per unicode subset) and same-named files in
        different places (a system and a cached copy) never collide.
        """
        if self.standard_name is not None:
            return self.standard_name
        assert self.path is not None  # guaranteed by __post_init__
        style = ("Regular", "Bold", "Italic", "BoldItalic")[self.bold + 2 * self.italic]
        digest = hashlib.sha256(str(self.path).encode()).hexdigest()[:10]
        return f"{self.family.replace(' ', '')}-{style}-{digest}"

    def codepoints(self) -> frozenset[int]:
        if self.path is None:
            return WIN_ANSI
        return file_codepoints(self.path)

    def has_glyph(self, char: str) -> bool:
        return ord(char) in self.codepoints()
