"""Images named by URL in request data, loaded through the safe fetcher and checked with Pillow.

Per the spec an image that is too large or not an image is not an error: the document is made
without it. So `load_image()` returns None for every refusal and logs why; only the caller's own
bugs raise. Pure Python: no Django here (enforced by import-linter).
"""

from __future__ import annotations

import dataclasses
import io
import logging
import struct
from dataclasses import dataclass

from PIL import Image

from core.engine.fetch import FetchError, FetchPolicy, Resolver, fetch

logger = logging.getLogger(__name__)

# Bigger than any sensible photo or scan on a page, far below what would exhaust a worker's
# memory once decoded (50 MP at 4 bytes a pixel is 200 MB).
DEFAULT_MAX_PIXELS = 50_000_000
# The most an image may take decoded, by the size and mode its header declares (a few KB of PNG
# can declare tens of megapixels). The PDF writer decodes every image it draws whole, a JPEG
# too, in the process that fills, and peaks at three to four times that (a 16 MP RGBA PNG:
# 260 MB; a 49 MP JPEG: 500 MB). 40 MB: a 13 MP colour photo (a 12 MP phone's), 10 MP with
# transparency, 40 MP of grey: more than a page needs at 300 dpi (8.7 MP).
DEFAULT_MAX_DECODED_BYTES = 40 * 1_048_576
# Formats the PDF and HTML renderers can embed. Naming them also keeps Pillow from trying its
# other plugins on untrusted bytes (EPS, for one, would hand the file to Ghostscript).
DEFAULT_IMAGE_FORMATS: tuple[str, ...] = ("PNG", "JPEG", "GIF", "WEBP", "BMP")
SVG_CONTENT_TYPE = "image/svg+xml"

# What Pillow raises on malformed or hostile input. Anything else is a bug and propagates.
_INVALID_IMAGE_ERRORS = (
    OSError,  # includes UnidentifiedImageError and "truncated file"
    SyntaxError,  # PNG and others report broken chunks this way
    ValueError,
    EOFError,
    struct.error,
    Image.DecompressionBombError,
)
# The codes that mean somebody tried to reach something they should not: worth a warning.
_SUSPICIOUS_CODES = frozenset({"address_not_allowed", "scheme_not_allowed"})


# Why bytes are not a usable image (``image_refusal``).
TOO_LARGE = "too_large"
UNREADABLE = "unreadable"


@dataclass(frozen=True)
class LoadedImage:
    data: bytes
    format: str  # "PNG", "JPEG", "GIF", "WEBP", "BMP" or "SVG"
    width: int | None  # None for SVG, whose size depends on where it is drawn
    height: int | None
    content_type: str  # of the actual format (a PNG served as image/jpeg says image/png)


def load_image(
    url: str,
    policy: FetchPolicy,
    *,
    resolve: Resolver | None = None,
    allow_svg: bool = False,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    max_decoded_bytes: int = DEFAULT_MAX_DECODED_BYTES,
    formats: tuple[str, ...] = DEFAULT_IMAGE_FORMATS,
) -> LoadedImage | None:
    """Fetch an image (http(s) or data:) and check it decodes; None if it cannot be used.

    The policy's size cap and deadline apply; its content types are replaced by image/*, so a
    server sending HTML is refused before its body is read.
    """
    image_policy = dataclasses.replace(policy, allowed_content_types=("image/",))
    try:
        fetched = fetch(url, image_policy, resolve=resolve)
    except FetchError as exc:
        level = logging.WARNING if exc.code in _SUSPICIOUS_CODES else logging.INFO
        # The fetcher has logged the detail; this line ties it to image loading.
        logger.log(level, "Image not loaded: fetch refused (%s)", exc.code)
        return None

    if fetched.content_type == SVG_CONTENT_TYPE:
        return _svg(fetched.data, allow_svg=allow_svg)
    return _raster(
        fetched.data, max_pixels=max_pixels, max_decoded_bytes=max_decoded_bytes, formats=formats
    )


