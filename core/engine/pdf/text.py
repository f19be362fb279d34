"""Fitting text into boxes: glyph-fallback runs, measuring, shrinking, wrapping.

Widths come from reportlab's metrics of the very fonts that are embedded, so what is measured
is what is drawn. Right-to-left text (Arabic, Hebrew) is shaped and put in visual order here
(core.engine.fonts.shaping), once per drawn line: every engine that draws text (fill, stamps,
the audit trail) goes through this class.
"""

from __future__ import annotations

from dataclasses import dataclass

from reportlab.pdfbase import pdfmetrics

from core.engine.fonts import FontFace, FontLibrary, register_face
from core.engine.fonts.shaping import (
    FSI,
    LRI,
    PDI,
    RLI,
    has_isolates,
    needs_ordering,
    shape_logical,
    visual_line,
    without_isolates,
)

MIN_FONT_SIZE = 4.0
PADDING = 2.0
LINE_SPACING = 1.2
Run = tuple[str, str]  # (reportlab font name, text)


@dataclass(frozen=True)
class Line:
    runs: tuple[Run, ...]
    width: float


class TextSetter:
    """Splits text into runs of fonts that have its glyphs, and measures them."""

    def __init__(self, fonts: FontLibrary) -> None:
        self.fonts = fonts
        self._names: dict[FontFace, str] = {}

    def font_name(self, face: FontFace) -> str:
        name = self._names.get(face)
        if name is None:
            name = self._names[face] = register_face(face)
        return name

    def runs(self, text: str, face: FontFace) -> tuple[Run, ...]:
        return tuple((self.font_name(f), part) for f, part in self.fonts.split_runs(text, face))

    @staticmethod
    def width(runs: tuple[Run, ...], size: float) -> float:
        # Isolate marks (core.engine.fonts.shaping) are not drawn: they take no room.
        return sum(
            pdfmetrics.stringWidth(without_isolates(text), name, size) for name, text in runs
        )

    @staticmethod
    def extent(name: str) -> tuple[float, float]:
        """(ascent, descent) of a font per point of size; descent is negative."""
        ascent, descent = pdfmetrics.getAscentDescent(name, 1.0)
        return ascent, descent

    def line(self, text: str, face: FontFace, size: float) -> Line:
        runs = self.runs(visual_line(text), face)
        return Line(runs, self.width(runs, size))

    def fit_line(
        self, text: str, face: FontFace, size: float, width: float, height: float, shrink: bool
    ) -> tuple[Line, float]:
        """One line: the size capped to the box height, then shrunk to the width if allowed.

        What still does not fit is cut by the clipping path at the box edge.
        """
        ascent, descent = self.extent(self.font_name(face))
        size = min(size, max(MIN_FONT_SIZE, height / (ascent - descent)))
        line = self.line(text, face, size)
        available = width - 2 * PADDING
        if shrink and line.width > available > 0 and size > MIN_FONT_SIZE:
            size = max(MIN_FONT_SIZE, size * available / line.width)
            line = Line(line.runs, self.width(line.runs, size))
        return line, size

    @staticmethod
    def _text(line: Line) -> str:
        return "".join(text for _name, text in line.runs)

    def wrap(
        self, text: str, face: FontFace, size: float, width: float, *, bidi: bool = True
    ) -> list[Line]:
        """Greedy word wrap; newlines start new lines; words longer than a line are broken.
        ``bidi=False``: the lines stay in reading order (for right-to-left text, see above)."""
        available = max(1.0, width - 2 * PADDING)
        space = self.width(self.runs(" ", face), size)
        lines: list[Line] = []
        for paragraph in text.split("\n"):
            if bidi and needs_ordering(paragraph):
                # Wrapped in reading order with the joined letters' widths; each line is then
                # drawn in visual order, with the isolates still open at its start.
                open_isolates = ""
                for line in self.wrap(shape_logical(paragraph), face, size, width, bidi=False):
                    logical = self._text(line)
                    lines.append(self.line(open_isolates + logical, face, size))
                    open_isolates = _still_open(open_isolates + logical)
                continue
            if bidi and has_isolates(paragraph):
                paragraph = without_isolates(paragraph)
            current: list[Run] = []
            current_width = 0.0
            for word in paragraph.split(" "):
                for piece in self._pieces(word, face, size, available):
                    piece_width = self.width(piece, size)
                    gap = space if current else 0.0
                    if current and current_width + gap + piece_width > available:
                        lines.append(Line(tuple(current), current_width))
                        current, current_width, gap = [], 0.0, 0.0
                    if gap:
                        current.append((piece[0][0] if piece else current[-1][0], " "))
                    current.extend(piece)
                    current_width += gap + piece_width
            lines.append(Line(tuple(current), current_width))
        return lines

    def _pieces(
        self, word: str, face: FontFace, size: float, available: float
    ) -> list[tuple[Run, ...]]:
        runs = self.runs(word, face)
        if not word or self.width(runs, size) <= available:
            return [runs]
        pieces: list[tuple[Run, ...]] = []
        current = ""
        for char in word:
            if current and self.width(self.runs(current + char, face), size) > available:
                pieces.append(self.runs(current, face))
                current = ""
            current += char
        pieces.append(self.runs(current, face))
        return pieces

    def fit_block(
        self, text: str, face: FontFace, size: float, width: float, height: float, shrink: bool
    ) -> tuple[list[Line], float]:
        """Wrapped lines; with ``shrink`` the size drops until every line fits the height."""
        lines = self.wrap(text, face, size, width)
        while (
            shrink and size > MIN_FONT_SIZE and len(lines) * size * LINE_SPACING > height - PADDING
        ):
            size = max(MIN_FONT_SIZE, size * 0.9)
            lines = self.wrap(text, face, size, width)
        return lines, size


def _still_open(text: str) -> str:
    """The isolate marks that ``text`` opens and does not close, in order: a line wrapped inside
    an isolate goes on inside it."""
    opened: list[str] = []
    for char in text:
        if char in (LRI, RLI, FSI):
            opened.append(char)
        elif char == PDI and opened:
            opened.pop()
    return "".join(opened)
