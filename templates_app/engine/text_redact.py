"""Removing the glyphs drawn inside given boxes from a PDF's pages: a text tag's characters.

The glyphs are taken out of the page's content stream, not painted over: a box painted over
them leaves the text to text extraction, copy and search (and shows on a page that is not
white). The content stream is read operator by operator with the text state a viewer keeps
(CTM, text matrix, font, size, spacing, scaling, rise); each glyph a text-showing operator draws
is placed from its font's widths, and one whose middle lies inside a box is dropped, replaced
by a TJ displacement of its own advance, so every glyph after it stays where it was. Operators
that draw no removed glyph are written back as they were.

Glyphs drawn inside form XObjects or annotation appearances are not reached: the caller checks
the result (``text_tags`` reads the text again and lists what is left).

Pure Python (pikepdf).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pikepdf
from pikepdf import Array, Matrix, Operator, String
from reportlab.pdfbase import pdfmetrics

from core.engine.pdf import inherited, open_pdf, save_pdf
from core.engine.template_spec import Rect

# A glyph is inside a box when its middle (half its advance across, this much of an em up
# from the baseline) is within the box, give or take this many points.
_MIDDLE_UP = 0.3
_SLACK = 0.5
_SUBSET = re.compile(r"^[A-Z]{6}\+")
_SHOW = {"Tj", "TJ", "'", '"'}


@dataclass(frozen=True)
class _Font:
    """How a font's codes are read: bytes per code and each code's advance in text space."""

    two_byte: bool
    widths: dict[int, float]
    default: float

    def codes(self, data: bytes) -> list[bytes]:
        if self.two_byte:
            return [data[i : i + 2] for i in range(0, len(data), 2)]
        return [data[i : i + 1] for i in range(len(data))]

    def advance(self, code: bytes) -> float:
        return self.widths.get(int.from_bytes(code, "big"), self.default)

    def measure(self, data: bytes) -> tuple[float, int, int]:
        """The widths of the codes of ``data`` added up (ems), how many codes, how many single
        byte spaces (which word spacing widens)."""
        get, default = self.widths.get, self.default
        if self.two_byte:
            total = sum(
                get(data[i] << 8 | data[i + 1], default) for i in range(0, len(data) - 1, 2)
            )
            return total, len(data) // 2, 0
        return sum(get(byte, default) for byte in data), len(data), data.count(32)


def _simple_widths(font: Any, scale: float) -> tuple[dict[int, float], float]:
    widths: dict[int, float] = {}
    if "/Widths" in font:
        first = int(font.get("/FirstChar", 0))
        widths = {first + i: float(w) * scale for i, w in enumerate(font.Widths)}
    descriptor = font.get("/FontDescriptor")
    missing = float(descriptor.get("/MissingWidth", 0)) if descriptor is not None else 0.0
    if not widths:
        # The standard 14 fonts may come without widths: their metrics are reportlab's.
        name = _SUBSET.sub("", str(font.get("/BaseFont", "/Helvetica"))[1:])
        try:
            standard = pdfmetrics.getFont(name).widths
        except (KeyError, AttributeError):
            standard = [500] * 256
        widths = {code: w * scale for code, w in enumerate(standard)}
    return widths, missing * scale


def _cid_widths(font: Any) -> tuple[dict[int, float], float]:
    descendant = font.DescendantFonts[0]
    default = float(descendant.get("/DW", 1000)) / 1000
    widths: dict[int, float] = {}
    entries = list(descendant.get("/W", Array()))
    i = 0
    while i + 1 < len(entries):
        first = int(entries[i])
        if isinstance(entries[i + 1], Array):  # c [w1 w2 ...]
            for offset, width in enumerate(entries[i + 1]):
                widths[first + offset] = float(width) / 1000
            i += 2
        elif i + 2 < len(entries):  # c_first c_last w
            last, width = int(entries[i + 1]), float(entries[i + 2]) / 1000
            if last - first <= 65535:
                widths.update(dict.fromkeys(range(first, last + 1), width))
            i += 3
        else:
            break
    return widths, default


def _font(resources: Any, name: str, cache: dict[str, _Font]) -> _Font:
    if name in cache:
        return cache[name]
    fonts = resources.get("/Font") if resources is not None else None
    font = fonts.get(name) if fonts is not None else None
    if font is None:
        found = _Font(two_byte=False, widths={}, default=0.5)
    elif font.get("/Subtype") == "/Type0":
        # Identity-H (what HTML renderers and word processors write) maps two-byte codes to CIDs.
        widths, default = _cid_widths(font)
        found = _Font(two_byte=True, widths=widths, default=default)
    elif font.get("/Subtype") == "/Type3":
        scale = float(font.FontMatrix[0]) if "/FontMatrix" in font else 0.001
        widths, default = _simple_widths(font, scale)
        found = _Font(two_byte=False, widths=widths, default=default)
    else:
        widths, default = _simple_widths(font, 0.001)
        found = _Font(two_byte=False, widths=widths, default=default)
    cache[name] = found
    return found


@dataclass(frozen=True)
class _State:
    ctm: Matrix = Matrix()
    font: str = ""
    size: float = 0.0
    char_spacing: float = 0.0
    word_spacing: float = 0.0
    scale: float = 1.0
    leading: float = 0.0
    rise: float = 0.0


class _Page:
    """One page's content stream, read and rewritten."""

    def __init__(self, resources: Any, boxes: Sequence[Rect]) -> None:
        self.resources = resources
        self.boxes = boxes
        self.fonts: dict[str, _Font] = {}
        self.state = _State()
        self.stack: list[_State] = []
        self._tm = Matrix()
        # A run shown away from every box whose advance is not added to the text matrix yet:
        # the next run of the text object needs it, a new line or text object does not (most
        # runs of a page are followed by one).
        self._pending: tuple[list[Any], _Font, _State] | None = None
        self.tlm = Matrix()
        self.changed = False

    def _settle(self) -> None:
        """Add the pending run's advance to the text matrix."""
        if self._pending is not None:
            parts, font, state = self._pending
            self._pending = None
            self._tm = Matrix(1, 0, 0, 1, self._advance(parts, font, state), 0) @ self._tm

    @property
    def tm(self) -> Matrix:
        self._settle()
        return self._tm

    @tm.setter
    def tm(self, value: Matrix) -> None:
        self._pending = None
        self._tm = value

    def _inside(self, glyph: Matrix, width: float) -> bool:
        """Whether the glyph drawn by ``glyph`` (its text rendering matrix), ``width`` ems
        across, belongs to a box: upright, its middle inside the box, and no taller than the
        box by half (a diagonal watermark or a large letter crossing a tag is not the tag's)."""
        upright = glyph.a > 0 and glyph.d > 0 and abs(glyph.b) + abs(glyph.c) < 1e-3 * glyph.d
        if not upright:
            return False
        x, y = glyph.transform((width / 2, _MIDDLE_UP))
        return any(
            box.x - _SLACK <= x <= box.right + _SLACK
            and box.y - _SLACK <= y <= box.top + _SLACK
            and glyph.d <= 1.5 * box.height
            for box in self.boxes
        )

    def _near(self, glyph: Matrix) -> bool:
        """Whether a run starting with ``glyph`` (upright) is on the line of a box."""
        if not (glyph.a > 0 and glyph.d > 0 and abs(glyph.b) + abs(glyph.c) < 1e-3 * glyph.d):
            return False
        y = glyph.f + _MIDDLE_UP * glyph.d
        return any(box.y - _SLACK <= y <= box.top + _SLACK for box in self.boxes)

    @staticmethod
    def _advance(parts: Iterable[Any], font: _Font, state: _State) -> float:
        """How far ``parts`` move the text matrix across, in text space."""
        total = 0.0
        for part in parts:
            if isinstance(part, String):
                widths, codes, spaces = font.measure(bytes(part))
                total += widths * state.size + codes * state.char_spacing
                total += spaces * state.word_spacing
            else:
                total -= float(part) / 1000 * state.size
        return total * state.scale

    def _next_line(self, tx: float, ty: float) -> None:
        self.tlm = Matrix(1, 0, 0, 1, tx, ty) @ self.tlm
        self.tm = self.tlm

    def _show(self, parts: Iterable[Any]) -> tuple[list[Any], bool]:
        """Move the text matrix over ``parts`` (a TJ array's strings and numbers); the parts
        again with the glyphs inside a box replaced by their advance, and whether any was."""
        state = self.state
        font = _font(self.resources, state.font, self.fonts)
        size, scale = state.size, state.scale
        params = Matrix(size * scale, 0, 0, size, 0, state.rise)
        start = params @ self._tm @ state.ctm
        if self._pending is not None and abs(start.b) > 1e-9:
            start = params @ self.tm @ state.ctm  # a turned run: the pending advance moves it up
        if not size or not self._near(start):
            # A run on no box's line (most of a page): moved over whole, not glyph by glyph,
            # and only if a run after it needs it.
            self._settle()  # the run before it
            self._pending = (list(parts), font, state)
            return [], False
        out: list[Any] = []
        dropped = False

        def push(item: Any) -> None:
            # Neighbouring strings, or displacements, are written as one.
            if out and type(item) is type(out[-1]) and isinstance(item, float | bytes):
                out[-1] += item
            else:
                out.append(item)

        for part in parts:
            if isinstance(part, String):
                for code in font.codes(bytes(part)):
                    width = font.advance(code)
                    spacing = state.char_spacing
                    if not font.two_byte and code == b" ":
                        spacing += state.word_spacing
                    advance = (width * size + spacing) * scale
                    if self._inside(params @ self.tm @ state.ctm, width):
                        push(-(width * 1000 + spacing * 1000 / size))
                        dropped = True
                    else:
                        push(code)
                    self.tm = Matrix(1, 0, 0, 1, advance, 0) @ self.tm
            else:
                shift = float(part)  # a number: int or Decimal
                self.tm = Matrix(1, 0, 0, 1, -shift / 1000 * size * scale, 0) @ self.tm
                push(shift)
        return out, dropped

    def rewrite(self, operations: Sequence[Any]) -> list[Any]:
        out: list[Any] = []
        for instruction in operations:
            if isinstance(instruction, pikepdf.ContentStreamInlineImage):
                out.append(instruction)
                continue
            operands, op = list(instruction.operands), str(instruction.operator)
            try:
                out.extend(self._operate(operands, op))
            except (ValueError, TypeError, IndexError, AttributeError, KeyError):
                out.append(instruction)  # an operator that does not read is left as it is
        return out

    def _operate(self, operands: list[Any], op: str) -> list[Any]:
        state = self.state
        same: list[Any] = [pikepdf.ContentStreamInstruction(operands, Operator(op))]
        if op == "q":
            self.stack.append(state)
        elif op == "Q":
            self.state = self.stack.pop() if self.stack else state
        elif op == "cm":
            self.state = replace(state, ctm=Matrix(*[float(v) for v in operands]) @ state.ctm)
        elif op == "BT":
            self.tm = self.tlm = Matrix()
        elif op == "Tf":
            self.state = replace(state, font=str(operands[0]), size=float(operands[1]))
        elif op == "Tc":
            self.state = replace(state, char_spacing=float(operands[0]))
        elif op == "Tw":
            self.state = replace(state, word_spacing=float(operands[0]))
        elif op == "Tz":
            self.state = replace(state, scale=float(operands[0]) / 100)
        elif op == "TL":
            self.state = replace(state, leading=float(operands[0]))
        elif op == "Ts":
            self.state = replace(state, rise=float(operands[0]))
        elif op in ("Td", "TD"):
            if op == "TD":
                self.state = replace(state, leading=-float(operands[1]))
            self._next_line(float(operands[0]), float(operands[1]))
        elif op == "Tm":
            self.tm = self.tlm = Matrix(*[float(v) for v in operands])
        elif op == "T*":
            self._next_line(0, -state.leading)
        elif op in _SHOW:
            return self._text(operands, op) or same
        return same

    def _text(self, operands: list[Any], op: str) -> list[Any] | None:
        """A text-showing operator: None when it drops nothing, else what replaces it."""
        before: list[Any] = []
        if op == '"':
            self.state = replace(
                self.state, word_spacing=float(operands[0]), char_spacing=float(operands[1])
            )
            before = [
                pikepdf.ContentStreamInstruction([operands[0]], Operator("Tw")),
                pikepdf.ContentStreamInstruction([operands[1]], Operator("Tc")),
            ]
        if op in ("'", '"'):
            self._next_line(0, -self.state.leading)
            before.append(pikepdf.ContentStreamInstruction([], Operator("T*")))
        parts = list(operands[0]) if op == "TJ" else [operands[-1]]
        shown, dropped = self._show(parts)
        if not dropped:
            return None
        self.changed = True
        array = Array([String(p) if isinstance(p, bytes) else round(p, 3) for p in shown])
        return [*before, pikepdf.ContentStreamInstruction([array], Operator("TJ"))]


def remove_glyphs(data: bytes, boxes: dict[int, list[Rect]]) -> bytes:
    """The PDF ``data`` without the glyphs drawn inside ``boxes`` (page index -> boxes in the
    page's default user space) by the pages' own content streams. Pages with nothing to remove
    are left as they are."""
    pdf = open_pdf(data)
    for index, rects in sorted(boxes.items()):
        page = pdf.pages[index]
        resources = inherited(page.obj, "/Resources")
        reader = _Page(resources, rects)
        operations = reader.rewrite(list(pikepdf.parse_content_stream(page)))
        if reader.changed:
            page.obj.Contents = pdf.make_stream(pikepdf.unparse_content_stream(operations))
    return save_pdf(pdf)
