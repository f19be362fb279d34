"""verification_mark: a small QR code and a short link to /verify in the bottom margin of every
page of a finished document, drawn into the pages' content just before the seal, so that the
seal covers it and a printed copy can be checked (createEtchPacket's ``verificationStamp``).

Where: a corner of each page as it is shown (its CropBox, turned with /Rotate), MARGIN from the
edges (most printers cannot print closer), the QR code QR_SIZE square with the link's words on
one line beside it. The bottom right corner unless something is drawn there (a signer's initials,
a footer, a page number: the page is drawn with pdfium to see), then the next blank one of
CORNERS; it never covers what the page shows with a white patch. Every page carries it, so one
printed page is enough.

Why into the content and not as an annotation: pyHanko (and Acrobat) count an annotation added
after a signature as a change to the signed document, and a mark drawn before the seal is inside
what the seal signs either way. Drawing rewrites the file (as signers' stamps do), which would
break a signature the document already carries: ``carries_signatures`` says so, and the caller
leaves such a document unmarked rather than invalidate anyone's signature.

Pure Python (no Django): the link is the caller's.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

import pypdfium2
from PIL import Image
from reportlab.graphics import renderPDF
from reportlab.graphics.barcode.qr import QrCodeWidget
from reportlab.graphics.shapes import Drawing
from reportlab.pdfgen.canvas import Canvas

from core.engine.fonts import DEFAULT_FAMILY, FontLibrary
from core.engine.pdf import add_overlays, open_pdf, save_pdf
from core.engine.pdf.draw import Look, Painter
from core.engine.pdf.text import PADDING, TextSetter
from core.engine.pdfium_lock import PDFIUM
from esign.engine.pdf_signatures import open_pdf as open_signed_pdf
from esign.engine.pdf_signatures import signature_fields
from esign.engine.stamp import _geometry  # a page's visible box and /Rotate, as stamps read them

OVERLAY_PREFIX = "/DocAutomationVerificationMark"
QR_FORM = "VerificationQr"
QR_SIZE = 48.0  # points (two thirds of an inch): a module of about 1.2 pt for a link this long
MARGIN = 14.0  # from the page's edges: within what a printer prints
TEXT_SIZE = 5.5
TEXT_WIDTH = 190.0  # at most, beside the QR code; shrunk to fit on a narrow page
TEXT_COLOR = "#444444"
GAP = 3.0
# Where the mark goes on a page as shown, in this order of preference: the first corner with
# nothing drawn there (a signer's initials or a footer are often in the bottom right).
CORNERS = ("bottom right", "bottom left", "top right", "top left")
INKED = 250  # a pixel darker than this (0-255 grey) is something drawn


@dataclass(frozen=True)
class _Place:
    corner: str
    qr_x: float
    text_x: float  # the words' box, TEXT_SIZE * 2 high at the QR code's foot
    y: float
    box: tuple[float, float, float, float]  # the whole mark: x0, y0, x1, y1


def carries_signatures(pdf: bytes) -> bool:
    """Whether ``pdf`` holds a filled signature field: drawing into its pages would break it."""
    return bool(signature_fields(open_signed_pdf(pdf)))


def verification_mark(pdf: bytes, *, url: str, words: str, fonts: FontLibrary) -> bytes:
    """``pdf`` with the mark on every page: a QR code of ``url`` and ``words`` (the link as a
    person would type it) beside it, in the first of CORNERS where the page has nothing drawn
    (else where it has least), never over a white patch that would hide what is there. Raises
    PdfUnreadable for bytes that are not a PDF."""
    document = open_pdf(pdf)
    pages = [page.obj for page in document.pages]
    inks = _ink(pdf)
    buffer = io.BytesIO()
    canvas = Canvas(buffer, invariant=1, pageCompression=1)
    painter = Painter(canvas, TextSetter(fonts))
    face = fonts.resolve(DEFAULT_FAMILY)
    _qr_form(canvas, url)
    for page, ink in zip(pages, inks, strict=True):
        geometry = _geometry(page)
        x0, y0, x1, y1 = geometry.media_box
        canvas.setPageSize((max(x1 - x0, 1), max(y1 - y0, 1)))
        with painter.frame(geometry.visible, geometry.rotation) as (width, height):
            size = min(QR_SIZE, min(width, height) / 4)
            wanted = painter.setter.line(words, face, TEXT_SIZE).width + 2 * PADDING
            text_width = max(0.0, min(TEXT_WIDTH, wanted, width - 2 * MARGIN - GAP - size))
            places = _places(width, height, size, text_width)
            if places:
                blank = [p for p in places if not _inked(ink, p.box, height)]
                # Nowhere blank: where least is drawn (the words stay readable, mostly).
                place = blank[0] if blank else min(places, key=lambda p: _inked(ink, p.box, height))
                _draw_qr(canvas, place.qr_x, place.y, size)
                if text_width > 0:
                    alignment = "right" if place.corner.endswith("right") else "left"
                    look = Look(face, TEXT_SIZE, TEXT_COLOR, alignment)
                    canvas.saveState()
                    canvas.translate(place.text_x, place.y)
                    painter.text_line(words, look, text_width, TEXT_SIZE * 2)
                    canvas.restoreState()
        canvas.showPage()
    canvas.save()
    placements = {index: index for index in range(len(pages))}
    add_overlays(document, open_pdf(buffer.getvalue()), placements, prefix=OVERLAY_PREFIX)
    return save_pdf(document)


def _places(width: float, height: float, size: float, text_width: float) -> list[_Place]:
    """The mark in each of CORNERS of a page ``width`` by ``height`` as shown, the QR code
    nearest the corner; none when the page is too small for it."""
    if width < 2 * MARGIN + size or height < 2 * MARGIN + size:
        return []
    span = size + (GAP + text_width if text_width > 0 else 0.0)
    places = []
    for corner in CORNERS:
        y = MARGIN if corner.startswith("bottom") else height - MARGIN - size
        if corner.endswith("right"):
            qr_x = width - MARGIN - size
            text_x, left = qr_x - GAP - text_width, width - MARGIN - span
        else:
            qr_x = MARGIN
            text_x, left = MARGIN + size + GAP, MARGIN
        places.append(_Place(corner, qr_x, text_x, y, (left, y, left + span, y + size)))
    return places


def _ink(pdf: bytes) -> list[Image.Image]:
    """Each page as shown, in grey, a pixel a point (pdfium, as the signing page draws them)."""
    with PDFIUM:
        document = pypdfium2.PdfDocument(pdf)
        try:
            images = []
            for index in range(len(document)):
                page = document[index]
                images.append(page.render(scale=1, may_draw_forms=True).to_pil().convert("L"))
                page.close()
            return images
        finally:
            document.close()


def _inked(ink: Image.Image, box: tuple[float, float, float, float], height: float) -> int:
    """How many pixels of ``box`` (points, from the page's bottom left as shown) are drawn on."""
    x0, y0, x1, y1 = box
    scale = ink.height / height if height else 1.0
    crop = ink.crop(
        (
            math.floor(x0 * scale),
            math.floor((height - y1) * scale),
            math.ceil(x1 * scale),
            math.ceil((height - y0) * scale),
        )
    )
    return sum(crop.point(lambda value: 255 if value < INKED else 0).histogram()[255:])


def _qr_form(canvas: Canvas, url: str) -> None:
    """The QR code of ``url`` (error correction M: a crease or a smudge on paper), as vector
    squares with its quiet zone of four modules, QR_SIZE square: drawn once, as a form every
    page uses (encoding it is most of a page's time, and the file holds it once)."""
    widget = QrCodeWidget(url, barLevel="M", barBorder=4)
    bx0, by0, bx1, by1 = widget.getBounds()
    sx, sy = QR_SIZE / (bx1 - bx0), QR_SIZE / (by1 - by0)
    drawing = Drawing(QR_SIZE, QR_SIZE, transform=[sx, 0, 0, sy, -bx0 * sx, -by0 * sy])
    drawing.add(widget)
    canvas.beginForm(QR_FORM, lowerx=0, lowery=0, upperx=QR_SIZE, uppery=QR_SIZE)
    renderPDF.draw(drawing, canvas, 0, 0)
    canvas.endForm()


def _draw_qr(canvas: Canvas, x: float, y: float, size: float) -> None:
    """The code ``size`` square at (x, y); its quiet zone is left as the page is (see CORNERS)."""
    canvas.saveState()
    canvas.translate(x, y)
    canvas.scale(size / QR_SIZE, size / QR_SIZE)
    canvas.doForm(QR_FORM)
    canvas.restoreState()
