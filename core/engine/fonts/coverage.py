"""Which characters a font can draw, read once per file and process.

reportlab embeds only TrueType-outline ('glyf') fonts, so a file is usable only if it has a
'glyf' table and a Unicode cmap; CFF-flavoured OpenType, WOFF and font collections are refused.
Base-14 PDF fonts are drawn by reportlab in WinAnsiEncoding, so their coverage is what cp1252
can encode.
"""

from __future__ import annotations

import functools
import io
from pathlib import Path

from fontTools.ttLib import TTFont

# Every character cp1252 can encode (the five undefined bytes decode to nothing and drop out).
WIN_ANSI: frozenset[int] = frozenset(
    ord(char) for char in bytes(range(32, 256)).decode("cp1252", errors="ignore")
)


class NotTrueType(ValueError):
    """The bytes or file are not a single TrueType-outline font with a Unicode cmap."""


def _codepoints(font: TTFont) -> frozenset[int]:
    if font.flavor is not None:
        raise NotTrueType(f"{font.flavor} is a web font wrapper, not a plain TrueType file")
    if "glyf" not in font:
        raise NotTrueType("no 'glyf' table (CFF outlines cannot be embedded by reportlab)")
    cmap = font.getBestCmap()
    if not cmap:
        raise NotTrueType("no Unicode cmap")
    return frozenset(cmap)


def check_truetype(data: bytes) -> None:
    """Raise NotTrueType unless ``data`` is a usable TrueType font (used before caching)."""
    try:
        with TTFont(io.BytesIO(data), lazy=True) as font:
            _codepoints(font)
    except NotTrueType:
        raise
    except Exception as exc:  # fontTools raises many types on garbage; all mean "not a font"
        raise NotTrueType(f"not a font file ({exc})") from exc


@functools.cache
def file_codepoints(path: Path) -> frozenset[int]:
    """Code points of a TrueType file, cached for the life of the process; empty if unusable.

    Files are never rewritten in place (catalog files live at versioned paths and are written
    atomically; system fonts change only with a package upgrade and a restart), so a per-path
    cache is safe. lazy=True parses only the cmap, not the outlines. An unusable file (missing,
    CFF, a collection) covers nothing, so a glyph fallback never picks it.
    """
    try:
        with TTFont(path, lazy=True) as font:
            return _codepoints(font)
    except Exception:  # fontTools raises many types on garbage; all mean "cannot draw with it"
        return frozenset()


def is_usable_truetype(path: Path) -> bool:
    """True for an existing single TrueType-outline font file."""
    return path.is_file() and bool(file_codepoints(path))
