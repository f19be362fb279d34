"""The labels printed beside a found field, and the type a label names.

The text of a page is read from pdfium in runs (one line, one font, with their true bounds);
a field's label is the run printed where its label would be (``page_text.labels_near``: a
checkbox's to its right, a text field's to its left or above; inside its own table cell, above
its empty band; under a line, as "Signature" is printed under a signature line). The label's
words say the type: Signature/Firma, Initials/Iniciales, Date/Fecha, Email/Correo,
Phone/Teléfono, Amount/Total/$.

Pure Python.
"""

from __future__ import annotations

import ctypes
import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from core.engine.template_spec import Rect
from templates_app.engine.aliases import ascii_words, label_phrase
from templates_app.engine.form_geometry import BOX_MIN_WIDTH
from templates_app.engine.page_text import Label, TextLine, labels_near

# Glyphs that are blanks themselves: underscores (a line typed as text) and boxes (pdfium reads
# each of ZapfDingbats' boxes, ❏ ❑ included, as ■).
BLANK_GLYPHS = frozenset("_☐□❏❐❑❒▢■")
# How far above a table's cell its column's heading may be printed (a dozen rows of cells).
COLUMN_REACH = 250.0
# A blank at least this wide may stand under several column headings printed on one line just
# above it (up to HEADING_REACH points), at least HEADING_MIN_GAP apart.
SPLIT_MIN_WIDTH = 150.0
HEADING_REACH = 14.0
HEADING_MIN_GAP = 12.0
HEADINGS_MIN = 3  # two texts over a blank are as often a label and its note
# A glyph alone in a font of signs (the IRS's "UniversalStd-NewswithCommPi", pdfium reads its
# arrow as "a"; ZapfDingbats, Wingdings) is the arrow pointing at a blank: "Firm's name ▶ ___".
POINTER_FONT = re.compile(r"(?:Pi|Dingbats|Wingdings\w*)$")
TICK_LABEL_REACH = 12.0  # points from a checkbox to the label printed after it
# A blank this wide (points) with a section's heading just under it is the rule that opens it.
SECTION_RULE_MIN_WIDTH = 560.0
SECTION_HEADING_REACH = 16.0
_SECTION = re.compile(r"(section|part|schedule|step)\s+\w", re.IGNORECASE)


class TextRun(TextLine):
    """A run of text read from pdfium (one line, one font), which knows where it really ends."""

    def __init__(self, x: float, y: float, size: float, text: str, right: float) -> None:
        super().__init__(x=x, y=y, size=size, text=text)
        self.right = right

    @property
    def end(self) -> float:
        return self.right


class RunsByHeight:
    """A page's text runs, to hand each field only those that could be its label: the runs
    within the reach of every rule here (``label_and_type``, ``split_under_headings``) above
    and below it, in the page's order, so a field gets the label it would get from every run
    of the page. Reading all of a page's runs for each of its fields was a fifth of the
    detection's time on a tax form."""

    def __init__(self, lines: Sequence[TextRun]) -> None:
        self.lines = list(lines)
        self._order = sorted(range(len(self.lines)), key=lambda index: self.lines[index].y)
        self._ys = [self.lines[index].y for index in self._order]
        self._size = max((line.size for line in self.lines), default=0.0)

    def near(self, rect: Rect, cell_top: float | None = None) -> list[TextRun]:
        size = self._size
        # Lowest: a caption under a line (_below_label); highest: a column's heading, a label
        # above a box or its wrapped first line, the top of the field's own cell.
        low = rect.y - 4 * size - 3
        high = rect.top + max(COLUMN_REACH, 2.2 * size, 1 + 1.6 * size) + 1
        if cell_top is not None:
            high = max(high, cell_top + 1)
        first, last = bisect_left(self._ys, low), bisect_right(self._ys, high)
        return [self.lines[index] for index in sorted(self._order[first:last])]


# Words of a label that say what a field holds, first match wins (ASCII, lower case: accents
# are dropped by ``ascii_words``, so "teléfono" is "telefono").
_TYPE_WORDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # "Initial" alone or "Initials", not "First name and initial" or "Initial investment".
    ("initial", re.compile(r"\b(initials|iniciales|initial here)\b|^initial$")),
    # "Country of birth" is a place: a date is named as one ("Date of birth", "DOB").
    ("date", re.compile(r"\b(date|dated|fecha|dob|birthdate)\b")),
    ("signature", re.compile(r"\b(signature|sign here|signed|firma|firme aqui|signer)\b")),
    ("email", re.compile(r"\b(e ?mail|correo)\b")),
    ("phone", re.compile(r"\b(phone|telephone|tel|mobile|cell|telefono|celular|fax)\b")),
    ("number", re.compile(r"\b(amount|total|quantity|qty|how many|number of|importe|cantidad)\b")),
)


