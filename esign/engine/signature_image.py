"""A signer's drawn signature: a PNG from the signing pad, checked and cropped to its ink.

The signing page is public to whoever holds a link, so the PNG is anybody's: a few kilobytes
can declare tens of megapixels. Its declared size is checked before anything is decoded, against
what a signing pad makes (the page exports at most 1600 px wide, and its pad is about 3:1), far
below what would matter to the server's memory (2 MP as RGBA is 8 MB). The finish checks it
before anything is stored, stamping and the audit trail draw it with the same function.
"""

from __future__ import annotations

import io
import struct

from PIL import Image

from core.engine.images import LoadedImage

# The signing page's pad exports at most 1600 x ~730 px; a few times that, still small.
MAX_SIGNATURE_PIXELS = 2_000_000
MAX_SIGNATURE_SIDE = 4_000

TOO_LARGE = "The signature image is too large."
UNREADABLE = "The signature image is not a readable PNG."
EMPTY = "The signature image is empty."

# What Pillow raises on malformed or hostile input (as core.engine.images).
_INVALID_IMAGE_ERRORS = (
    OSError,
    SyntaxError,
    ValueError,
    EOFError,
    struct.error,
    Image.DecompressionBombError,
)


class SignatureImageUnusable(Exception):
    """Why a drawn signature cannot be used: one of TOO_LARGE, UNREADABLE, EMPTY."""


def signature_image(data: bytes) -> LoadedImage:
    """The drawn signature cropped to its ink (pads leave wide empty margins), as a PNG.
    Raises SignatureImageUnusable when it is not a readable PNG, declares more pixels than a
    signing pad makes (checked before decoding), or has no ink."""
    try:
        with Image.open(io.BytesIO(data), formats=["PNG"]) as image:
            width, height = image.size
            if width * height > MAX_SIGNATURE_PIXELS or max(width, height) > MAX_SIGNATURE_SIDE:
                raise SignatureImageUnusable(TOO_LARGE)
            image.load()
            rgba = image.convert("RGBA")
    except _INVALID_IMAGE_ERRORS:
        raise SignatureImageUnusable(UNREADABLE) from None
    ink = rgba.getchannel("A").getbbox()
    if ink is None:
        raise SignatureImageUnusable(EMPTY)
    cropped = rgba.crop(ink)
    out = io.BytesIO()
    cropped.save(out, format="PNG")
    return LoadedImage(out.getvalue(), "PNG", cropped.width, cropped.height, "image/png")
