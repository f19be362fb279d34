"""The signing page's pictures of the pages (esign.engine.pages): a page of text and lines (the
IRS W-9) is drawn as a lossless 16-colour WebP, about 40 % fewer bytes than the lossy picture
and as the page is (every pixel near its colour), so that a phone on a slow link shows the first
page sooner (bench/signing_page.py); a page the palette would change (a photo-like picture, even
a small one on white) stays lossy."""

from __future__ import annotations

import io

from PIL import Image
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen.canvas import Canvas

from esign.engine.pages import render_page
from tests.fixtures import PDFS

W9 = PDFS / "irs-fw9-2018.pdf"


def chunk(webp: bytes) -> bytes:
    """The WebP's image chunk: b"VP8L" (lossless) or b"VP8 " (lossy)."""
    assert webp[:4] == b"RIFF"
    assert webp[8:12] == b"WEBP"
    return webp[12:16]


def photo_page(size: tuple[int, int]) -> bytes:
    """A page with a colour gradient ``size`` points large on it (a photo's smooth colours)."""
    gradient = Image.linear_gradient("L").resize(size)
    picture = Image.merge(
        "RGB", (gradient, gradient.rotate(90), gradient.transpose(Image.FLIP_LEFT_RIGHT))
    )
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(612, 792), invariant=1)
    canvas.drawString(72, 720, "A page with a picture")
    canvas.drawImage(ImageReader(picture), 72, 400, width=size[0], height=size[1])
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def test_a_form_page_is_a_lossless_palette_of_fewer_bytes() -> None:
    pdf = W9.read_bytes()
    webp = render_page(pdf, index=0, width=800)
    assert chunk(webp) == b"VP8L"
    assert len(webp) < 100_000  # 138 kB lossy
    shown = Image.open(io.BytesIO(webp)).convert("RGB")
    assert shown.size[0] == 800
    assert len(shown.getcolors(256) or []) <= 16


def test_a_page_with_a_photo_stays_lossy() -> None:
    for size in ((400, 300), (120, 90)):  # a whole picture, and a small one on white
        webp = render_page(photo_page(size), index=0, width=800)
        assert chunk(webp) == b"VP8 ", size
        shown = Image.open(io.BytesIO(webp)).convert("RGB")
        assert len(shown.getcolors(1_000_000) or []) > 256  # its smooth colours kept
