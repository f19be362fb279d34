"""The printed text of a page as lines with positions, and the label printed next to a box.

Forms print a field's label to its left, above it, or (checkboxes) to its right. The lines come
from pypdf's text visitor in the page's default user space (the space of widget rects); only
horizontal text counts. pypdf reports where a text object starts, not where each glyph lands,
so a line's end is an estimate (half an em per character) and the rules below leave room for it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.engine.template_spec import Rect

# Half an em per character: the average advance of Latin text in the fonts forms use.
CHAR_WIDTH_EM = 0.5
_LETTER = re.compile(r"[^\W\d_]")


@dataclass
class TextLine:
    x: float
    y: float  # baseline
    size: float  # font size in points
    text: str

    @property
    def end(self) -> float:
        """Where the line probably ends (an estimate, see the module's note)."""
        return self.x + len(self.text) * self.size * CHAR_WIDTH_EM


def _multiply(m: Sequence[float], n: Sequence[float]) -> tuple[float, ...]:
    a, b, c, d, e, f = m
    p, q, r, s, t, u = n
    return (
        a * p + b * r,
        a * q + b * s,
        c * p + d * r,
        c * q + d * s,
        e * p + f * r + t,
        e * q + f * s + u,
    )


def page_lines(page: Any) -> list[TextLine]:
    """The horizontal text lines of a pypdf page, in content order."""
    lines: list[TextLine] = []

    def visit(text: str, cm: Any, tm: Any, font: Any, font_size: float) -> None:
        first = next((part for part in text.split("\n") if part.strip()), "")
        if not first:
            return
        a, b, c, d, e, f = _multiply(tm, cm)
        size = abs(font_size * d)
        if abs(b) > 1e-3 or abs(c) > 1e-3 or a <= 0 or size < 1:
            return  # rotated, mirrored or degenerate text is no label
        last = lines[-1] if lines else None
        if last is not None and abs(last.y - f) <= 1.5 and last.x - 1 <= e <= last.end + 2 * size:
            # The same line, continued (pypdf may repeat the start of the text object).
            last.text += first
            return
        lines.append(TextLine(x=e, y=f, size=size, text=first))

    try:
        page.extract_text(visitor_text=visit)
    except Exception:  # an unreadable content stream has no labels; the import goes on
        return lines
    return [line for line in lines if _LETTER.search(line.text)]


@dataclass(frozen=True)
class Label:
    text: str
    # Which part of the text names the box: the end of a line printed to its left is nearest.
    side: str  # "left", "above" or "right"


def _left(rect: Rect, lines: Sequence[TextLine]) -> Label | None:
    # Beside a box that holds several lines of text runs a paragraph, not a label: the label of
    # such a box (a tall comb box, a multi-line area) is above it.
    candidates = [
        line
        for line in lines
        if rect.height < 2.2 * line.size
        and line.x < rect.x - 1
        and rect.y - 2 <= line.y <= rect.top + 1
        and line.end >= rect.x - max(40.0, 4 * line.size)
    ]
    if not candidates:
        return None
    line = max(candidates, key=lambda candidate: candidate.x)
    text = line.text.strip()
    # A label that wraps: this line continues the one above it (same start, lower case).
    above = [
        other
        for other in lines
        if abs(other.x - line.x) <= 3 and 0 < other.y - line.y <= 1.6 * line.size
    ]
    if text[:1].islower() and above:
        text = min(above, key=lambda other: other.y).text.strip() + " " + text
    return Label(text, "left")


def _above(rect: Rect, lines: Sequence[TextLine]) -> Label | None:
    candidates = [
        line
        for line in lines
        if rect.top - 1 < line.y <= rect.top + max(12.0, 2.2 * line.size)
        and rect.x - 24 <= line.x < rect.right
    ]
    if not candidates:
        return None
    # The lowest text over the box, the one nearest its start on that baseline (a run set a
    # hair lower, in another size, is on it too), and the words that follow it closer than a
    # word space or two (one heading set as several runs: "ZIP" "Code").
    baseline = min(candidate.y for candidate in candidates)
    row = sorted((c for c in candidates if c.y - baseline <= 1.5), key=lambda c: c.x)
    line = min(row, key=lambda candidate: abs(candidate.x - rect.x))
    words, end = [line.text.strip()], line.end
    for after in row[row.index(line) + 1 :]:
        if after.x - end > 1.5 * line.size:
            break
        words.append(after.text.strip())
        end = after.end
    return Label(" ".join(words), "above")


def _right(rect: Rect, lines: Sequence[TextLine]) -> Label | None:
    candidates = [
        line
        for line in lines
        if rect.right - 1 <= line.x <= rect.right + 3 * line.size + 6
        and rect.y - line.size <= line.y <= rect.top
    ]
    if not candidates:
        return None
    return Label(min(candidates, key=lambda candidate: candidate.x).text.strip(), "right")


def labels_near(rect: Rect, lines: Sequence[TextLine], *, kind: str) -> list[Label]:
    """The texts printed where the label of a box of field type ``kind`` would be, most likely
    first: a checkbox's to its right, then left or above; a text box's to its left or above; a
    radio group's (the union of its options, each labelled to its right) left or above."""
    order = (_right, _left, _above) if kind == "checkbox" else (_left, _above)
    return [label for find in order if (label := find(rect, lines)) is not None]
