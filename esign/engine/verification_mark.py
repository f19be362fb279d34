"""verification_mark: a small QR code and a short link to /verify in the bottom margin of every
page of a finished document, drawn into the pages' content just before the seal, so that the
seal covers it and a printed copy can be checked (createEtchPacket's ``verificationStamp``).

Where: the bottom right corner of each page as it is shown (its CropBox, turned with /Rotate),
MARGIN from the edges (most printers cannot print closer), the QR code QR_SIZE square with the
link's words on one line to its left. Every page carries it, so one printed page is enough.

Why into the content and not as an annotation: pyHanko (and Acrobat) count an annotation added
after a signature as a change to the signed document, and a mark drawn before the seal is inside
what the seal signs either way. Drawing rewrites the file (as signers' stamps do), which would
break a signature the document already carries: ``carries_signatures`` says so, and the caller
leaves such a document unmarked rather than invalidate anyone's signature.

Pure Python (no Django): the link is the caller's.
"""

from __future__ import annotations

import io

from reportlab.graphics import renderPDF
from reportlab.graphics.barcode.qr import QrCodeWidget
from reportlab.graphics.shapes import Drawing
from reportlab.pdfgen.canvas import Canvas

from core.engine.fonts import DEFAULT_FAMILY, FontLibrary
from core.engine.pdf import add_overlays, open_pdf, save_pdf
from core.engine.pdf.draw import Look, Painter
from core.engine.pdf.text import TextSetter
from esign.engine.pdf_signatures import open_pdf as open_signed_pdf
from esign.engine.pdf_signatures import signature_fields

# stamp.py's reading of a page's visible box and rotation: the mark is placed as stamps are.
from esign.engine.stamp import _geometry

OVERLAY_PREFIX = "/DocAutomationVerificationMark"
QR_SIZE = 48.0  # points (two thirds of an inch): a module of about 1.2 pt for a link this long
MARGIN = 14.0  # from the page's edges: within what a printer prints
TEXT_SIZE = 5.5
TEXT_WIDTH = 190.0  # the words' box, left of the QR code; shrunk to fit on a narrow page
TEXT_COLOR = "#444444"
GAP = 3.0


def carries_signatures(pdf: bytes) -> bool:
    """Whether ``pdf`` holds a filled signature field: drawing into its pages would break it."""
    return bool(signature_fields(open_signed_pdf(pdf)))


def verification_mark(pdf: bytes, *, url: str, words: str, fonts: FontLibrary) -> bytes:
    """``pdf`` with the mark on every page: a QR code of ``url`` and ``words`` (the link as a
    person would type it) beside it. Raises PdfUnreadable for bytes that are not a PDF."""
    document = open_pdf(pdf)
    pages = [page.obj for page in document.pages]
    buffer = io.BytesIO()
    canvas = Canvas(buffer, invariant=1, pageCompression=1)
    painter = Painter(canvas, TextSetter(fonts))
    look = Look(fonts.resolve(DEFAULT_FAMILY), TEXT_SIZE, TEXT_COLOR, "right")
    code = _qr_widget(url)
    for page in pages:
        geometry = _geometry(page)
        x0, y0, x1, y1 = geometry.media_box
        canvas.setPageSize((max(x1 - x0, 1), max(y1 - y0, 1)))
        with painter.frame(geometry.visible, geometry.rotation) as (width, height):
            size = min(QR_SIZE, max(width, height) / 4)
            x, y = width - MARGIN - size, MARGIN
            if x > 0 and y + size < height:
                _draw_qr(canvas, code, x, y, size)
                text_width = min(TEXT_WIDTH, x - MARGIN)
                if text_width > 0:
                    canvas.saveState()
                    canvas.translate(x - GAP - text_width, y)
                    painter.text_line(words, look, text_width, TEXT_SIZE * 2)
                    canvas.restoreState()
        canvas.showPage()
    canvas.save()
    placements = {index: index for index in range(len(pages))}
    add_overlays(document, open_pdf(buffer.getvalue()), placements, prefix=OVERLAY_PREFIX)
    return save_pdf(document)


def _qr_widget(url: str) -> QrCodeWidget:
    """The QR code of ``url``, error correction M (a crease or a smudge on paper), as vector
    squares with its quiet zone of four modules."""
    return QrCodeWidget(url, barLevel="M", barBorder=4)


def _draw_qr(canvas: Canvas, widget: QrCodeWidget, x: float, y: float, size: float) -> None:
    """The code ``size`` square at (x, y), on white: scannable over whatever the page has."""
    canvas.saveState()
    canvas.setFillColorRGB(1, 1, 1)
    canvas.rect(x, y, size, size, stroke=0, fill=1)
    canvas.restoreState()
    bx0, by0, bx1, by1 = widget.getBounds()
    sx, sy = size / (bx1 - bx0), size / (by1 - by0)
    drawing = Drawing(size, size, transform=[sx, 0, 0, sy, -bx0 * sx, -by0 * sy])
    drawing.add(widget)
    renderPDF.draw(drawing, canvas, x, y)