# The words of a label that names a field to fill in (a person's or a place's particulars), in
# the languages of the service's pages, written as ``ascii_words`` gives them (no accents).
_FIELD_WORDS = re.compile(
    r"\b(name|first|last|middle|surname|given|address|street|city|town|state|province|zip"
    r"|postal|country|county|phone|telephone|fax|e ?mail|date|birth|ssn|social|number|no|id"
    r"|title|occupation|employer|company|business|apt|suite|relationship"
    r"|nom|prenom|adresse|ville|rue|pays|telephone|courriel|naissance|numero"
    r"|nombre|apellidos?|direccion|ciudad|estado|codigo|telefono|correo|nacimiento"
    r"|vorname|nachname|strasse|ort|plz|geburtsdatum|nome|cognome|indirizzo|citta|morada"
    r"|naam|adres|woonplaats|postcode)\b"
)


def names_a_field(rect: Rect, lines: Sequence[TextRun]) -> bool:
    """True when the text printed just left of ``rect`` on its row names a field ("City",
    "Last or Business", "Code postal"), not a sentence's words that happen to end there."""
    before = [
        line
        for line in lines
        if rect.y - 3 <= line.y <= rect.top + 2
        and rect.x - 80 <= line.x < rect.x - 2
        and line.end >= rect.x - 8
    ]
    words = " ".join(word.lower() for line in before for word in ascii_words(line.text))
    return _FIELD_WORDS.search(words) is not None


def type_from_label(text: str) -> str | None:
    """The field type a label names, if it names one: "Signature of applicant" -> signature."""
    words = " ".join(word.lower() for word in ascii_words(text))
    if "$" in text:
        return "number"
    for name, pattern in _TYPE_WORDS:
        if pattern.search(words):
            return name
    return None


def text_runs(text: pdfium.PdfTextPage) -> list[TextRun]:
    """The page's text as pdfium groups it (runs of one line and font), in page space."""
    lines = []
    for index in range(text.count_rects()):
        left, bottom, right, top = text.get_rect(index)
        words = text.get_text_bounded(left, bottom, right, top).strip()
        # pdfium bounds the glyphs: capitals fill about 0.7 of an em, the font size.
        size = (top - bottom) / 0.7
        if not words or size <= 0:
            continue
        if words[0] in BLANK_GLYPHS:
            # "☐ Yes": the box is the field; its label starts after it.
            words = words.lstrip("".join(BLANK_GLYPHS)).strip()
            left += size
            if not words:
                continue
        lines.append(TextRun(x=left, y=bottom, size=size, text=words, right=right))
    return lines


def split_pointers(
    text: pdfium.PdfTextPage, runs: Sequence[TextRun]
) -> tuple[list[TextRun], list[TextRun]]:
    """``runs`` without the arrows printed between a label and its blank, and the arrows. Only
    runs of one glyph are looked at: a real letter "a" is told from the arrow by its font."""
    kept, pointers = [], []
    name = ctypes.create_string_buffer(128)
    for run in runs:
        if len(run.text) == 1:
            index = pdfium_c.FPDFText_GetCharIndexAtPos(
                text.raw, (run.x + run.right) / 2, run.y + 0.35 * run.size, 1.0, 1.0
            )
            if (
                index >= 0
                and pdfium_c.FPDFText_GetFontInfo(text.raw, index, name, len(name), None) > 0
                and POINTER_FONT.search(name.value.decode("latin-1"))
            ):
                pointers.append(run)
                continue
        kept.append(run)
    return kept, pointers


def _inside_label(rect: Rect, cell_top: float | None, lines: Sequence[TextRun]) -> Label | None:
    """The label printed inside a field's own table cell, above the empty band."""
    if cell_top is None:
        return None
    inside = [
        line
        for line in lines
        if rect.x - 2 <= line.x < rect.right - 4 and rect.top - 2 <= line.y < cell_top
    ]
    if not inside:
        return None
    inside.sort(key=lambda line: (-line.y, line.x))
    return Label(" ".join(line.text.strip() for line in inside[:2]), "above")


def _below_label(rect: Rect, lines: Sequence[TextRun]) -> Label | None:
    """A caption printed under a line ("Signature", "Date")."""
    below = [
        line
        for line in lines
        if rect.y - 3 * line.size - 2 <= line.y + line.size <= rect.y + 1
        and line.x < rect.right
        and line.end > rect.x
    ]
    if not below:
        return None
    return Label(max(below, key=lambda line: line.y).text.strip(), "below")


def _row_labels(rect: Rect, lines: Sequence[TextRun]) -> list[Label]:
    """The texts printed left of a box on its own row, nearest first, past the nearest one
    (``labels_near`` gives that): where the nearest is a line number or a bullet."""
    row = sorted(
        (
            line
            for line in lines
            if line.end <= rect.x + 1
            and rect.height < 2.2 * line.size
            and rect.y - 2 <= line.y <= rect.top + 1
        ),
        key=lambda line: -line.end,
    )
    return [Label(line.text.strip(), "left") for line in row[1:4]]


