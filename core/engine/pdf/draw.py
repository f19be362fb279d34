"""Drawing into a PDF page with reportlab: text in a box (with glyph fallback), check marks,
radio dots and images, in the local frame of a possibly rotated box.

Everything is drawn in a local frame: origin at the lower-left of the box, x along the text,
after the box's rotation. Fill places that frame on an overlay page (flat output) or on a page
of its own that becomes a widget's appearance stream; signing stamps use it the same way.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from reportlab.lib.colors import HexColor
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen.canvas import Canvas

from core.engine.fonts import FontFace
from core.engine.images import LoadedImage
from core.engine.pdf.geometry import local_frame
from core.engine.pdf.text import LINE_SPACING, MIN_FONT_SIZE, PADDING, Line, TextSetter
from core.engine.template_spec import Rect


@dataclass(frozen=True)
class Look:
    """A resolved style: the face (bold/italic chosen), size, colour and alignment."""

    face: FontFace
    size: float
    color: str
    alignment: str


class Painter:
    def __init__(self, canvas: Canvas, setter: TextSetter) -> None:
        self.canvas = canvas
        self.setter = setter

    @contextmanager
    def frame(self, rect: Rect, rotation: int) -> Iterator[tuple[float, float]]:
        """Enter the local frame of ``rect`` on the current page, clipped to the box."""
        width, height, (a, b, c, d, e, f) = local_frame(rect, rotation)
        self.canvas.saveState()
        self.canvas.transform(a, b, c, d, e + rect.x, f + rect.y)
        self._clip(width, height)
        try:
            yield width, height
        finally:
            self.canvas.restoreState()

    @contextmanager
    def whole_page(self, width: float, height: float) -> Iterator[tuple[float, float]]:
        """The local frame of an appearance page: the page itself."""
        self.canvas.saveState()
        self._clip(width, height)
        try:
            yield width, height
        finally:
            self.canvas.restoreState()

    def _clip(self, width: float, height: float) -> None:
        path = self.canvas.beginPath()
        path.rect(0, 0, width, height)
        self.canvas.clipPath(path, stroke=0, fill=0)

    # --- text ---------------------------------------------------------------------------------
    def _draw_line(self, line: Line, x: float, baseline: float, look: Look, size: float) -> None:
        text = self.canvas.beginText()
        text.setTextOrigin(x, baseline)
        text.setFillColor(HexColor(look.color))
        for name, part in line.runs:
            text.setFont(name, size)
            text.textOut(part)
        self.canvas.drawText(text)

    def _x(self, line: Line, look: Look, width: float) -> float:
        if look.alignment == "center":
            return (width - line.width) / 2
        if look.alignment == "right":
            return width - PADDING - line.width
        return PADDING

    def _primary(self, look: Look) -> str:
        return self.setter.font_name(look.face)

    def text_line(
        self, value: str, look: Look, width: float, height: float, *, shrink: bool = True
    ) -> None:
        if not value:
            return
        line, size = self.setter.fit_line(value, look.face, look.size, width, height, shrink)
        ascent, descent = self.setter.extent(self._primary(look))
        baseline = (height - (ascent - descent) * size) / 2 - descent * size
        self._draw_line(line, self._x(line, look, width), baseline, look, size)

    def text_block(
        self, value: str, look: Look, width: float, height: float, *, shrink: bool
    ) -> None:
        if not value:
            return
        ascent, descent = self.setter.extent(self._primary(look))
        # At least one whole line fits, whatever size was asked for: never spill out of the box.
        size = min(look.size, max(MIN_FONT_SIZE, height / (ascent - descent)))
        lines, size = self.setter.fit_block(value, look.face, size, width, height, shrink)
        baseline = height - PADDING / 2 - ascent * size
        if baseline + descent * size < 0:  # the box is one line high or less: centre that line
            baseline = (height - (ascent - descent) * size) / 2 - descent * size
        for line in lines:
            if baseline + descent * size < -0.5:
                break  # this line would cross the bottom edge: cut here
            self._draw_line(line, self._x(line, look, width), baseline, look, size)
            baseline -= size * LINE_SPACING

    # --- marks and images -----------------------------------------------------------------------
    def check(self, look: Look, width: float, height: float) -> None:
        """A drawn check mark (a vector path, not a font glyph), centred in the box."""
        side = min(width, height)
        x0, y0 = (width - side) / 2, (height - side) / 2
        self.canvas.setStrokeColor(HexColor(look.color))
        self.canvas.setLineWidth(max(0.6, side * 0.12))
        self.canvas.setLineCap(1)
        self.canvas.setLineJoin(1)
        path = self.canvas.beginPath()
        path.moveTo(x0 + side * 0.18, y0 + side * 0.52)
        path.lineTo(x0 + side * 0.42, y0 + side * 0.24)
        path.lineTo(x0 + side * 0.84, y0 + side * 0.80)
        self.canvas.drawPath(path, stroke=1, fill=0)

    def dot(self, look: Look, width: float, height: float) -> None:
        self.canvas.setFillColor(HexColor(look.color))
        self.canvas.circle(width / 2, height / 2, min(width, height) * 0.3, stroke=0, fill=1)

    def image(self, image: LoadedImage, width: float, height: float) -> None:
        """Scaled into the box keeping its aspect ratio, centred."""
        reader = ImageReader(io.BytesIO(image.data))
        image_width, image_height = reader.getSize()
        scale = min(width / image_width, height / image_height)
        drawn_width, drawn_height = image_width * scale, image_height * scale
        self.canvas.drawImage(
            reader,
            (width - drawn_width) / 2,
            (height - drawn_height) / 2,
            drawn_width,
            drawn_height,
            mask="auto",
        )
