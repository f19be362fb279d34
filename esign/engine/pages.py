"""The pages of a document as pictures, for the signing page: drawn here with pdfium (the
reader Chrome uses), so that a signer's phone downloads one small image per page instead of a
PDF reader and the whole PDF.

``page_boxes`` gives what the page needs to put the signer's fields over each picture: the
page's visible box in PDF points (its crop box, as pdf.js' ``page.view``) and its /Rotate.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import pypdfium2
from PIL import Image, ImageChops, ImageStat

from core.engine.pdfium_lock import PDFIUM
from esign.engine.errors import PageUnavailable

# The widths pictures are drawn at, in pixels: the page asks for the smallest one at least as
# wide as its column on the screen (CSS pixels times the device pixel ratio).
PAGE_WIDTHS = (480, 800, 1200, 1760)
WEBP_QUALITY = 82
# libwebp's effort: 2 encodes a dense form (the W-9's first page, 800 px) in half the time of 4
# for 1.4 % more bytes; the first page's picture is drawn while the signer waits for it.
WEBP_METHOD = 2
# A page of text and lines (most forms) needs few colours: as a palette of 16, without loss, it
# is 40 % fewer bytes than the lossy picture (the W-9's first page at 800 px: 82 kB, not
# 138 kB), with sharper letters, and takes no longer to make (libwebp's fastest lossless
# effort: quantizing, checking and encoding about 90 ms against 106 ms). On a phone's slow
# link the bytes are what decides when the first page shows. A page the palette would change
# visibly (a photo, a scan, a gradient, a coloured logo) is drawn lossy as before: the palette
# is kept only when the pixels' error is small overall (RMS) and almost no pixel is far off.
PALETTE_COLOURS = 16
PALETTE_MAX_RMS = 4.0
PALETTE_FAR = 24  # a pixel this far off (0-255, in grey) or more counts as far
PALETTE_MAX_FAR_SHARE = 0.001


@dataclass(frozen=True)
class PageBox:
    """A page as shown: ``view`` is [x0, y0, x1, y1] in PDF points of its unrotated user space,
    ``rotate`` its /Rotate (0, 90, 180, 270); ``width`` and ``height`` are as shown (turned)."""

    view: tuple[float, float, float, float]
    rotate: int
    width: float
    height: float


def page_boxes(pdf: bytes) -> list[PageBox]:
    """Every page's box, in order."""
    with PDFIUM:
        document = _open(pdf)
        try:
            boxes = []
            for index in range(len(document)):
                page = document[index]
                x0, y0, x1, y1 = page.get_cropbox()
                rotate = page.get_rotation() % 360
                width, height = abs(x1 - x0), abs(y1 - y0)
                if rotate in (90, 270):
                    width, height = height, width
                boxes.append(
                    PageBox(
                        view=(round(x0, 3), round(y0, 3), round(x1, 3), round(y1, 3)),
                        rotate=rotate,
                        width=round(width, 3),
                        height=round(height, 3),
                    )
                )
                page.close()
            return boxes
        finally:
            document.close()


def page_width(requested: int) -> int:
    """The drawn width for a page shown ``requested`` pixels wide."""
    for width in PAGE_WIDTHS:
        if width >= requested:
            return width
    return PAGE_WIDTHS[-1]


def render_page(pdf: bytes, *, index: int, width: int) -> bytes:
    """Page ``index`` (from 0) drawn ``width`` pixels wide, turned as shown, as a WebP image."""
    with PDFIUM:
        document = _open(pdf)
        try:
            if not 0 <= index < len(document):
                raise PageUnavailable(f"The document has no page {index + 1}.")
            page = document[index]
            shown_width = page.get_width()  # points, after /Rotate
            bitmap = page.render(scale=width / shown_width, may_draw_forms=True)
            image = bitmap.to_pil().convert("RGB")  # a copy: the bitmap's memory goes next
            bitmap.close()
            page.close()
        finally:
            document.close()
    return _webp(image)


def _webp(image: Image.Image) -> bytes:
    """``image`` as WebP: a lossless palette of PALETTE_COLOURS when it shows the page as it is,
    else lossy."""
    out = io.BytesIO()
    palette = image.quantize(colors=PALETTE_COLOURS, method=Image.Quantize.FASTOCTREE)
    difference = ImageChops.difference(image, palette.convert("RGB"))
    far = sum(difference.convert("L").histogram()[PALETTE_FAR:])
    if (
        max(ImageStat.Stat(difference).rms) <= PALETTE_MAX_RMS
        and far <= PALETTE_MAX_FAR_SHARE * image.width * image.height
    ):
        palette.save(out, format="WEBP", lossless=True, quality=75, method=0)
    else:
        image.save(out, format="WEBP", quality=WEBP_QUALITY, method=WEBP_METHOD)
    return out.getvalue()


def _open(pdf: bytes) -> pypdfium2.PdfDocument:
    try:
        return pypdfium2.PdfDocument(pdf)
    except pypdfium2.PdfiumError as error:
        raise PageUnavailable(f"The PDF cannot be read: {error}") from None