def _column_heading(rect: Rect, lines: Sequence[TextRun]) -> Label | None:
    """The nearest text above ``rect`` that stands over it (its middle within the box's
    width), up to COLUMN_REACH points up: a table column's heading."""
    middle = [
        line
        for line in lines
        if rect.x <= (line.x + line.end) / 2 <= rect.right
        and rect.top - 1 < line.y <= rect.top + COLUMN_REACH
    ]
    if not middle:
        return None
    return Label(min(middle, key=lambda line: line.y).text.strip(), "above")


def heads_section(rect: Rect, lines: Sequence[TextRun]) -> bool:
    """True for a blank across the page (SECTION_RULE_MIN_WIDTH) right above a section's
    heading ("Section 2: Signing Your Return", "Part III"): the rule that opens the section,
    not a line to write on."""
    return rect.width >= SECTION_RULE_MIN_WIDTH and any(
        rect.y - SECTION_HEADING_REACH <= line.y + 0.7 * line.size <= rect.y + 1
        and line.x < rect.right
        and line.end > rect.x
        and _SECTION.match(line.text.strip())
        for line in lines
    )


def split_under_headings(
    rect: Rect, lines: Sequence[TextRun], ticks: Sequence[Rect] = ()
) -> list[Rect]:
    """A wide blank under a row of column headings printed apart on one line ("City or town",
    "State", "ZIP code" over one ruled row with no walls between): one blank per heading, each
    from its heading's start to the next one's. Otherwise the blank as it is. Texts with a
    checkbox (``ticks``) just before them are the boxes' labels, not headings."""
    if rect.width < SPLIT_MIN_WIDTH:
        return [rect]
    above = sorted(
        (
            line
            for line in lines
            if rect.top - 2 <= line.y <= rect.top + HEADING_REACH
            and line.x >= rect.x - 2
            and line.end <= rect.right + 2
        ),
        key=lambda line: line.x,
    )
    # The headings stand on one baseline (the lowest text over the blank), each well apart
    # from the last: texts closer than that are words of one heading ("ZIP" "Code" set as two
    # runs), and a sentence, or a label and its note, reads as one heading, not columns.
    if not above:
        return [rect]
    baseline = min(line.y for line in above)
    row = [line for line in above if abs(line.y - baseline) <= 2]
    starts = [row[0].x]  # the text on the baseline is in the row
    end = row[0].end
    for line in row[1:]:
        if line.x - end >= HEADING_MIN_GAP:
            starts.append(line.x)
        end = max(end, line.end)
    if len(starts) < HEADINGS_MIN or any(
        0 <= line.x - tick.right <= TICK_LABEL_REACH and tick.y - 2 <= line.y <= tick.top
        for line in row
        for tick in ticks
    ):
        return [rect]
    edges = [rect.x, *(start - 2 for start in starts[1:]), rect.right]
    if min(right - left for left, right in zip(edges, edges[1:], strict=False)) < BOX_MIN_WIDTH:
        return [rect]
    return [
        Rect(left, rect.y, right - left, rect.height)
        for left, right in zip(edges, edges[1:], strict=False)
    ]


def label_and_type(
    kind: str, rect: Rect, lines: Sequence[TextRun], *, cell_top: float | None = None
) -> tuple[str, str | None]:
    """The label printed for a found field of shape ``kind`` ("text", "checkbox", "comb") at
    ``rect`` (or "") and the type it names (or None). ``cell_top``: the top of the table cell
    whose empty band the field is, where a label inside the cell is looked for."""
    if not lines:
        return "", None
    if kind == "checkbox":
        candidates = labels_near(rect, lines, kind="checkbox")
    else:
        inside = _inside_label(rect, cell_top, lines)
        candidates = [*([inside] if inside else []), *labels_near(rect, lines, kind="text")]
        # Further along the row: a label ahead of its line number and leader dots
        # ("Income after additions . . . . 12 [box]"), after the nearer texts; last, the
        # heading of the column the box stands in (a table's cell several rows down).
        candidates.extend(_row_labels(rect, lines))
        if kind == "text" and (below := _below_label(rect, lines)) is not None:
            candidates.append(below)
        # The farthest, for a box no nearer text names at all: a caption printed right under
        # a line ("Signature") is the line's own, even when it makes no alias.
        if (heading := _column_heading(rect, lines)) is not None and not any(
            type_from_label(candidate.text) for candidate in candidates
        ):
            candidates.append(heading)
    label, named = "", None
    for candidate in candidates:
        # The type is the owning label's: the first that names the field, or a text before it
        # that names none ("Signature" alone is a generated name to the alias rules, but a
        # type). A label further off belongs to another box ("Last name" under "First name and
        # initial" is no initial).
        named = named or type_from_label(candidate.text)
        phrase = label_phrase(candidate.text, last=candidate.side == "left")
        if phrase is not None:
            label = phrase
            break
    if kind != "text":
        named = None  # a checkbox or a row of boxes is what its shape says
    return label, named
