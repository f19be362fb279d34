"""stamp_pdf: what a signer gives (signatures, initials, typed values, ticks) drawn onto the pages
of a document, before the document is signed with the service's certificate.

Stamps are drawn with reportlab on an overlay, one overlay page per stamped page, which
core.engine.pdf.pages then draws over the document's pages: everything the document had
(text, annotations, links, earlier signers' stamps) stays as it was, and stamping again for the
next signer adds another overlay on top.

Geometry: a stamp's rect is in the page's default user space before /Rotate is applied, as
template fields are (``core.engine.template_spec``), so it is placed exactly where the field
was drawn, whatever the page's /Rotate and wherever its MediaBox starts. What is drawn inside
the rect is turned with the page, so that it reads upright as the page is shown.

Fitting: drawn signatures (PNGs) are cropped to their ink, then scaled to fit the rect keeping
their aspect ratio and centred in it (above the caption band, when there is a caption); typed
signatures and initials are set in the handwriting font, as large as the rect allows (up to
MAX_SIGNATURE_SIZE), shrunk to its width and centred; text and dates are set in Noto Sans at
TEXT_SIZE, shrunk to fit like filled fields, and wrapped when they are too long for one line of
a box that is tall enough for two.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pikepdf
from reportlab.lib.colors import HexColor
from reportlab.pdfgen.canvas import Canvas

from core.engine.fonts import DEFAULT_FAMILY, FontFace, FontLibrary
from core.engine.fonts.coverage import is_usable_truetype
from core.engine.images import LoadedImage
from core.engine.pdf import add_overlays, inherited, media_box, open_pdf, save_pdf
from core.engine.pdf.draw import Look, Painter
from core.engine.pdf.text import LINE_SPACING, PADDING, TextSetter
from core.engine.problems import Problem
from core.engine.template_spec import Rect
from esign.engine.errors import HandwritingFontUnusable, StampInvalid
from esign.engine.signature_image import SignatureImageUnusable, signature_image

StampKind = Literal["signature", "initial", "text", "date", "checkbox"]
STAMP_KINDS: tuple[str, ...] = ("signature", "initial", "text", "date", "checkbox")
SIGNATURE_KINDS = ("signature", "initial")

OVERLAY_PREFIX = "/DocAutomationStamp"
INK = "#000000"
TEXT_SIZE = 10.0
MAX_SIGNATURE_SIZE = 48.0
CAPTION_COLOR = "#444444"
CAPTION_SIZE = 7.0
# The caption's band at the bottom of the rect: a quarter of it, kept between these heights.
CAPTION_BAND_MIN, CAPTION_BAND_MAX = 6.0, 10.0
CAPTION_GAP = 2.0
TEST_MARK_TEXT = "TEST \u2014 not legally binding"
TEST_MARK_COLOR = "#C62828"
TEST_MARK_ALPHA = 0.4
TEST_MARK_BANNER = 16.0  # height of the banner along the top edge
HANDWRITING_FAMILY = "Handwriting"  # the face's own name; never looked up in the catalog


@dataclass(frozen=True)
class Stamp:
    """One thing a signer puts on a page.

    page: 0-based. rect: PDF user space of that page, unrotated (as template fields).
    signature / initial: exactly one of ``image_png`` (a drawn signature, a PNG whose
    transparent pixels stay transparent) and ``text`` (typed, set in the handwriting font);
    ``caption`` is an optional small line in the bottom band of the rect ("Signed by ...").
    text / date: ``text``, already formatted (the engine never reads the clock).
    checkbox: a check mark when ``checked``.
    """

    page: int
    rect: Rect
    kind: StampKind
    text: str | None = None
    image_png: bytes | None = field(default=None, repr=False)
    checked: bool = False
    caption: str | None = None

    def __post_init__(self) -> None:
        # Misuse by the caller (the service builds stamps), not a problem with the signer's input.
        if self.kind not in STAMP_KINDS:
            raise ValueError(f"unknown stamp kind {self.kind!r}")
        if self.kind in SIGNATURE_KINDS:
            if (self.text is None) == (self.image_png is None):
                raise ValueError(f"a {self.kind} stamp has exactly one of text and image_png")
        elif self.image_png is not None:
            raise ValueError(f"a {self.kind} stamp has no image")
        if self.kind in ("text", "date") and self.text is None:
            raise ValueError(f"a {self.kind} stamp needs its text")
        if self.kind == "checkbox" and self.text is not None:
            raise ValueError("a checkbox stamp has no text")
        if self.checked and self.kind != "checkbox":
            raise ValueError("only a checkbox stamp is checked")
        if self.caption is not None and self.kind not in SIGNATURE_KINDS:
            raise ValueError("only signature and initial stamps have a caption")


@dataclass(frozen=True)
class _PageGeometry:
    media_box: tuple[float, float, float, float]
    visible: Rect  # the CropBox within the MediaBox: what a viewer shows
    rotation: int


def _rotation(page: pikepdf.Object) -> int:
    value = inherited(page, "/Rotate")
    try:
        rotation = int(value) % 360 if value is not None else 0
    except (TypeError, ValueError):
        return 0
    return rotation if rotation in (0, 90, 180, 270) else 0  # viewers ignore other values


def _geometry(page: pikepdf.Object) -> _PageGeometry:
    x0, y0, x1, y1 = media = media_box(page)
    crop = inherited(page, "/CropBox")
    if isinstance(crop, pikepdf.Array) and len(crop) == 4:
        cx0, cy0, cx1, cy1 = (float(v) for v in crop)
        left, right = max(x0, min(cx0, cx1)), min(x1, max(cx0, cx1))
        bottom, top = max(y0, min(cy0, cy1)), min(y1, max(cy0, cy1))
        if right > left and top > bottom:
            x0, y0, x1, y1 = left, bottom, right, top
    return _PageGeometry(media, Rect.from_corners(x0, y0, x1, y1), _rotation(page))


def _signature_image(data: bytes, path: str) -> LoadedImage:
    """The drawn signature, checked and cropped to its ink (esign.engine.signature_image)."""
    try:
        return signature_image(data)
    except SignatureImageUnusable as unusable:
        raise StampInvalid.single(path, str(unusable)) from None


def _check(stamps: Sequence[Stamp], page_count: int) -> dict[int, LoadedImage]:
    """Every problem of every stamp at once; the decoded images by stamp index."""
    problems: list[Problem] = []
    images: dict[int, LoadedImage] = {}
    for index, stamp in enumerate(stamps):
        if not 0 <= stamp.page < page_count:
            problems.append(
                Problem(f"stamps.{index}.page", f"The document has {page_count} page(s).")
            )
        if not (stamp.rect.width > 0 and stamp.rect.height > 0):
            problems.append(Problem(f"stamps.{index}.rect", "The rect has no area."))
        if stamp.image_png is not None:
            try:
                images[index] = _signature_image(stamp.image_png, f"stamps.{index}.image_png")
            except StampInvalid as error:
                problems.extend(error.problems)
    if problems:
        raise StampInvalid(problems)
    return images


class _Stamper:
    def __init__(self, canvas: Canvas, fonts: FontLibrary, handwriting_font: Path | None) -> None:
        self.canvas = canvas
        self.fonts = fonts
        self.painter = Painter(canvas, TextSetter(fonts))
        self.handwriting_font = handwriting_font
        self._handwriting: FontFace | None = None

    @property
    def handwriting(self) -> FontFace:
        """The face of typed signatures; Noto Sans Italic when no handwriting font is set.

        Checked on first use only: a deployment whose font file is broken still stamps drawn
        signatures, and says what is wrong as soon as a typed one comes.
        """
        if self._handwriting is None:
            path = self.handwriting_font
            if path is None:
                self._handwriting = self.fonts.resolve(DEFAULT_FAMILY, italic=True)
            elif is_usable_truetype(path):
                self._handwriting = FontFace(HANDWRITING_FAMILY, False, False, path=path)
            else:
                raise HandwritingFontUnusable(
                    f"{path} is not a TrueType-outline font file (CFF and WOFF cannot be embedded)"
                )
        return self._handwriting

    def look(self, size: float, color: str = INK, alignment: str = "left") -> Look:
        return Look(self.fonts.resolve(DEFAULT_FAMILY), size, color, alignment)

    def stamp(self, stamp: Stamp, image: LoadedImage | None, rotation: int) -> None:
        with self.painter.frame(stamp.rect, rotation) as (width, height):
            if stamp.kind in SIGNATURE_KINDS:
                self.signature(stamp, image, width, height)
            elif stamp.kind == "checkbox":
                if stamp.checked:
                    self.painter.check(self.look(TEXT_SIZE), width, height)
            else:
                self.text(stamp.text or "", width, height)

    def signature(
        self, stamp: Stamp, image: LoadedImage | None, width: float, height: float
    ) -> None:
        band = 0.0
        if stamp.caption:
            band = min(CAPTION_BAND_MAX, max(CAPTION_BAND_MIN, height / 4))
            caption_look = self.look(CAPTION_SIZE, CAPTION_COLOR, "center")
            self.painter.text_line(stamp.caption, caption_look, width, band)
        # A little air between the signature and its caption, so ink never touches the words.
        lift = band + CAPTION_GAP if band else 0.0
        area = max(height - lift, 1.0)
        self.canvas.saveState()
        self.canvas.translate(0, lift)
        if image is not None:
            self.painter.image(image, width, area)
        else:
            look = Look(self.handwriting, MAX_SIGNATURE_SIZE, INK, "center")
            self.painter.text_line(stamp.text or "", look, width, area)
        self.canvas.restoreState()

    def text(self, value: str, width: float, height: float) -> None:
        look = self.look(TEXT_SIZE)
        setter = self.painter.setter
        two_lines = height >= 2 * LINE_SPACING * TEXT_SIZE
        fits = setter.line(value, look.face, TEXT_SIZE).width <= width - 2 * PADDING
        if "\n" in value or (two_lines and not fits):
            self.painter.text_block(value, look, width, height, shrink=True)
        else:
            self.painter.text_line(value, look, width, height)

    def test_mark(self, geometry: _PageGeometry) -> None:
        """Translucent text across the page's diagonal and along its top edge, both upright as
        the page is shown: unmistakable to a reader, and searchable."""
        with self.painter.frame(geometry.visible, geometry.rotation) as (width, height):
            banner = min(TEST_MARK_BANNER, height / 4)
            self.canvas.saveState()
            self.canvas.translate(0, height - banner)
            self.translucent_line(TEST_MARK_TEXT, width, banner)
            self.canvas.restoreState()
            band_width = math.hypot(width, height) * 0.8
            band_height = min(width, height) * 0.12
            self.canvas.translate(width / 2, height / 2)
            self.canvas.rotate(math.degrees(math.atan2(height, width)))
            self.canvas.translate(-band_width / 2, -band_height / 2)
            self.translucent_line(TEST_MARK_TEXT, band_width, band_height)

    def translucent_line(self, value: str, width: float, height: float) -> None:
        """One line centred in the box, as large as fits (Painter draws opaque text only)."""
        setter = self.painter.setter
        face = self.fonts.resolve(DEFAULT_FAMILY, bold=True)
        line, size = setter.fit_line(value, face, height, width, height, shrink=True)
        ascent, descent = setter.extent(setter.font_name(face))
        text = self.canvas.beginText()
        text.setTextOrigin(
            (width - line.width) / 2, (height - (ascent - descent) * size) / 2 - descent * size
        )
        text.setFillColor(HexColor(TEST_MARK_COLOR), alpha=TEST_MARK_ALPHA)
        for name, part in line.runs:
            text.setFont(name, size)
            text.textOut(part)
        self.canvas.drawText(text)


def stamp_pdf(
    pdf: bytes,
    stamps: Sequence[Stamp],
    *,
    fonts: FontLibrary,
    handwriting_font: Path | None,
    test_mark: bool = False,
) -> bytes:
    """``pdf`` with ``stamps`` drawn on their pages, and the test mark on every page if asked.

    handwriting_font: a TrueType file for typed signatures and initials (None: Noto Sans
    Italic). Raises StampInvalid (every problem of every stamp: a page the document does not
    have, a rect without area, an unreadable, empty or oversized signature image),
    HandwritingFontUnusable, and PdfUnreadable for bytes that are not a PDF.
    """
    document = open_pdf(pdf)
    pages = [page.obj for page in document.pages]
    images = _check(stamps, len(pages))
    by_page: dict[int, list[int]] = {}
    for index, stamp in enumerate(stamps):
        by_page.setdefault(stamp.page, []).append(index)
    drawn = sorted(set(range(len(pages))) if test_mark else set(by_page))
    if drawn:
        buffer = io.BytesIO()
        canvas = Canvas(buffer, invariant=1, pageCompression=1)
        stamper = _Stamper(canvas, fonts, handwriting_font)
        for page_index in drawn:
            geometry = _geometry(pages[page_index])
            x0, y0, x1, y1 = geometry.media_box
            # Only tidiness: the overlay page becomes a form whose BBox is the page's MediaBox.
            canvas.setPageSize((max(x1 - x0, 1), max(y1 - y0, 1)))
            for index in by_page.get(page_index, []):
                stamper.stamp(stamps[index], images.get(index), geometry.rotation)
            if test_mark:
                stamper.test_mark(geometry)
            canvas.showPage()
        canvas.save()
        placements = {page_index: n for n, page_index in enumerate(drawn)}
        add_overlays(document, open_pdf(buffer.getvalue()), placements, prefix=OVERLAY_PREFIX)
    return save_pdf(document)
