"""A handwriting TrueType font for the stamping tests, made from Debian's fonts-dancingscript.

Debian ships Dancing Script as CFF-flavoured OpenType, which reportlab cannot embed; the
service ships a TrueType file. The tests convert the Debian file to TrueType outlines (cubic
curves to quadratic ones, fontTools' cu2qu), which is what the shipped file is.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fontTools.pens.cu2quPen import Cu2QuPen
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.ttLib import TTFont, newTable

DEBIAN_FONT_DIR = Path("/usr/share/fonts/opentype/dancingscript")
DEBIAN_FONT = DEBIAN_FONT_DIR / "DancingScript-Regular.otf"
TRUETYPE_DIR = Path("/usr/share/fonts/truetype/dancingscript")


def _to_truetype(font: TTFont) -> None:
    """Replace the CFF outlines of ``font`` by TrueType ones, in place."""
    order = font.getGlyphOrder()
    glyph_set = font.getGlyphSet()
    glyf = newTable("glyf")
    glyf.glyphOrder = order
    glyf.glyphs = {}
    for name in order:
        pen = TTGlyphPen(glyph_set)
        glyph_set[name].draw(Cu2QuPen(pen, max_err=1.0, reverse_direction=True))
        glyf.glyphs[name] = pen.glyph()
    font["loca"] = newTable("loca")
    font["glyf"] = glyf
    del font["CFF "]
    if "VORG" in font:
        del font["VORG"]
    maxp = font["maxp"] = newTable("maxp")
    maxp.tableVersion = 0x00010000
    for attribute in (
        "maxZones",
        "maxTwilightPoints",
        "maxStorage",
        "maxFunctionDefs",
        "maxInstructionDefs",
        "maxStackElements",
        "maxSizeOfInstructions",
        "maxComponentElements",
    ):
        setattr(maxp, attribute, 1 if attribute == "maxZones" else 0)
    post = font["post"]
    post.formatType = 2.0
    post.extraNames = []
    post.mapping = {}
    post.glyphOrder = order
    font["head"].glyphDataFormat = 0
    font.sfntVersion = "\x00\x01\x00\x00"


def handwriting_ttf(directory: Path) -> Path:
    """A TrueType Dancing Script in ``directory`` (or the system's, if one is installed)."""
    installed = sorted(TRUETYPE_DIR.glob("DancingScript*Regular*.ttf"))
    if installed:
        return installed[0]
    if not DEBIAN_FONT.is_file():
        pytest.fail(
            f"{DEBIAN_FONT} is missing: the stamping tests need the Debian package "
            "fonts-dancingscript (apt-get install fonts-dancingscript)"
        )
    target = directory / "DancingScript-Regular.ttf"
    with TTFont(DEBIAN_FONT) as font:
        if "glyf" in font:  # a TrueType file under an .otf name: use it as it is
            shutil.copyfile(DEBIAN_FONT, target)
            return target
        _to_truetype(font)
        font.save(target)
    return target