def image_from_bytes(
    data: bytes,
    *,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    max_decoded_bytes: int = DEFAULT_MAX_DECODED_BYTES,
    formats: tuple[str, ...] = DEFAULT_IMAGE_FORMATS,
) -> LoadedImage | None:
    """Bytes given in a request (an upload, a data: URL's payload) checked as fetched ones are:
    an image of one of ``formats`` that decodes; None if not (SVG never)."""
    return _raster(
        data, max_pixels=max_pixels, max_decoded_bytes=max_decoded_bytes, formats=formats
    )


def image_refusal(
    data: bytes,
    *,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    max_decoded_bytes: int = DEFAULT_MAX_DECODED_BYTES,
    formats: tuple[str, ...] = DEFAULT_IMAGE_FORMATS,
) -> str | None:
    """Why ``image_from_bytes`` would refuse ``data``: TOO_LARGE (its declared size is over a
    cap) or UNREADABLE; None when it is a usable image. Nothing is decoded."""
    return _refusal(
        data, max_pixels=max_pixels, max_decoded_bytes=max_decoded_bytes, formats=formats
    )[0]


def decoded_bytes(width: int, height: int, mode: str) -> int:
    """What an image of this declared size and mode takes decoded for drawing: a byte a pixel
    for grey, three for colour, four for anything with transparency or a palette (expanded)."""
    if mode in ("1", "L"):
        per_pixel = 1
    elif mode in ("RGB", "YCbCr"):
        per_pixel = 3
    else:
        per_pixel = 4
    return width * height * per_pixel


def _svg(data: bytes, *, allow_svg: bool) -> LoadedImage | None:
    if not allow_svg:
        logger.info("Image not loaded: SVG is not accepted here")
        return None
    # Not parsed here (the renderer does, with its own protections); this only rules out a body
    # that is plainly something else.
    if b"<svg" not in data.lower():
        logger.info("Image not loaded: served as SVG but has no <svg> element")
        return None
    return LoadedImage(
        data=data, format="SVG", width=None, height=None, content_type=SVG_CONTENT_TYPE
    )


def _refusal(
    data: bytes, *, max_pixels: int, max_decoded_bytes: int, formats: tuple[str, ...]
) -> tuple[str | None, str, int, int]:
    """Why ``data`` is not a usable image (or None), and its format and size."""
    try:
        # open() reads only the header, so the size is known before anything is decoded;
        # verify() then walks the file's structure (chunk CRCs and the like).
        with Image.open(io.BytesIO(data), formats=list(formats)) as image:
            width, height = image.size
            if width * height > max_pixels:
                logger.info(
                    "Image not loaded: %dx%d pixels is over the cap of %d",
                    width,
                    height,
                    max_pixels,
                )
                return TOO_LARGE, "", width, height
            decoded = decoded_bytes(width, height, image.mode)
            if decoded > max_decoded_bytes:
                logger.info(
                    "Image not loaded: %dx%d pixels of %s is %d bytes decoded, over the cap of %d",
                    width,
                    height,
                    image.mode,
                    decoded,
                    max_decoded_bytes,
                )
                return TOO_LARGE, "", width, height
            image.verify()
        # verify() leaves the image unusable, so reopen for what is reported.
        with Image.open(io.BytesIO(data), formats=list(formats)) as image:
            image_format = image.format or ""
            width, height = image.size
    except Image.DecompressionBombError:  # Pillow's own cap, above ours
        logger.info("Image not loaded: over Pillow's pixel cap")
        return TOO_LARGE, "", 0, 0
    except _INVALID_IMAGE_ERRORS as exc:
        logger.info("Image not loaded: not a valid image (%s)", type(exc).__name__)
        return UNREADABLE, "", 0, 0
    return None, image_format, width, height


def _raster(
    data: bytes, *, max_pixels: int, max_decoded_bytes: int, formats: tuple[str, ...]
) -> LoadedImage | None:
    refusal, image_format, width, height = _refusal(
        data, max_pixels=max_pixels, max_decoded_bytes=max_decoded_bytes, formats=formats
    )
    if refusal is not None:
        return None
    # Pillow reports a JPEG with a multi-picture extension (common from phones) as MPO; to every
    # renderer it is a JPEG.
    if image_format == "MPO":
        image_format = "JPEG"
    return LoadedImage(
        data=data,
        format=image_format,
        width=width,
        height=height,
        content_type=Image.MIME.get(image_format, "application/octet-stream"),
    )
