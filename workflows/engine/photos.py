"""Photos as phones take them, made small enough for an image field.

A phone's photo is a few megabytes; an image field keeps at most ``rules.IMAGE_MAX_BYTES`` (the
fill engine takes data: URLs of 100k at most). ``fit_image`` scales an uploaded PNG, JPEG or GIF
down, turned upright by its EXIF orientation, until it fits. The page's script does the same in
the browser where it can (less to send); this is the server's, for every other browser.

Pure Python and Pillow: no Django.
"""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass

from PIL import Image, ImageOps

# Formats an image field takes, by the type the upload claims.
FORMATS = {"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF"}
# A phone's largest photos are about 50 MP; more than this is refused before it is decoded.
MAX_PIXELS = 60_000_000
# The longest side tried, largest first, and the JPEG qualities tried at each.
SIDES = (1600, 1280, 1024, 800, 640, 480, 360, 240)
QUALITIES = (82, 70, 58)

_INVALID = (OSError, SyntaxError, ValueError, EOFError, struct.error, Image.DecompressionBombError)


@dataclass(frozen=True)
class Fitted:
    data: bytes
    mime: str
    width: int
    height: int
    scaled: bool  # False: the upload was kept as it was


def fit_image(data: bytes, mime: str, *, max_bytes: int) -> Fitted | None:
    """``data`` as an image of at most ``max_bytes``: as it is when it fits, else scaled down
    (as a PNG when it has transparency and a PNG of it fits, else as a JPEG). None when the
    bytes are not a readable image of the type ``mime`` claims, or too large to decode."""
    expected = FORMATS.get(mime)
    if expected is None or not data:
        return None
    try:
        with Image.open(io.BytesIO(data), formats=(expected,)) as image:
            width, height = image.size
            if width * height > MAX_PIXELS:
                return None
            if len(data) <= max_bytes:
                image.verify()
                return Fitted(data, mime, width, height, scaled=False)
            if expected == "JPEG":
                image.draft("RGB", (SIDES[0], SIDES[0]))  # decode at a fraction: much faster
            image.load()
            upright = ImageOps.exif_transpose(image)
            return _smaller(upright, max_bytes)
    except _INVALID:
        return None


def _smaller(image: Image.Image, max_bytes: int) -> Fitted | None:
    transparent = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
    for side in SIDES:
        copy = image.copy()
        copy.thumbnail((side, side), Image.Resampling.LANCZOS)
        if transparent:
            png = _encode(copy.convert("RGBA"), "PNG", optimize=True)
            if len(png) <= max_bytes:
                return Fitted(png, "image/png", copy.width, copy.height, scaled=True)
        flat = _flatten(copy)
        for quality in QUALITIES:
            jpeg = _encode(flat, "JPEG", quality=quality, optimize=True, progressive=True)
            if len(jpeg) <= max_bytes:
                return Fitted(jpeg, "image/jpeg", flat.width, flat.height, scaled=True)
    return None


def _flatten(image: Image.Image) -> Image.Image:
    """RGB on white: what a JPEG can hold of a transparent or paletted image."""
    rgba = image.convert("RGBA")
    background = Image.new("RGB", rgba.size, (255, 255, 255))
    background.paste(rgba, mask=rgba.getchannel("A"))
    return background


def _encode(image: Image.Image, kind: str, **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, kind, **options)
    return out.getvalue()
