"""Photos as phones take them, made small enough for an image field.

A phone's photo is a few megabytes; an image field keeps at most ``rules.IMAGE_MAX_BYTES`` (the
fill engine takes data: URLs of 100k at most). ``fit_image`` scales an uploaded PNG, JPEG or GIF
down, turned upright by its EXIF orientation, until it fits. The page's script does the same in
the browser where it can (less to send); this is the server's, for every other browser.

An upload is anybody's, and a few kilobytes of PNG can declare tens of megapixels (a 7600 x 7600
PNG of one colour is 56 KB; decoded, a gigabyte of the server's memory). So ``photo_refusal``
refuses by the size the header declares, before anything is decoded, with a cap per format: a
JPEG is decoded at 1/2, 1/4 or 1/8 of its size (``Image.draft``), so a phone's largest photos
cost a few megapixels; a PNG or GIF can only be decoded whole, so its cap is much lower. What
passes is decoded and scaled in an image worker (``image_pool``), within a memory and a time
limit, never in the web process.

Pure Python and Pillow: no Django.
"""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass
from typing import Literal

from PIL import Image, ImageOps

# Formats an image field takes, by the type the upload claims.
FORMATS = {"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF"}
# A phone's largest photos are about 50 MP; decoded at a quarter of each side or less (draft),
# 60 MP is under 4 MP in memory.
MAX_JPEG_PIXELS = 60_000_000
# A PNG or GIF is decoded whole: 16 MP (a 5K screenshot; 4000 x 4000) is 64 MB as RGBA, and
# its scaling peaks near 180 MB.
MAX_DECODED_PIXELS = 16_000_000
# The longest side tried, largest first, and the JPEG qualities tried at each.
SIDES = (1600, 1280, 1024, 800, 640, 480, 360, 240)
QUALITIES = (82, 70, 58)

# Why an upload cannot be fitted.
Refusal = Literal["too_large", "unreadable"]
TOO_LARGE: Refusal = "too_large"
UNREADABLE: Refusal = "unreadable"

_INVALID = (OSError, SyntaxError, ValueError, EOFError, struct.error)


@dataclass(frozen=True)
class Fitted:
    data: bytes
    mime: str
    width: int
    height: int
    scaled: bool  # False: the upload was kept as it was


def photo_refusal(data: bytes, mime: str) -> Refusal | None:
    """Why ``data`` cannot be fitted, known from its header alone (nothing is decoded): not an
    image of the type ``mime`` claims, or more pixels than its format's cap. None if it may be."""
    expected = FORMATS.get(mime)
    if expected is None or not data:
        return UNREADABLE
    try:
        with Image.open(io.BytesIO(data), formats=(expected,)) as image:
            return TOO_LARGE if _too_large(image) else None
    except Image.DecompressionBombError:  # Pillow's own cap, far above ours
        return TOO_LARGE
    except _INVALID:
        return UNREADABLE


def _too_large(image: Image.Image) -> bool:
    width, height = image.size
    # A phone's JPEG with a multi-picture extension opens as MPO: it drafts as a JPEG.
    cap = MAX_JPEG_PIXELS if image.format in ("JPEG", "MPO") else MAX_DECODED_PIXELS
    return width * height > cap


def kept_as_is(data: bytes, mime: str, *, max_bytes: int) -> Fitted | None:
    """``data`` as it is, when it fits ``max_bytes`` and is no larger than a fitted image
    (``SIDES[0]`` a side: what the documents are filled with stays small to decode); checked
    without decoding. None when it must go through ``fit_image`` (or is not an image)."""
    expected = FORMATS.get(mime)
    if expected is None or not data or len(data) > max_bytes:
        return None
    try:
        with Image.open(io.BytesIO(data), formats=(expected,)) as image:
            width, height = image.size
            if max(width, height) > SIDES[0]:
                return None
            image.verify()  # the structure (a PNG's chunk checksums), not the pixels
    except (*_INVALID, Image.DecompressionBombError):
        return None
    return Fitted(data, mime, width, height, scaled=False)


def fit_image(data: bytes, mime: str, *, max_bytes: int) -> Fitted | None:
    """``data`` as an image of at most ``max_bytes``: as it is when it may be (``kept_as_is``),
    else scaled down (as a PNG when it has transparency and a PNG of it fits, else as a JPEG).
    None when the bytes are not a readable image of the type ``mime`` claims, or too large to
    decode (``photo_refusal``). Decodes: run it in an image worker."""
    kept = kept_as_is(data, mime, max_bytes=max_bytes)
    if kept is not None:
        return kept
    expected = FORMATS.get(mime)
    if expected is None or not data:
        return None
    try:
        with Image.open(io.BytesIO(data), formats=(expected,)) as image:
            if _too_large(image):
                return None
            if expected == "JPEG":
                # Decoded at 1/2, 1/4 or 1/8 of each side, as long as the longest stays at
                # least SIDES[0]: the box asked for has the image's own shape.
                image.draft("RGB", _box(image.size, SIDES[0]))
            image.load()
            ImageOps.exif_transpose(image, in_place=True)  # no copy of the decoded image
            return _smaller(image, max_bytes)
    except (*_INVALID, Image.DecompressionBombError):
        return None


def _box(size: tuple[int, int], side: int) -> tuple[int, int]:
    """``size`` scaled so that its longest side is ``side`` (at least 1 pixel each way)."""
    width, height = size
    longest = max(width, height, 1)
    return max(1, width * side // longest), max(1, height * side // longest)


def _smaller(image: Image.Image, max_bytes: int) -> Fitted | None:
    """``image`` (changed in place) scaled down until an encoding of it fits ``max_bytes``."""
    transparent = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
    # Scaled to the largest side once, in place; each smaller try starts from that, never from
    # another copy of the whole decoded image.
    image.thumbnail((SIDES[0], SIDES[0]), Image.Resampling.LANCZOS)
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
