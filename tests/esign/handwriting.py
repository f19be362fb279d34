"""The handwriting font the service ships for typed signatures (Kristi, SIL OFL 1.1)."""

from __future__ import annotations

from pathlib import Path

from esign.packets.documents import HANDWRITING_FONT

FONT_NAME_PREFIX = "Kristi"


def handwriting_ttf(_directory: Path | None = None) -> Path:
    """The shipped TrueType file (the argument is kept for callers that pass a directory)."""
    assert HANDWRITING_FONT.exists(), HANDWRITING_FONT
    return HANDWRITING_FONT
