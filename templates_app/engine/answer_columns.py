"""Checkboxes a form shows only as cells of a "Yes" and a "No" column.

A tax form's questions are often answered in two narrow columns headed "Yes" and "No" at the
page's right, or in a table whose columns come in such pairs: the tick goes in the empty cell
under the heading, and no box is printed in it. The rules make these cells text cells or, side
by side, a comb; here a cell whose column is headed by a lone "Yes" or "No" (nothing printed
between the heading and the cell) becomes a checkbox on the cell's last line. The right column
of the pair is often left open at the page's edge, so it closes no cell: its checkbox is put
beside its partner's, under its own heading.

Pure Python: no Django.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.engine.template_spec import Rect
from templates_app.engine.field_labels import COLUMN_REACH, TextRun
from templates_app.engine.form_geometry import overlap_share
from templates_app.engine.page_shapes import Found

ANSWERS = frozenset(("yes", "no", "oui", "non", "ja", "nein", "si", "sí"))
_LONGEST_FIRST = sorted(ANSWERS, key=len, reverse=True)  # "non" before "no"
CELL_MAX_WIDTH = 40.0  # points: an answer column is a word wide
TICK_SIDE = 12.0  # points: the checkbox drawn in an answer cell, at most
# An answer heading's partner ("No" after "Yes") is on the same line, this close (centres).
PARTNER_REACH = 60.0


def answer_ticks(found: Sequence[Found], lines: Sequence[TextRun]) -> list[Found]:
    """``found`` with the cells (text cells, combs' boxes) of Yes/No columns as checkboxes, and
    the checkboxes of their partner columns that close no cell of their own."""
    lines = answer_words(lines)
    answers = [run for run in lines if _word(run) in ANSWERS]
    if not answers:
        return list(found)  # most pages: no heading to look under
    out: list[Found] = []
    ticks: list[tuple[Found, TextRun]] = []
    for item in found:
        if item.kind == "text":
            heading = _answer_heading(item.rect, answers, lines)
            if heading is None:
                out.append(item)
                continue
            tick = Found("checkbox", _tick_rect(item.rect))
            ticks.append((tick, heading))
            out.append(tick)
        elif item.kind == "comb":
            headings = [_answer_heading(box, answers, lines) for box in item.boxes]
            if not all(headings):
                out.append(item)
                continue
            for box, heading in zip(item.boxes, headings, strict=True):
                tick = Found("checkbox", _tick_rect(box))
                ticks.append((tick, heading))  # type: ignore[arg-type]  # none is None here
                out.append(tick)
        else:
            out.append(item)
    for tick, heading in ticks:
        for other in answers:
            shift = _centre(other) - _centre(heading)
            if (
                other is heading
                or abs(other.y - heading.y) > 1
                or not 0 < abs(shift) <= PARTNER_REACH
            ):
                continue
            rect = tick.rect
            partner = Rect(rect.x + shift, rect.y, rect.width, rect.height)
            if not any(overlap_share(partner, item.rect) > 0.3 for item in out):
                out.append(Found("checkbox", partner))
    return out


def answer_words(lines: Sequence[TextRun]) -> list[TextRun]:
    """``lines`` with a run made only of answers cut into its words, each as wide as its share
    of the letters: OCR reads two headings side by side as one line, "Yes No", or as one word
    when they are set close, "YesNo"."""
    out = []
    for run in lines:
        pieces = _answer_pieces(run.text)
        if len(pieces) < 2:
            out.append(run)
            continue
        step = (run.right - run.x) / len(run.text)
        out.extend(
            TextRun(
                x=run.x + start * step,
                y=run.y,
                size=run.size,
                text=run.text[start:end],
                right=run.x + end * step,
            )
            for start, end in pieces
        )
    return out


def _answer_pieces(text: str) -> list[tuple[int, int]]:
    """Where in ``text`` each of the answers it is made of lies (start, end), when it is made
    only of answers, spaced or run together; else nothing."""
    pieces = []
    for word in re.finditer(r"\S+", text):
        start, end = word.start(), word.end()
        while start < end:
            rest = text[start:end].lower()
            answer = next((a for a in _LONGEST_FIRST if rest.startswith(a)), None)
            if answer is None:
                return []
            length = len(answer) + rest[len(answer) :].startswith(":")
            pieces.append((start, start + length))
            start += length
    return pieces


def _answer_heading(
    cell: Rect, answers: Sequence[TextRun], lines: Sequence[TextRun]
) -> TextRun | None:
    """The "Yes" or "No" (one of ``answers``) heading the narrow ``cell``'s column: the text of
    ``lines`` printed nearest above it across its width, centred over it."""
    if cell.width > CELL_MAX_WIDTH or not any(
        cell.x <= _centre(run) <= cell.right and cell.top - 1 <= run.y <= cell.top + COLUMN_REACH
        for run in answers
    ):
        return None
    above = [
        run
        for run in lines
        if run.x < cell.right
        and run.right > cell.x
        and cell.top - 1 <= run.y <= cell.top + COLUMN_REACH
    ]
    if not above:
        return None
    # The lowest text; of words on one line (a line OCR read whole, cut), the one over the cell.
    middle = (cell.x + cell.right) / 2
    nearest = min(above, key=lambda run: (run.y, abs(_centre(run) - middle)))
    if _word(nearest) in ANSWERS and cell.x <= _centre(nearest) <= cell.right:
        return nearest
    return None


def _tick_rect(cell: Rect) -> Rect:
    """The checkbox of an answer cell: a square in the middle of its last line (a question of
    several lines is answered on its last)."""
    side = min(cell.width, cell.height, TICK_SIDE)
    band = min(cell.height, TICK_SIDE + 2)
    return Rect(cell.x + (cell.width - side) / 2, cell.y + (band - side) / 2, side, side)


def _centre(run: TextRun) -> float:
    return (run.x + run.right) / 2


def _word(run: TextRun) -> str:
    return _bare(run.text)


def _bare(text: str) -> str:
    return text.strip().rstrip(":").lower()
